// Switchyard.connect({ store }): a library user's runs and calls recorded, only when asked.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store, Switchyard, verifyAudit } from "../../src/index.js";
import { sdk } from "../helpers.js";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function store(): Promise<Store> {
  const opened = await openStore({
    path: path.join(mkdtempSync(path.join(tmpdir(), "switchyard-lib-")), "s.db"),
  });
  stores.push(opened);
  return opened;
}

describe("Switchyard.connect({ store })", () => {
  it("records each call as it is made, and close() waits for the last writes", async () => {
    const recorded = await store();
    const yard = await Switchyard.connect({ mcpServers: { a: sdk() } }, { store: recorded });
    await yard.callTool("a_echo", { text: "hello" });
    await expect(yard.callTool("a_add", { a: 1, b: "x" })).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
    });
    await yard.close();
    const runs = await recorded.runs();
    expect(runs.map((run) => [run.kind, run.input, run.outcome])).toEqual([
      ["call", "a_add", "INVALID_ARGUMENTS"],
      ["call", "a_echo", "ok"],
    ]);
    const echo = await recorded.run(runs[1]!.id);
    expect(echo!.calls).toEqual([
      expect.objectContaining({
        name: "a_echo",
        server: "a",
        tool: "echo",
        arguments: '{"text":"hello"}',
        ok: true,
      }),
    ]);
    expect((await verifyAudit(recorded)).ok).toBe(true);
  });

  it("records nothing without it", async () => {
    const untouched = await store();
    const yard = await Switchyard.connect({ mcpServers: { a: sdk() } });
    await yard.callTool("a_echo", { text: "hello" });
    await yard.close();
    expect(await untouched.runs()).toEqual([]);
  });
});
