import { Deadline } from "../abort.js";
import type { ToolResult } from "../calls/normalize.js";
import type { RequestInput, RequestOutcome } from "../calls/request.js";
import type { JsonSchema } from "../calls/validate.js";
import { SwitchyardError } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";
import {
  type CallRecord,
  elapsedMs,
  newId,
  type RecordedError,
  type RunRecord,
  type SwitchyardEvent,
} from "../telemetry/events.js";
import type { Redactor } from "../telemetry/redact.js";
import { RunSpans } from "../telemetry/tracer.js";
import { type PlanCheckpointer, type PlanResume, type PlanStepOutput, planHash } from "./checkpoint.js";
import { compensate, type PlanCompensation } from "./compensate.js";
import { ExpressionError, resolveValue } from "./expressions.js";
import { DEFAULT_PLAN_CONCURRENCY, DEFAULT_PLAN_TIMEOUT_MS, type Plan, type PlanStepSpec } from "./plan.js";
import { preflightPlan } from "./preflight.js";

export { preflightPlan } from "./preflight.js";

/**
 * What a plan needs of a Switchyard: look tools up (with their input schemas, to check a step's
 * arguments before anything runs), send each step through its request pipeline, and (optionally)
 * suggest names and report the run's own events to its observers.
 */
export interface PlanHost {
  describeTool(name: string): { server: string; tool: string; inputSchema?: JsonSchema } | undefined;
  /** One request through the host's pipeline (a Switchyard's `request`), which records it. */
  request(input: RequestInput): Promise<RequestOutcome>;
  /** Catalog names close to an unknown one, for "did you mean" (a Switchyard's `suggestTools`). */
  suggestTools?(name: string): readonly string[];
  /** Receives the run's own events for the host's observers (a Switchyard's `emit`). */
  emit?(event: SwitchyardEvent): void;
  /** Redacts the run's record and the events `onEvent` gets (a Switchyard's `redactor`). */
  readonly redactor?: Redactor;
}

/**
 * Why a step did not succeed: `TOOL_ERROR` (the tool answered `isError`; the message is its text),
 * `SKIPPED` (a step it depends on did not succeed, or the plan's deadline passed first),
 * `UNRESOLVED_REFERENCE` (its arguments read a value that is not there; nothing was sent), `TIMEOUT`
 * (the plan's or the step's deadline passed), or the code of the failed call.
 */
export type PlanStepError = RecordedError;

/** How one step ended. */
export interface PlanStepResult {
  id: string;
  /** The catalog name of the step's tool. */
  name: string;
  server?: string;
  tool?: string;
  status: "ok" | "failed" | "skipped";
  ok: boolean;
  /** A step completed by the run resumed (`resume`): not run again, its stored output used. */
  restored?: true;
  ms: number;
  error?: PlanStepError;
  result?: ToolResult;
}

/** How a plan ended: every step in plan order, and the plan's outputs. */
export interface PlanResult {
  /** The run's id: every event of the run carries it, and so do the host's call events. */
  runId: string;
  ok: boolean;
  steps: PlanStepResult[];
  outputs: Record<string, unknown>;
  /**
   * With `onFailure: compensate`, when the run failed: each completed step's compensation, in the order
   * they ran (latest completed step first). Absent when nothing was to be compensated.
   */
  compensations?: PlanCompensation[];
  /** The run as records carry it: `kind: "plan"`, outcome `ok` or `failed`, one call per step. */
  record: RunRecord;
}

/** What a plan run reports: the one event union (`run_started`, `call_started`, `call_finished`, `run_finished`). */
export type PlanEvent = SwitchyardEvent;

export interface RunPlanOptions {
  host: PlanHost;
  /** Values for the plan's inputs; declared defaults fill the rest. */
  input?: Record<string, unknown>;
  /** The whole plan's deadline; default: the plan's `timeoutMs`, else 120 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Every event of the run, in order; a step's call events carry the step's id as `id`. */
  onEvent?: (event: PlanEvent) => void;
  /** Who the run is for; default: the host's identity. A step its policy refuses fails with `POLICY_DENIED`. */
  identity?: Identity;
  /** Steps that may run at once; default: the plan's `concurrency`, else `DEFAULT_PLAN_CONCURRENCY`. */
  concurrency?: number;
  /** Checkpoint the run step by step (the run's plan and input, then each completed step's output). */
  checkpoint?: PlanCheckpointer;
  /** Continue a run: its id is kept, its completed steps are not run again and their outputs are read. */
  resume?: PlanResume;
}

/** A counting semaphore: `acquire` resolves with the function that gives the slot back. */
function slots(count: number): () => Promise<() => void> {
  let free = count;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  };
  return () => {
    if (free > 0) {
      free -= 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => waiting.push(() => resolve(release)));
  };
}

/** What a step's later steps can read as `steps.<id>.…`. */
type StepScope = PlanStepOutput;

