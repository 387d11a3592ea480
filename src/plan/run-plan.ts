import type { ToolResult } from "../../calls/normalize.js";
import { isSwitchyardError, messageOf, SwitchyardError } from "../../errors.js";
import { elapsedMs } from "../events.js";
import type { ToolHost } from "../run-call.js";
import { ExpressionError, resolveValue } from "./expressions.js";
import { DEFAULT_PLAN_TIMEOUT_MS, type Plan, type PlanStepSpec } from "./plan.js";

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
  error?: string;
  result?: ToolResult;
}

/** How a plan ended: every step in plan order, and the plan's outputs. */
export interface PlanResult {
  ok: boolean;
  steps: PlanStepResult[];
  outputs: Record<string, unknown>;
}

/** Progress of a plan run. */
export type PlanEvent =
  | { type: "step_started"; id: string; name: string }
  | ({ type: "step_finished" } & PlanStepResult);

export interface RunPlanOptions {
  host: ToolHost;
  /** Values for the plan's inputs; declared defaults fill the rest. */
  input?: Record<string, unknown>;
  /** The whole plan's deadline; default: the plan's `timeoutMs`, else 120 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvent?: (event: PlanEvent) => void;
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
 * @throws SwitchyardError `CONFIG_INVALID` for a missing input, `TOOL_NOT_FOUND` for an unknown tool
 *   (before anything runs).
 */
export async function runPlan(plan: Plan, options: RunPlanOptions): Promise<PlanResult> {
  const input = planInput(plan, options.input ?? {});
  for (const step of plan.steps) {
    if (!options.host.describeTool(step.tool)) {
      throw new SwitchyardError(
        "TOOL_NOT_FOUND",
        `step ${step.id} uses tool ${step.tool}, which is not in the catalog`,
        {
          tool: step.tool,
        },
      );
    }
  }
  const timeoutMs = options.timeoutMs ?? plan.timeoutMs ?? DEFAULT_PLAN_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const scope = { input, steps: {} as Record<string, StepScope> };
  const emit = (event: PlanEvent) => options.onEvent?.(event);

  const execute = async (step: PlanStepSpec): Promise<PlanStepResult> => {
    const entry = options.host.describeTool(step.tool)!;
    const started = performance.now();
    const base = { id: step.id, name: step.tool, server: entry.server, tool: entry.tool };
    const failed = (error: string): PlanStepResult => ({
      ...base,
      status: "failed",
      ok: false,
      ms: elapsedMs(started),
      error,
    });
    emit({ type: "step_started", id: step.id, name: step.tool });
    let args: unknown;
    try {
      args = resolveValue(step.args ?? {}, scope);
    } catch (error) {
      if (error instanceof ExpressionError) return failed(error.message);
      throw error;
    }
    const stepSignal = step.timeoutMs
      ? AbortSignal.any([signal, AbortSignal.timeout(step.timeoutMs)])
      : signal;
    try {
      const result = await options.host.callTool(step.tool, args, { signal: stepSignal });
      scope.steps[step.id] = {
        text: result.text,
        structured: result.structuredContent,
        content: result.content,
        isError: result.isError,
      };
      if (result.isError) return { ...failed(`the tool reported an error: ${result.text}`), result };
      return { ...base, status: "ok", ok: true, ms: elapsedMs(started), result };
    } catch (error) {
      if (deadline.aborted) return failed(`TIMEOUT: the plan did not finish within ${timeoutMs} ms`);
      if (stepSignal.aborted && !signal.aborted)
        return failed(`TIMEOUT: step ${step.id} did not finish within ${step.timeoutMs} ms`);
      return failed(isSwitchyardError(error) ? `${error.code}: ${error.message}` : messageOf(error));
    }
  };

  const results = new Map<string, Promise<PlanStepResult>>();
  for (const step of topologicalOrder(plan)) {
    const needs = [...(plan.dependencies.get(step.id) ?? [])];
    results.set(
      step.id,
      (async () => {
        const before = await Promise.all(needs.map((id) => results.get(id)!));
        const blocker = before.find((result) => !result.ok);
        const reason = blocker
          ? `skipped: step ${blocker.id} ${blocker.status === "skipped" ? "was skipped" : "failed"}`
          : signal.aborted
            ? `skipped: the plan timed out after ${timeoutMs} ms`
            : undefined;
        const result = reason
          ? ({ id: step.id, name: step.tool, status: "skipped", ok: false, ms: 0, error: reason } as const)
          : await execute(step);
        emit({ type: "step_finished", ...result });
        return result;
      })(),
    );
  }
  const steps = await Promise.all(plan.steps.map((step) => results.get(step.id)!));
  return { ok: steps.every((step) => step.ok), steps, outputs: planOutputs(plan, scope) };
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
