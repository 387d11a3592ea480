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

  it("keep the root lean: what a library user needs, at most 50 names; routing's parts in switchyard/routing", async () => {
    const root = await exportsOf("switchyard");
    expect(root).toEqual(
      expect.arrayContaining([
        "Switchyard",
        "SwitchyardError",
        "Agent",
        "createAgent",
        "routeTools",
        "routerFor",
      ]),
    );
    expect(root.length).toBeLessThanOrEqual(50);
    for (const internal of [
      "Router",
      "createStrategy",
      "tokenize",
      "createTokenizer",
      "reciprocalRankFusion",
      "routingMetrics",
      "parseToolsJson",
      // the CLI's own parts, and test helpers
      "LOG_LEVELS",
      "pendingConfigInputs",
      "ScriptedModel",
    ])
      expect(root).not.toContain(internal);
    expect(await exportsOf("switchyard/routing")).toEqual(
      expect.arrayContaining([
        "Router",
        "createStrategy",
        "Bm25Index",
        "tokenize",
        "reciprocalRankFusion",
        "evaluateRouter",
        "parseToolsJson",
      ]),
    );
  });

  it("keep the frameworks out of the root: importing switchyard never loads @langchain/*, ai or @ai-sdk/*", async () => {
    // A resolve hook that refuses the frameworks: the root must import without them; the adapters cannot.
    const hooks = `export async function resolve(specifier, context, next) {
      if (/^(@langchain\\/|@ai-sdk\\/|ai$|ai\\/)/.test(specifier)) throw new Error("framework loaded: " + specifier);
      return next(specifier, context);
    }`;
    const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    const load = async (specifier: string) => {
      try {
        await promisify(execFile)(
          NODE,
          [
            "--import",
            `data:text/javascript,${encodeURIComponent(register)}`,
            "--input-type=module",
            "-e",
            `const m = await import("${specifier}"); console.log(Object.keys(m).length);`,
          ],
          { cwd: ROOT },
        );
        return "loaded";
      } catch (error) {
        return (
          /framework loaded: (\S+)/.exec(String((error as { stderr?: string }).stderr))?.[1] ?? String(error)
        );
      }
    };
    expect(await load("switchyard")).toBe("loaded");
    expect(await load("switchyard/plan")).toBe("loaded");
    expect(await load("switchyard/langchain")).toMatch(/^@langchain\//);
    expect(await load("switchyard/ai-sdk")).toBe("ai");
  });

  it("export the adapters from switchyard/langchain and switchyard/ai-sdk", async () => {
    expect(await exportsOf("switchyard/langchain")).toEqual(
      expect.arrayContaining(["langchainTools", "toolSelectorFor", "ToolCallError"]),
    );
    expect(await exportsOf("switchyard/ai-sdk")).toEqual(
      expect.arrayContaining(["aiSdkTools", "routedStep", "activeToolsFor", "ToolCallError"]),
    );
  });
});
