import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Switchyard, type SwitchyardEvent } from "../../src/index.js";
import { checkPlan, type PlanSpec, preflightPlan, runPlan } from "../../src/plan/index.js";
import { raw, runCli, sdk } from "../helpers.js";

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected a rejection");
}

describe("a plan is checked against the fleet and its input before anything runs", () => {
  let yard: Switchyard;
  const events: SwitchyardEvent[] = [];
  beforeAll(async () => {
    yard = await Switchyard.connect({ mcpServers: { a: sdk(), b: raw() } });
    yard.observe((event) => events.push(event));
  });
  afterAll(async () => {
    await yard.close();
  });
  /** Run a plan that must be refused; nothing of it may reach the host. */
  const refused = async (spec: unknown, input?: Record<string, unknown>) => {
    events.length = 0;
    const error = await rejection(runPlan(checkPlan(spec), { host: yard, ...(input ? { input } : {}) }));
    expect(events).toEqual([]);
    return error;
  };

  const declared = {
    input: { customer_id: { description: "customer id such as C10001" }, days: { default: 7 } },
    steps: [{ id: "say", tool: "b_echo", args: { text: "{{input.customer_id}} {{input.days}}" } }],
  };

  it("refuses input names the plan does not take, listing its inputs, with 'did you mean' for a near one", async () => {
    expect(await refused(declared, { custmer_id: "C10001" })).toEqual(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        message:
          'the plan takes no input "custmer_id" (did you mean "customer_id"?); its inputs: customer_id (customer id such as C10001), days',
      }),
    );
    const far = await refused(declared, { customer_id: "C1", colour: "red", dayz: 3 });
    expect(far.message).toBe(
      'the plan takes no input "colour"; the plan takes no input "dayz" (did you mean "days"?); its inputs: customer_id (customer id such as C10001), days',
    );
    // A plan that declares no inputs takes the ones it reads.
    const reads = { steps: [{ id: "say", tool: "b_echo", args: { text: "{{input.text}}" } }] };
    expect((await refused(reads, { txt: "hi" })).message).toContain(
      'the plan takes no input "txt" (did you mean "text"?); its inputs: text',
    );
    const none = { steps: [{ id: "say", tool: "b_echo", args: { text: "hi" } }] };
    expect((await refused(none, { text: "hi" })).message).toContain("it takes no inputs");
    // The right names run.
    const result = await runPlan(checkPlan(declared), { host: yard, input: { customer_id: "C1" } });
    expect(result.steps[0]!.result!.text).toBe("C1 7");
  });

  it("refuses literal arguments that do not fit the tool's schema, every bad step at once, naming step, tool and problems", async () => {
    const error = await refused({
      steps: [
        { id: "fine", tool: "b_echo", args: { text: "runs first if nothing is checked" } },
        { id: "sum", tool: "a_add", args: { a: "one", b: 2 } },
        { id: "say", tool: "b_echo", args: {} },
      ],
    });
    expect(error.code).toBe("INVALID_ARGUMENTS");
    expect(error.message).toContain('step sum (tool a_add, add on server a): "a" must be number');
    expect(error.message).toContain(
      'step say (tool b_echo, echo on server b): missing required field "text"',
    );
    expect(error.message).not.toContain("step fine");
    // The check is the pipeline's: safe coercion passes ("2" → 2).
    const coerced = await runPlan(
      checkPlan({ steps: [{ id: "sum", tool: "a_add", args: { a: "40", b: 2 } }] }),
      {
        host: yard,
      },
    );
    expect(coerced.steps[0]!.result!.structuredContent).toEqual({ sum: 42 });
  });

  it("checks input values too (they are known before the run), and leaves arguments read from earlier steps to the run", async () => {
    const spec = {
      input: { ms: { default: 1 } },
      steps: [
        { id: "nap", tool: "a_sleep", args: { ms: "{{input.ms}}" } },
        { id: "sum", tool: "a_add", args: { a: "{{steps.nap.text.length}}", b: 1 }, needs: ["nap"] },
      ],
    };
    const error = await refused(spec, { ms: "soon" });
    expect(error).toMatchObject({ code: "INVALID_ARGUMENTS" });
    expect(error.message).toContain('step nap (tool a_sleep, sleep on server a): "ms" must be number');
    // An input path that cannot be read is known to fail before the run, too.
    const unreadable = await refused(
      { input: { who: null }, steps: [{ id: "say", tool: "b_echo", args: { text: "{{input.who.name}}" } }] },
      { who: "Ann" },
    );
    expect(unreadable.message).toContain(
      'step say (tool b_echo, echo on server b): "text": {{input.who.name}}: input.who is string, so it has no .name',
    );
    // `sum.a` reads a step: not checked before, and the run reports it (a string is not a number).
    const result = await runPlan(checkPlan(spec), { host: yard, input: { ms: 5 } });
    expect(result.steps.map((s) => [s.id, s.status, s.error?.code])).toEqual([
      ["nap", "ok", undefined],
      ["sum", "failed", "UNRESOLVED_REFERENCE"],
    ]);
  });

  it("names every unknown tool with the catalog's suggestions", async () => {
    const error = await refused({
      steps: [
        { id: "one", tool: "b_ech0", args: { text: "x" } },
        { id: "two", tool: "a_ad", args: { a: 1, b: 2 } },
        { id: "three", tool: "zzzz" },
      ],
    });
    expect(error.code).toBe("TOOL_NOT_FOUND");
    expect(error.message).toContain(
      "step one uses tool b_ech0, which is not in the catalog; did you mean b_echo?",
    );
    expect(error.message).toMatch(
      /step two uses tool a_ad, which is not in the catalog; did you mean a_add\b/,
    );
    expect(error.message).toContain("step three uses tool zzzz, which is not in the catalog; list the tools");
    // preflightPlan alone: the same checks, and the input with its defaults.
    expect(preflightPlan(checkPlan(declared), { host: yard, input: { customer_id: "C1" } })).toEqual({
      customer_id: "C1",
      days: 7,
    });
  });
});