/**
 * Run a plan: each step starts as soon as the steps it depends on have succeeded, so independent steps
 * run in parallel; a failed step stops its dependants (reported as skipped, with the reason); the plan
 * has one deadline, and steps still running when it passes are cancelled.
 * @throws SwitchyardError before anything runs (see {@link preflightPlan}): `CONFIG_INVALID` for an
 *   unknown or missing input, `TOOL_NOT_FOUND` for an unknown tool, `INVALID_ARGUMENTS` for arguments
 *   known before the run that do not fit the tool's input schema.
 */
export async function runPlan(plan: Plan, options: RunPlanOptions): Promise<PlanResult> {
  const input = preflightPlan(plan, options);
  const concurrency = options.concurrency ?? plan.concurrency ?? DEFAULT_PLAN_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new SwitchyardError(
      "INVALID_INPUT",
      `runPlan: concurrency must be a whole number of steps, at least 1 (got ${concurrency})`,
    );
  const runId = options.resume?.runId ?? newId("run");
  const startedAt = new Date().toISOString();
  const runStarted = performance.now();
  const timeoutMs = options.timeoutMs ?? plan.timeoutMs ?? DEFAULT_PLAN_TIMEOUT_MS;
  const deadline = new Deadline(timeoutMs);
  const signal = deadline.signalWith(options.signal);
  /** `work`, and the deadline's timer released should it throw (a checkpoint the store refused): a
   * run that fails leaves nothing that keeps the process alive. */
  const orRelease = <T>(work: Promise<T>): Promise<T> =>
    work.catch((error: unknown) => {
      deadline.dispose();
      throw error;
    });
  const scope = { input, steps: {} as Record<string, StepScope> };
  /** Ids of the steps that succeeded, in the order they did (what `onFailure: compensate` undoes). */
  const completed: string[] = [];
  const restored = new Set<string>();
  for (const { id, output } of options.resume?.completed ?? []) {
    if (!plan.steps.some((step) => step.id === id)) continue;
    scope.steps[id] = output;
    completed.push(id);
    restored.add(id);
  }
  const { checkpoint } = options;
  if (checkpoint && !options.resume) await orRelease(checkpoint.started(runId, planHash(plan), input));
  const { host } = options;
  const redactor = host.redactor;
  const spans = new RunSpans({ kind: "plan", runId, ...(plan.name ? { name: plan.name } : {}) });
  /** The run's own events, to `onEvent` and the host's observers (its steps' are the pipeline's). */
  const emit = (event: PlanEvent) => {
    if (options.onEvent) options.onEvent(redactor ? redactor.event(event) : event);
    host.emit?.(event);
  };
  emit({ type: "run_started", runId, kind: "plan", time: startedAt, input: JSON.stringify(input) });

  /** One step through the pipeline: a step that cannot run is refused there, with why, and recorded. */
  const execute = async (step: PlanStepSpec, cannot?: RecordedError): Promise<PlanStepResult> => {
    let args: unknown = step.args ?? {};
    let refusal = cannot;
    if (!refusal) {
      try {
        args = resolveValue(step.args ?? {}, scope);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        refusal = { code: "UNRESOLVED_REFERENCE", message: error.message };
      }
    }
    const stepLimitMs = step.timeoutMs ?? Number.POSITIVE_INFINITY;
    const task = refusal ? undefined : options.resume?.tasks?.find((cut) => cut.id === step.id);
    const outcome = await host.request({
      kind: "tool",
      name: step.tool,
      arguments: args,
      callId: step.id,
      runId,
      timeoutMs: Math.max(1, Math.min(stepLimitMs, deadline.left())),
      ...(options.identity ? { identity: options.identity } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(task ? { resumeTask: { taskId: task.taskId, server: task.server } } : {}),
      // A step refused here is recorded as such, not as cancelled: it never was to run.
      ...(refusal ? { check: () => refusal } : options.signal ? { signal: options.signal } : {}),
    });
    const { record } = outcome;
    const base = {
      id: step.id,
      name: step.tool,
      ...(record.server !== undefined ? { server: record.server } : {}),
      ...(record.tool !== undefined ? { tool: record.tool } : {}),
      ms: record.ms,
    };
    if (outcome.ok) {
      const answer = outcome.result as ToolResult;
      scope.steps[step.id] = {
        text: answer.text,
        structured: answer.structuredContent,
        content: answer.content,
        isError: answer.isError,
      };
      if (answer.isError)
        return { ...base, status: "failed", ok: false, error: record.error!, result: answer };
      completed.push(step.id);
      // Kept as a call's result is recorded: through the host's redactor (a resume reads it so).
      const output = scope.steps[step.id]!;
      await checkpoint?.completed(
        runId,
        step.id,
        completed.length,
        redactor ? redactor.value(output) : output,
      );
      return { ...base, status: "ok", ok: true, result: answer };
    }
    const error = record.error ?? { code: outcome.error.code, message: outcome.error.message };
    if (refusal?.code === "SKIPPED") return { ...base, ms: 0, status: "skipped", ok: false, error };
    // The deadline that passed was the plan's, or the step's own: say which.
    const timedOut = error.code === "TIMEOUT" && !options.signal?.aborted;
    const why = !timedOut
      ? error
      : deadline.passed || deadline.left() < stepLimitMs
        ? { code: "TIMEOUT", message: `the plan did not finish within ${timeoutMs} ms` }
        : { code: "TIMEOUT", message: `step ${step.id} did not finish within ${step.timeoutMs} ms` };
    return { ...base, status: "failed", ok: false, error: why };
  };

  const acquire = slots(concurrency);
  const results = new Map<string, Promise<PlanStepResult>>();
  for (const step of topologicalOrder(plan)) {
    const needs = [...(plan.dependencies.get(step.id) ?? [])];
    results.set(
      step.id,
      (async () => {
        if (restored.has(step.id))
          return { id: step.id, name: step.tool, status: "ok", ok: true, ms: 0, restored: true } as const;
        const before = await Promise.all(needs.map((id) => results.get(id)!));
        const blocker = before.find((result) => !result.ok);
        const timedOut = () => (signal.aborted ? `the plan timed out after ${timeoutMs} ms` : undefined);
        let reason = blocker
          ? `step ${blocker.id} ${blocker.status === "skipped" ? "was skipped" : "failed"}`
          : timedOut();
        if (!reason) {
          // A ready step waits for a slot; one that gets it after the deadline does not start.
          const release = await acquire();
          try {
            if (!signal.aborted) return await spans.within(() => execute(step));
          } finally {
            release();
          }
          reason = timedOut() ?? "the plan was cancelled";
        }
        return execute(step, { code: "SKIPPED", message: reason });
      })(),
    );
  }
  const steps = await orRelease(Promise.all(plan.steps.map((step) => results.get(step.id)!)));
  deadline.dispose();
  const ok = steps.every((step) => step.ok);
  const compensations =
    !ok && plan.onFailure === "compensate"
      ? await compensate(plan, completed, {
          host,
          runId,
          scope,
          ...(options.identity ? { identity: options.identity } : {}),
          ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        })
      : [];
  const firstFailure = steps.find((step) => step.status === "failed");
  const undone = compensations.length
    ? `; compensated: ${compensations.map((c) => (c.ok ? c.id : `${c.id} (failed: ${c.error?.message})`)).join(", ")}`
    : "";
  const record: RunRecord = {
    id: runId,
    kind: "plan",
    startedAt,
    ms: elapsedMs(runStarted),
    outcome: ok ? "ok" : "failed",
    steps: [],
    calls: [
      ...steps.map((step) => callRecord(runId, step)),
      ...compensations.map((c) =>
        callRecord(runId, { ...c, id: `${c.id}.compensate`, status: c.ok ? "ok" : "failed" }),
      ),
    ],
    ...(firstFailure?.error
      ? {
          error: {
            code: firstFailure.error.code,
            message: `step ${firstFailure.id}: ${firstFailure.error.message}${undone}`,
          },
        }
      : {}),
  };
  emit({ type: "run_finished", runId, record });
  spans.end(record.outcome, record.error);
  return {
    runId,
    ok,
    steps,
    outputs: planOutputs(plan, scope),
    ...(compensations.length ? { compensations } : {}),
    record: redactor ? redactor.value(record) : record,
  };
}

/** A step as a call record: the step's id is the call's. */
function callRecord(runId: string, step: PlanStepResult): CallRecord {
  return {
    id: step.id,
    runId,
    name: step.name,
    ...(step.server !== undefined ? { server: step.server } : {}),
    ...(step.tool !== undefined ? { tool: step.tool } : {}),
    ok: step.ok,
    ms: step.ms,
    ...(step.error ? { error: step.error } : {}),
  };
}

/** One line for a step that did not succeed: `skipped: …`, `the tool reported an error: …`, or `CODE: …`. */
export function describeStepError(error: PlanStepError): string {
  if (error.code === "SKIPPED") return `skipped: ${error.message}`;
  if (error.code === "TOOL_ERROR") return `the tool reported an error: ${error.message}`;
  return `${error.code}: ${error.message}`;
}

/** Outputs whose steps succeeded; an output that cannot be read (its step failed) is null. */
function planOutputs(plan: Plan, scope: Record<string, unknown>): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const [name, expression] of Object.entries(plan.outputs ?? {})) {
    try {
      outputs[name] = resolveValue(expression, scope);
    } catch {
      outputs[name] = null;
    }
  }
  return outputs;
}

function topologicalOrder(plan: Plan): PlanStepSpec[] {
  const byId = new Map(plan.steps.map((step) => [step.id, step]));
  const ordered: PlanStepSpec[] = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const need of plan.dependencies.get(id) ?? []) visit(need);
    ordered.push(byId.get(id)!);
  };
  for (const step of plan.steps) visit(step.id);
  return ordered;
}
