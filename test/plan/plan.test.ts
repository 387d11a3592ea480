import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Switchyard, type SwitchyardEvent } from "../../src/index.js";
import { checkPlan, type PlanEvent, parsePath, resolveValue, runPlan } from "../../src/plan/index.js";
import { ROOT, raw, runCli, sdk } from "../helpers.js";

describe("plan expressions", () => {
  const scope = {
    input: { id: "C10001", days: 7 },
    steps: {
      orders: {
        structured: { rows: [{ product_name: "无线蓝牙耳机", "unit price": 299 }] },
        text: "3 orders",
      },
    },
  };

  it("read paths with dots, indexes and quoted keys, keeping the value's type when alone", () => {
    expect(parsePath('steps.orders.structured.rows[0]["unit price"]').keys).toEqual([
      "steps",
      "orders",
      "structured",
      "rows",
      0,
      "unit price",
    ]);
    expect(resolveValue("{{input.days}}", scope)).toBe(7);
    expect(resolveValue({ k: ["{{ steps.orders.structured.rows[0] }}"] }, scope)).toEqual({
      k: [{ product_name: "无线蓝牙耳机", "unit price": 299 }],
    });
    expect(
      resolveValue(
        "{{input.id}} bought {{steps.orders.structured.rows[0].product_name}} x{{input.days}}",
        scope,
      ),
    ).toBe("C10001 bought 无线蓝牙耳机 x7");
  });

  it("say exactly which part of a path is missing", () => {
    expect(() => resolveValue("{{steps.orders.structured.rows[3].product_name}}", scope)).toThrow(
      "steps.orders.structured.rows[3] is undefined (it has 1 items)",
    );
    expect(() => resolveValue("{{steps.orders.text.length.x}}", scope)).toThrow(
      "steps.orders.text is string, so it has no .length",
    );
    expect(() => parsePath("process.env.HOME")).toThrow(/must start with "input" or "steps"/);
    expect(() => parsePath("steps.a[b]")).toThrow(/use \.name, \[0\] or \["key"\]/);
  });
});

describe("checking a plan", () => {
  const step = (id: string, args: Record<string, unknown> = {}, needs?: string[]) => ({
    id,
    tool: "a_echo",
    args,
    ...(needs ? { needs } : {}),
  });

  it("infers dependencies from references and declared needs", () => {
    const plan = checkPlan({
      steps: [step("a"), step("b", { text: "{{steps.a.text}}" }), step("c", {}, ["a", "b"])],
    });
    expect([...plan.dependencies.get("b")!]).toEqual(["a"]);
    expect([...plan.dependencies.get("c")!].sort()).toEqual(["a", "b"]);
  });

  it("rejects cycles, unknown steps, duplicate ids and undeclared inputs, naming them", () => {
    expect(() =>
      checkPlan(
        { steps: [step("a", { t: "{{steps.b.text}}" }), step("b", { t: "{{steps.a.text}}" })] },
        "p.yaml",
      ),
    ).toThrow("p.yaml: steps depend on each other in a circle: a → b → a");
    expect(() => checkPlan({ steps: [step("a", {}, ["ghost"])] })).toThrow(
      'step a depends on "ghost", which is not a step',
    );
    expect(() => checkPlan({ steps: [step("a"), step("a")] })).toThrow('two steps are called "a"');
    expect(() => checkPlan({ input: { id: null }, steps: [step("a", { t: "{{input.nope}}" })] })).toThrow(
      'the plan declares no input "nope"',
    );
    expect(() => checkPlan({ steps: [] })).toThrow("expected at least one step");
    expect(() => checkPlan({ steps: [{ id: "a", tool: "t", extra: 1 }] })).toThrow(/extra/);
  });
});