describe("switchyard run", () => {
  let dir: string;
  let config: string;
  const plan = (name: string, spec: PlanSpec) => {
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(spec));
    return file;
  };
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "switchyard-preflight-"));
    config = path.join(dir, "fleet.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { a: sdk() } }));
  });

  it("exits 2 for an unknown --input, naming it, the plan's inputs and the near one", async () => {
    const file = plan("inputs", {
      input: { customer_id: { description: "customer id" }, days: { default: 7 } },
      steps: [{ id: "say", tool: "a_echo", args: { text: "{{input.customer_id}}" } }],
    });
    const { code, stdout, stderr } = await runCli([
      "--config",
      config,
      "run",
      file,
      "--input",
      "custmer_id=C1",
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(
      'the plan takes no input "custmer_id" (did you mean "customer_id"?); its inputs: customer_id (customer id), days',
    );
  });

  it("exits 2 for arguments that do not fit the tool's schema, before anything is sent", async () => {
    const file = plan("args", {
      input: { ms: { default: 1 } },
      steps: [
        { id: "say", tool: "a_echo", args: { text: "hi" } },
        { id: "nap", tool: "a_sleep", args: { ms: "{{input.ms}}" } },
      ],
    });
    const trace = path.join(dir, "wire.jsonl");
    const { code, stderr } = await runCli([
      "--config",
      config,
      "--trace-wire",
      trace,
      "run",
      file,
      "--input",
      "ms=later",
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('step nap (tool a_sleep, sleep on server a): "ms" must be number');
    const calls = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .filter((line) => line.includes('"tools/call"'));
    expect(calls).toEqual([]);
  });

  it("exits 2 for an unknown tool, with 'did you mean'", async () => {
    const file = plan("tool", { steps: [{ id: "say", tool: "a_ech0", args: { text: "hi" } }] });
    const { code, stderr } = await runCli(["--config", config, "run", file]);
    expect(code).toBe(2);
    expect(stderr).toContain("step say uses tool a_ech0, which is not in the catalog; did you mean a_echo?");
  });

  it("prints why each step failed in full below the table, however long", async () => {
    const long = `${"the reason is long, ".repeat(12)}and ends here`;
    const file = plan("long", {
      steps: [
        { id: "say", tool: "a_echo", args: { text: long } },
        { id: "sum", tool: "a_add", args: { a: "{{steps.say.text}}", b: 1 } },
        { id: "after", tool: "a_echo", args: { text: "{{steps.sum.text}}" } },
      ],
    });
    const json = await runCli(["--config", config, "--json", "run", file]);
    expect(json.code).toBe(1);
    const failed = (
      JSON.parse(json.stdout) as { steps: Array<{ id: string; error?: { code: string; message: string } }> }
    ).steps.find((step) => step.id === "sum")!.error!;
    expect(failed.code).toBe("INVALID_ARGUMENTS");

    const { code, stdout } = await runCli(["--config", config, "run", file]);
    expect(code).toBe(1);
    const lines = stdout.split("\n");
    expect(lines[0]).toMatch(/^STEP\s+SERVER\s+TOOL\s+STATUS\s+TIME\s+NOTE$/);
    expect(lines.find((line) => line.startsWith("sum "))).toMatch(/failed\s+\d+ ms\s+INVALID_ARGUMENTS$/);
    expect(lines).toContain(`sum (a_add): INVALID_ARGUMENTS: ${failed.message}`);
    expect(lines).toContain("after (a_echo): skipped: step sum failed");
    expect(`sum (a_add): INVALID_ARGUMENTS: ${failed.message}`.length).toBeGreaterThan(120);
    expect(stdout).not.toContain("…");
  });
});
