import {
  describeStepError,
  loadPlanFile,
  type PlanResult,
  type PlanStepResult,
  runPlan,
} from "../../plan/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { formatTable } from "../table.js";

/** `switchyard run <plan.yaml> [--input key=value ...]`: run a declared plan over the configured fleet. */
export async function runCommand(
  ctx: CommandContext,
  file: string,
  flags: { input?: string[] },
): Promise<number> {
  const input = parseInputs(flags.input ?? []);
  const plan = loadPlanFile(file);
  const yard = await ctx.connect();
  const result = await runPlan(plan, {
    host: yard,
    input,
    onEvent: (event) => {
      if (event.type !== "call_finished") return;
      const status = event.ok ? "ok" : event.error?.code === "SKIPPED" ? "skipped" : "failed";
      ctx.out.note(`  ${status.padEnd(7)} ${event.id} (${event.name}) ${Math.round(event.ms)} ms`);
    },
  });
  if (ctx.out.json) ctx.out.data(planJson(result));
  else
    ctx.out.result(
      `${renderTrace(result.steps)}${renderCompensations(result)}\n\n${JSON.stringify(result.outputs, null, 2)}`,
    );
  return result.ok ? EXIT_OK : EXIT_FAILED;
}

/** The CONTRACT.md shape of a plan result. */
export function planJson(result: PlanResult) {
  return {
    runId: result.runId,
    ok: result.ok,
    steps: result.steps.map(({ id, name, ok, ms, error }) => ({
      id,
      name,
      ok,
      ms,
      ...(error ? { error: { code: error.code, message: error.message } } : {}),
    })),
    outputs: result.outputs,
    ...(result.compensations
      ? {
          compensations: result.compensations.map(({ id, name, ok, ms, error }) => ({
            id,
            name,
            ok,
            ms,
            ...(error ? { error: { code: error.code, message: error.message } } : {}),
          })),
        }
      : {}),
  };
}

/**
 * A table of steps — id, server, tool, status, time, and the code of what went wrong — then, below it,
 * why each step that did not succeed failed, in full (a table row is cut to the terminal's width).
 */
export function renderTrace(steps: PlanStepResult[]): string {
  const table = formatTable(
    ["STEP", "SERVER", "TOOL", "STATUS", "TIME", "NOTE"],
    steps.map((step) => [
      step.id,
      step.server ?? "-",
      step.tool ?? step.name,
      step.status,
      step.status === "skipped" ? "-" : `${Math.round(step.ms)} ms`,
      step.error ? step.error.code : "",
    ]),
  );
  const reasons = steps.flatMap((step) =>
    step.error ? [`${step.id} (${step.name}): ${describeStepError(step.error)}`] : [],
  );
  return reasons.length ? `${table}\n\n${reasons.join("\n")}` : table;
}

/** What was undone after a failure (`onFailure: compensate`), one line each, latest step first. */
function renderCompensations(result: PlanResult): string {
  if (!result.compensations) return "";
  const lines = result.compensations.map(
    (c) =>
      `  ${c.id} (${c.name}) ${c.ok ? "undone" : `not undone: ${describeStepError(c.error ?? { code: "FAILED", message: "" })}`}`,
  );
  return `\n\ncompensated:\n${lines.join("\n")}`;
}

/** `key=value` pairs; a value that reads as JSON (a number, true, an object) is taken as such. */
function parseInputs(pairs: string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new CliError(`--input takes key=value (got "${pair}")`, EXIT_USAGE);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // plain text
    }
    input[pair.slice(0, at)] = value;
  }
  return input;
}
