import type { Store, Switchyard } from "../../internal.js";
import {
  describeStepError,
  loadPlanFile,
  type Plan,
  type PlanCheckpointer,
  type PlanResult,
  type PlanResume,
  type PlanStepResult,
  planHash,
  runPlan,
} from "../../plan/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { formatTable } from "../table.js";

/**
 * `switchyard run <plan.yaml> [--input key=value ...] [--resume <runId>]`: run a declared plan over the
 * configured fleet, checkpointed step by step in the store; `--resume` continues a failed run.
 */
export async function runCommand(
  ctx: CommandContext,
  file: string,
  flags: { input?: string[]; resume?: string },
): Promise<number> {
  let input = parseInputs(flags.input ?? []);
  const plan = loadPlanFile(file);
  let resume: PlanResume | undefined;
  if (flags.resume !== undefined) {
    if (flags.input?.length)
      throw new CliError("--resume continues with the run's own input: leave out --input", EXIT_USAGE);
    const found = await resumable(await ctx.requireStore(), flags.resume, plan, file);
    resume = found.resume;
    input = found.input;
  }
  return executePlan(ctx, await ctx.connect(), plan, input, resume);
}

/** Run a checked plan on a connected fleet (checkpointed in the store), print its trace, give the exit code. */
export async function executePlan(
  ctx: CommandContext,
  yard: Switchyard,
  plan: Plan,
  input: Record<string, unknown>,
  resume?: PlanResume,
): Promise<number> {
  const store = await ctx.store().catch(() => undefined);
  const result = await runPlan(plan, {
    host: yard,
    input,
    ...(store ? { checkpoint: checkpointIn(store, ctx) } : {}),
    ...(resume ? { resume } : {}),
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
    steps: result.steps.map(({ id, name, ok, ms, error, restored }) => ({
      id,
      name,
      ok,
      ms,
      ...(error ? { error: { code: error.code, message: error.message } } : {}),
      ...(restored ? { restored } : {}),
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
      step.status === "skipped" ? "-" : step.restored ? "restored" : `${Math.round(step.ms)} ms`,
      step.error ? step.error.code : "",
    ]),
  );
  const reasons = steps.flatMap((step) =>
    step.error ? [`${step.id} (${step.name}): ${describeStepError(step.error)}`] : [],
  );
  return reasons.length ? `${table}\n\n${reasons.join("\n")}` : table;
}

/**
 * A plan run's checkpoints, in the store. A checkpoint that cannot be written (a full disk) does not
 * fail the run — it only makes it not resumable from there: said once, and no more are tried.
 */
function checkpointIn(store: Store, ctx: CommandContext): PlanCheckpointer {
  let broken = false;
  const save = async (runId: string, what: string, write: () => Promise<void>) => {
    if (broken) return;
    try {
      await write();
    } catch (error) {
      broken = true;
      ctx.out.note(
        `warning: plan run ${runId} could not be checkpointed at ${what} (${error instanceof Error ? error.message : String(error)}); it runs on, but --resume cannot continue it from there`,
      );
    }
  };
  return {
    started: (runId, hash, input) =>
      save(runId, "its start", () => store.savePlanRun(runId, hash, JSON.stringify(input))),
    completed: (runId, stepId, seq, output) =>
      save(runId, `step ${stepId}`, () => store.savePlanStep(runId, stepId, seq, JSON.stringify(output))),
  };
}

/**
 * The stored run to continue, and its input. Refused (exit 2): a run not checkpointed in this store, one
 * that finished ok or is still running, or one whose plan was not this one (its hash differs).
 */
async function resumable(store: Store, runId: string, plan: Plan, file: string) {
  const saved = await store.planCheckpoint(runId);
  if (!saved)
    throw new CliError(
      `no plan run ${runId} is recorded in ${store.location}: see switchyard runs for the runs there`,
      EXIT_USAGE,
    );
  const stored = await store.run(runId);
  const outcome = stored?.outcome;
  if (outcome === "ok")
    throw new CliError(`run ${runId} finished ok: there is nothing to resume`, EXIT_USAGE);
  if (outcome === "running")
    throw new CliError(`run ${runId} is still running in another process: wait for it to end`, EXIT_USAGE);
  if (saved.planHash !== planHash(plan))
    throw new CliError(
      `${file} is not the plan run ${runId} ran (it changed since): run it anew, without --resume`,
      EXIT_USAGE,
    );
  const completed = saved.steps.map(({ id, output }) => ({ id, output: JSON.parse(output) }));
  const done = new Set(completed.map((step) => step.id));
  // A step's call that had become a task and never ended (the process was killed): its task is picked
  // up on the server that ran it, not called again.
  const tasks = (stored?.calls ?? []).flatMap((call) =>
    call.taskId !== undefined && call.ok === undefined && call.server !== undefined && !done.has(call.id)
      ? [{ id: call.id, taskId: call.taskId, server: call.servedBy ?? call.server }]
      : [],
  );
  return {
    resume: { runId, completed, ...(tasks.length ? { tasks } : {}) },
    input: JSON.parse(saved.input) as Record<string, unknown>,
  };
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
export function parseInputs(pairs: string[]): Record<string, unknown> {
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
