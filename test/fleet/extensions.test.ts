// One reading of a declared extension, for a server's capabilities and a client's alike.
import { describe, expect, it } from "vitest";
import { declaresExtension, SKILLS_EXTENSION, TASKS_EXTENSION } from "../../src/fleet/extensions.js";

describe("declaresExtension", () => {
  it("takes a settings object, or true written short; absent, null and false declare nothing", () => {
    const of = (value: unknown) => ({ extensions: { [SKILLS_EXTENSION]: value } });
    expect(declaresExtension(of({}), SKILLS_EXTENSION)).toBe(true);
    expect(declaresExtension(of({ version: 1 }), SKILLS_EXTENSION)).toBe(true);
    expect(declaresExtension(of(true), SKILLS_EXTENSION)).toBe(true);
    for (const value of [null, false, undefined, "yes", 1])
      expect(declaresExtension(of(value), SKILLS_EXTENSION), String(value)).toBe(false);
    expect(declaresExtension(of({}), TASKS_EXTENSION)).toBe(false);
    expect(declaresExtension(undefined, TASKS_EXTENSION)).toBe(false);
    expect(declaresExtension({}, TASKS_EXTENSION)).toBe(false);
  });
});