describe("running a plan", () => {
  let yard: Switchyard;
  beforeAll(async () => {
    yard = await Switchyard.connect({ mcpServers: { a: sdk(), b: raw() } });
  });
  afterAll(async () => {
    await yard.close();
  });

  it("runs independent steps in parallel and feeds results into later steps", async () => {
    const events: PlanEvent[] = [];
    const plan = checkPlan({
      input: { x: { default: 20 } },
      steps: [
        { id: "slow", tool: "a_sleep", args: { ms: 300 } },
        { id: "sum", tool: "a_add", args: { a: "{{input.x}}", b: 22 } },
        {
          id: "say",
          tool: "b_echo",
          args: { text: "sum={{steps.sum.structured.sum}} after {{steps.slow.text}}" },
        },
      ],
      outputs: { sum: "{{steps.sum.structured.sum}}", said: "{{steps.say.text}}" },
    });
    const result = await runPlan(plan, { host: yard, onEvent: (event) => events.push(event) });
    expect(result.ok).toBe(true);
    expect(result.outputs).toEqual({ sum: 42, said: "sum=42 after slept 300" });
    expect(events[0]).toMatchObject({ type: "run_started", runId: result.runId, kind: "plan" });
    const calls = events.flatMap((e) =>
      e.type === "call_started" || e.type === "call_finished" ? [{ type: e.type, id: e.id }] : [],
    );
    expect(
      calls
        .slice(0, 2)
        .map((e) => [e.type, e.id].join(" "))
        .sort(),
    ).toEqual(["call_started slow", "call_started sum"]);
    expect(calls.findIndex((e) => e.type === "call_started" && e.id === "say")).toBeGreaterThan(
      calls.findIndex((e) => e.type === "call_finished" && e.id === "slow"),
    );
    expect(events.at(-1)).toEqual({ type: "run_finished", runId: result.runId, record: result.record });
    expect(result.record).toMatchObject({ id: result.runId, kind: "plan", outcome: "ok" });
    expect(result.record.calls.map((c) => [c.id, c.runId, c.name, c.ok])).toEqual([
      ["slow", result.runId, "a_sleep", true],
      ["sum", result.runId, "a_add", true],
      ["say", result.runId, "b_echo", true],
    ]);
  });

  it("stops the dependants of a failed step and reports why, while other steps run", async () => {
    const plan = checkPlan({
      steps: [
        { id: "broken", tool: "a_fail" },
        { id: "after", tool: "b_echo", args: { text: "{{steps.broken.text}}" } },
        { id: "later", tool: "b_echo", needs: ["after"], args: { text: "x" } },
        { id: "free", tool: "b_echo", args: { text: "independent" } },
      ],
      outputs: { after: "{{steps.after.text}}", free: "{{steps.free.text}}" },
    });
    const result = await runPlan(plan, { host: yard });
    expect(result.ok).toBe(false);
    expect(result.steps.map((s) => [s.id, s.status, s.error])).toEqual([
      ["broken", "failed", { code: "TOOL_ERROR", message: "fail: requested failure" }],
      ["after", "skipped", { code: "SKIPPED", message: "step broken failed" }],
      ["later", "skipped", { code: "SKIPPED", message: "step after was skipped" }],
      ["free", "ok", undefined],
    ]);
    expect(result.record).toMatchObject({
      outcome: "failed",
      error: { code: "TOOL_ERROR", message: "step broken: fail: requested failure" },
    });
    expect(result.outputs).toEqual({ after: null, free: "independent" });
  });

  it("reports the run to the host once: its calls from the pipeline, with the run id and step ids", async () => {
    const seen: SwitchyardEvent[] = [];
    const stop = yard.observe((event) => seen.push(event));
    const plan = checkPlan({
      steps: [
        { id: "sum", tool: "a_add", args: { a: 1, b: 2 } },
        { id: "broken", tool: "a_fail" },
        { id: "after", tool: "b_echo", args: { text: "{{steps.broken.text}}" } },
        { id: "missing", tool: "b_echo", args: { text: "{{steps.sum.structured.nope.deeper}}" } },
      ],
    });
    const result = await runPlan(plan, { host: yard });
    stop();
    const { runId } = result;
    expect(seen[0]).toMatchObject({ type: "run_started", runId, kind: "plan" });
    expect(seen.at(-1)).toEqual({ type: "run_finished", runId, record: result.record });
    const finished = seen.flatMap((e) => (e.type === "call_finished" ? [e] : []));
    expect(finished.map((e) => [e.id, e.runId, e.ok, e.error?.code]).sort()).toEqual([
      ["after", runId, false, "SKIPPED"],
      ["broken", runId, false, "TOOL_ERROR"],
      ["missing", runId, false, "UNRESOLVED_REFERENCE"],
      ["sum", runId, true, undefined],
    ]);
    // Every step was reported by the pipeline, once: those that could not run too, refused there.
    expect(
      seen
        .filter((e) => e.type === "call_started")
        .map((e) => e.id)
        .sort(),
    ).toEqual(["after", "broken", "missing", "sum"]);
    expect(result.steps.find((s) => s.id === "missing")!.error!.message).toContain(
      "steps.sum.structured.nope",
    );
  });

  it("cancels what is still running when the plan's deadline passes", async () => {
    const plan = checkPlan({
      timeoutMs: 300,
      steps: [
        { id: "quick", tool: "b_echo", args: { text: "fast" } },
        { id: "stuck", tool: "a_sleep", args: { ms: 10_000 } },
        { id: "next", tool: "b_echo", args: { text: "{{steps.stuck.text}}" } },
      ],
    });
    const started = Date.now();
    const result = await runPlan(plan, { host: yard });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.steps.map((s) => [s.id, s.status])).toEqual([
      ["quick", "ok"],
      ["stuck", "failed"],
      ["next", "skipped"],
    ]);
    expect(result.steps[1]!.error).toEqual({
      code: "TIMEOUT",
      message: "the plan did not finish within 300 ms",
    });
    expect((await yard.callTool("a_echo", { text: "still fine" })).text).toBe("still fine");
  });

  it("refuses to start without a required input or with an unknown tool", async () => {
    await expect(
      runPlan(
        checkPlan({
          input: { id: null },
          steps: [{ id: "a", tool: "b_echo", args: { text: "{{input.id}}" } }],
        }),
        {
          host: yard,
        },
      ),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("--input id=<value>"),
    });
    await expect(
      runPlan(checkPlan({ steps: [{ id: "a", tool: "b_nope" }] }), { host: yard }),
    ).rejects.toMatchObject({
      code: "TOOL_NOT_FOUND",
    });
  });
});

