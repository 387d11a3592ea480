import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { NODE, ROOT } from "../helpers.js";

/** The names a package entry exports, as a user's script sees them (the built package, by its name). */
async function exportsOf(specifier: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    NODE,
    ["--input-type=module", "-e", `console.log(JSON.stringify(Object.keys(await import("${specifier}"))))`],
    { cwd: ROOT },
  );
  return JSON.parse(stdout) as string[];
}

describe("the package's entry points", () => {
  it("export plans from switchyard/plan, as the README shows", async () => {
    expect(await exportsOf("switchyard/plan")).toEqual(
      expect.arrayContaining(["runPlan", "loadPlanFile", "parsePlan", "checkPlan"]),
    );
  });

  it("keep the root lean: routing internals only in switchyard/routing", async () => {
    const root = await exportsOf("switchyard");
    expect(root).toEqual(
      expect.arrayContaining([
        "Switchyard",
        "Agent",
        "createAgent",
        "routeTools",
        "routerFor",
        "Router",
        "createStrategy",
      ]),
    );
    for (const internal of [
      "tokenize",
      "createTokenizer",
      "reciprocalRankFusion",
      "routingMetrics",
      "parseToolsJson",
    ])
      expect(root).not.toContain(internal);
    expect(await exportsOf("switchyard/routing")).toEqual(
      expect.arrayContaining([
        "Router",
        "Bm25Index",
        "tokenize",
        "reciprocalRankFusion",
        "evaluateRouter",
        "parseToolsJson",
      ]),
    );
  });
});
