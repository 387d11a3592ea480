import type { ToolResult } from "../calls/normalize.js";
import { type JsonSchema, validateArguments } from "../calls/validate.js";
import { editDistance, isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";
import {
  type CallRecord,
  elapsedMs,
  newId,
  type RecordedError,
  type RunRecord,
  recordedError,
  type SwitchyardEvent,
} from "../telemetry/events.js";
import type { Redactor } from "../telemetry/redact.js";
import { RunSpans } from "../telemetry/tracer.js";
import { ExpressionError, findPaths, resolveValue } from "./expressions.js";
import { DEFAULT_PLAN_CONCURRENCY, DEFAULT_PLAN_TIMEOUT_MS, type Plan, type PlanStepSpec } from "./plan.js";

/** What a plan run tells the host about each call: which run, and the step's id as the call's id. */
export interface PlanCallOptions {
  signal?: AbortSignal;
  runId?: string;
  callId?: string;
  /** Who the run is for: the host's policy decides each call for it. */
  identity?: Identity;
}

/**
 * What a plan needs of a Switchyard: look tools up (with their input schemas, to check a step's
 * arguments before anything runs), call them, and (optionally) suggest names and report to its observers.
 */
export interface PlanHost {
  describeTool(name: string): { server: string; tool: string; inputSchema?: JsonSchema } | undefined;
  callTool(name: string, args: unknown, options?: PlanCallOptions): Promise<ToolResult>;
  /** Catalog names close to an unknown one, for "did you mean" (a Switchyard's `suggestTools`). */
  suggestTools?(name: string): readonly string[];
  /**
   * Receives the run's events for the host's observers (a Switchyard's `emit`). Call events of steps
   * that reached `callTool` are the host's own to report; the plan sends it the rest.
   */
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
interface StepScope {
  text: string;
  structured: unknown;
  content: unknown;
  isError: boolean;
}

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
  const runId = newId("run");
  const startedAt = new Date().toISOString();
  const runStarted = performance.now();
  const timeoutMs = options.timeoutMs ?? plan.timeoutMs ?? DEFAULT_PLAN_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const scope = { input, steps: {} as Record<string, StepScope> };
  const { host } = options;
  const redactor = host.redactor;
  const spans = new RunSpans({ kind: "plan", runId, ...(plan.name ? { name: plan.name } : {}) });
  /** Report to `onEvent` and, unless `ownEventsOnly`, to the host's observers. */
  const emit = (event: PlanEvent, ownEventsOnly = false) => {
    if (options.onEvent) options.onEvent(redactor ? redactor.event(event) : event);
    if (!ownEventsOnly) host.emit?.(event);
  };
  const finished = (result: PlanStepResult, sent: boolean) =>
    emit({ type: "call_finished", ...callRecord(runId, result) }, sent);
  emit({ type: "run_started", runId, kind: "plan", time: startedAt, input: JSON.stringify(input) });

  const execute = async (step: PlanStepSpec): Promise<PlanStepResult> => {
    const entry = host.describeTool(step.tool)!;
    const started = performance.now();
    const base = { id: step.id, name: step.tool, server: entry.server, tool: entry.tool };
    const failed = (error: RecordedError): PlanStepResult => ({
      ...base,
      status: "failed",
      ok: false,
      ms: elapsedMs(started),
      error,
    });
    const callStarted = (args: unknown) =>
      emit({ type: "call_started", runId, ...base, arguments: JSON.stringify(args) ?? "null" }, true);
    let args: unknown;
    try {
      args = resolveValue(step.args ?? {}, scope);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      // Refused here, before the host: the host hears of it from the plan.
      callStarted(step.args ?? {});
      const result = failed({ code: "UNRESOLVED_REFERENCE", message: error.message });
      finished(result, false);
      return result;
    }
    const stepSignal = step.timeoutMs
      ? AbortSignal.any([signal, AbortSignal.timeout(step.timeoutMs)])
      : signal;
    callStarted(args);
    let result: PlanStepResult;
    try {
      const answer = await host.callTool(step.tool, args, {
        signal: stepSignal,
        runId,
        callId: step.id,
        ...(options.identity ? { identity: options.identity } : {}),
      });
      scope.steps[step.id] = {
        text: answer.text,
        structured: answer.structuredContent,
        content: answer.content,
        isError: answer.isError,
      };
      result = answer.isError
        ? { ...failed({ code: "TOOL_ERROR", message: answer.text }), result: answer }
        : { ...base, status: "ok", ok: true, ms: elapsedMs(started), result: answer };
    } catch (error) {
      if (deadline.aborted)
        result = failed({ code: "TIMEOUT", message: `the plan did not finish within ${timeoutMs} ms` });
      else if (stepSignal.aborted && !signal.aborted)
        result = failed({
          code: "TIMEOUT",
          message: `step ${step.id} did not finish within ${step.timeoutMs} ms`,
        });
      else
        result = failed(
          isSwitchyardError(error) ? recordedError(error) : { code: "ERROR", message: messageOf(error) },
        );
    }
    finished(result, true);
    return result;
  };

  const acquire = slots(concurrency);
  const results = new Map<string, Promise<PlanStepResult>>();
  for (const step of topologicalOrder(plan)) {
    const needs = [...(plan.dependencies.get(step.id) ?? [])];
    results.set(
      step.id,
      (async () => {
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
        const entry = host.describeTool(step.tool);
        const skipped: PlanStepResult = {
          id: step.id,
          name: step.tool,
          ...(entry ? { server: entry.server, tool: entry.tool } : {}),
          status: "skipped",
          ok: false,
          ms: 0,
          error: { code: "SKIPPED", message: reason },
        };
        finished(skipped, false);
        return skipped;
      })(),
    );
  }
  const steps = await Promise.all(plan.steps.map((step) => results.get(step.id)!));
  const ok = steps.every((step) => step.ok);
  const firstFailure = steps.find((step) => step.status === "failed");
  const record: RunRecord = {
    id: runId,
    kind: "plan",
    startedAt,
    ms: elapsedMs(runStarted),
    outcome: ok ? "ok" : "failed",
    steps: [],
    calls: steps.map((step) => callRecord(runId, step)),
    ...(firstFailure?.error
      ? {
          error: {
            code: firstFailure.error.code,
            message: `step ${firstFailure.id}: ${firstFailure.error.message}`,
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

/**
 * Check a plan against a host and its input before anything runs, and return the input with the plan's
 * defaults filled in. Refused, each with every problem of its kind:
 * - an input the plan does not take (`CONFIG_INVALID`, with the plan's inputs and "did you mean"); the
 *   inputs a plan takes are the ones it declares, or, when it declares none, the ones it reads;
 * - a missing input without a default (`CONFIG_INVALID`);
 * - a tool that is not in the catalog (`TOOL_NOT_FOUND`, with the host's suggestions);
 * - arguments that are known before the run (literals, and `{{input.…}}` values) and do not fit the
 *   tool's input schema, checked as the call pipeline checks them (`INVALID_ARGUMENTS`, naming the step,
 *   the tool and the problems). An argument that reads an earlier step is checked when the step runs.
 * @throws SwitchyardError as above.
 */
export function preflightPlan(
  plan: Plan,
  options: Pick<RunPlanOptions, "host" | "input">,
): Record<string, unknown> {
  const given = options.input ?? {};
  checkInputNames(plan, given);
  const input = planInput(plan, given);
  const { host } = options;
  const unknown = plan.steps.filter((step) => !host.describeTool(step.tool));
  if (unknown.length > 0) {
    const lines = unknown.map((step) => {
      const near = host.suggestTools?.(step.tool) ?? [];
      const hint = near.length ? `did you mean ${near.join(", ")}?` : "list the tools to see what there is";
      return `step ${step.id} uses tool ${step.tool}, which is not in the catalog; ${hint}`;
    });
    throw new SwitchyardError("TOOL_NOT_FOUND", lines.join(". "), { tool: unknown[0]!.tool });
  }
  const bad: string[] = [];
  for (const step of plan.steps) {
    const entry = host.describeTool(step.tool)!;
    if (!entry.inputSchema) continue;
    const problems = knownArgumentProblems(step, entry.inputSchema, input);
    if (problems.length > 0)
      bad.push(
        `step ${step.id} (tool ${step.tool}, ${entry.tool} on server ${entry.server}): ${problems.join("; ")}`,
      );
  }
  if (bad.length > 0) {
    throw new SwitchyardError(
      "INVALID_ARGUMENTS",
      `${bad.join(". ")}. Nothing was run: fix the plan's arguments or the --input values`,
      { delivery: "final", serverFault: false },
    );
  }
  return input;
}

/**
 * What is wrong with the arguments of a step that are known before the run, by the tool's input schema
 * (the pipeline's own check). Arguments that read an earlier step are accepted as they stand: their
 * properties take any value here, and are checked when the step runs.
 */
function knownArgumentProblems(
  step: PlanStepSpec,
  schema: JsonSchema,
  input: Record<string, unknown>,
): string[] {
  const args: Record<string, unknown> = {};
  const later = new Set<string>();
  const problems: string[] = [];
  for (const [key, value] of Object.entries(step.args ?? {})) {
    if (findPaths(value).some((path) => path.keys[0] === "steps")) {
      args[key] = value;
      later.add(key);
      continue;
    }
    try {
      args[key] = resolveValue(value, { input, steps: {} });
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      problems.push(`"${key}": ${error.message}`);
      args[key] = value;
      later.add(key);
    }
  }
  const properties = schema.properties;
  const checked: JsonSchema =
    later.size > 0 && typeof properties === "object" && properties !== null
      ? {
          ...schema,
          properties: {
            ...properties,
            ...Object.fromEntries([...later].filter((key) => key in properties).map((key) => [key, {}])),
          },
        }
      : schema;
  const result = validateArguments(checked, args);
  return result.ok ? problems : [...problems, ...result.problems];
}

/** Refuse input names the plan does not take, listing the ones it does (and the nearest). */
function checkInputNames(plan: Plan, given: Record<string, unknown>): void {
  const declared = plan.input ? Object.keys(plan.input) : undefined;
  const taken =
    declared ??
    [
      ...new Set(
        [...plan.steps.map((step) => step.args ?? {}), plan.outputs ?? {}]
          .flatMap((value) => findPaths(value))
          .filter((path) => path.keys[0] === "input" && typeof path.keys[1] === "string")
          .map((path) => path.keys[1] as string),
      ),
    ].sort();
  const unknown = Object.keys(given).filter((name) => !taken.includes(name));
  if (unknown.length === 0) return;
  const described = taken.map((name) => {
    const about = plan.input?.[name]?.description;
    return about ? `${name} (${about})` : name;
  });
  const lines = unknown.map((name) => {
    const near = nearestName(name, taken);
    return `the plan takes no input "${name}"${near ? ` (did you mean "${near}"?)` : ""}`;
  });
  throw new SwitchyardError(
    "CONFIG_INVALID",
    `${lines.join("; ")}; ${taken.length ? `its inputs: ${described.join(", ")}` : "it takes no inputs"}`,
  );
}

/** The candidate closest to `name` by edit distance, when it is close enough to be a typo. */
function nearestName(name: string, candidates: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(name.length / 3)) ? best.name : undefined;
}

function planInput(plan: Plan, given: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = { ...given };
  for (const [name, spec] of Object.entries(plan.input ?? {})) {
    if (input[name] !== undefined) continue;
    if (spec?.default === undefined) {
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `the plan needs input "${name}"${spec?.description ? ` (${spec.description})` : ""}: pass --input ${name}=<value>`,
      );
    }
    input[name] = spec.default;
  }
  return input;
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