describe("switchyard run", () => {
  it("runs the bundled after-sales plan on the example fleet, in CONTRACT.md's JSON shape", async () => {
    const { code, stdout } = await runCli([
      "--config",
      `${ROOT}examples/fleet.json`,
      "--json",
      "run",
      `${ROOT}examples/after-sales.plan.yaml`,
      "--input",
      "customer_id=C10002",
      "--input",
      "days=30",
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.ok).toBe(true);
    expect(result.steps.map((s: { id: string; name: string; ok: boolean }) => [s.id, s.name, s.ok])).toEqual([
      ["orders", "orders_query_recent_orders", true],
      ["customer", "orders_get_customer", true],
      ["policy", "policies_search_policy", true],
    ]);
    expect(result.outputs.first_order.product_name).toEqual(expect.any(String));
    expect(result.outputs.policies.length).toBeGreaterThan(0);
  });

  it("prints a failed step's error as { code, message } and exits 1", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-run-"));
    const config = path.join(dir, "fleet.json");
    const planFile = path.join(dir, "plan.yaml");
    writeFileSync(config, JSON.stringify({ mcpServers: { a: sdk() } }));
    writeFileSync(
      planFile,
      "steps:\n  - id: broken\n    tool: a_fail\n  - id: after\n    tool: a_echo\n    needs: [broken]\n    args: { text: x }\n",
    );
    const { code, stdout } = await runCli(["--config", config, "--json", "run", planFile]);
    expect(code).toBe(1);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ runId: expect.stringMatching(/^run_/), ok: false });
    expect(result.steps).toEqual([
      {
        id: "broken",
        name: "a_fail",
        ok: false,
        ms: expect.any(Number),
        error: { code: "TOOL_ERROR", message: "fail: requested failure" },
      },
      {
        id: "after",
        name: "a_echo",
        ok: false,
        ms: 0,
        error: { code: "SKIPPED", message: "step broken failed" },
      },
    ]);
  });

  it("exits 2 for a plan that does not check out", async () => {
    const { code, stderr } = await runCli([
      "--config",
      `${ROOT}examples/fleet.json`,
      "run",
      `${ROOT}package.json`,
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/package\.json: .*steps/);
  });
});
