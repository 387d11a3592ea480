import type { ToolResult } from "../calls/normalize.js";
import type { RequestInput } from "../calls/request.js";
import type { Identity } from "../telemetry/audit.js";
import type { RecordedError, SwitchyardEvent } from "../telemetry/events.js";
import { ExpressionError, resolveValue } from "./expressions.js";
import type { Plan } from "./plan.js";
import type { PlanHost } from "./run-plan.js";

/** How one step's compensation (`compensate:`) ended; `id` is the step's. */
export interface PlanCompensation {
  id: string;
  /** The catalog name of the compensation's tool. */
  name: string;
  ok: boolean;
  ms: number;
  error?: RecordedError;
}

/**
 * Undo completed steps after a failure (`onFailure: compensate`): the `compensate:` call of each step in
 * `completed`, latest first, each through the host's pipeline as a call of the run (its id
 * `<step>.compensate`), so it is checked, recorded and audited like any call. Its arguments read the
 * plan's input and the steps' results. A compensation that fails is reported, and the rest still run;
 * they run after the plan's deadline too (undoing is what the failure calls for).
 */
export async function compensate(
  plan: Plan,
  completed: readonly string[],
  context: {
    host: PlanHost;
    runId: string;
    scope: Record<string, unknown>;
    identity?: Identity;
    onEvent?: (event: SwitchyardEvent) => void;
  },
): Promise<PlanCompensation[]> {
  const byId = new Map(plan.steps.map((step) => [step.id, step]));
  const done: PlanCompensation[] = [];
  for (const id of [...completed].reverse()) {
    const spec = byId.get(id)?.compensate;
    if (!spec) continue;
    let args: unknown = spec.args ?? {};
    let refusal: RecordedError | undefined;
    try {
      args = resolveValue(spec.args ?? {}, context.scope);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      refusal = { code: "UNRESOLVED_REFERENCE", message: error.message };
    }
    const request: RequestInput = {
      kind: "tool",
      name: spec.tool,
      arguments: args,
      callId: `${id}.compensate`,
      runId: context.runId,
      ...(context.identity ? { identity: context.identity } : {}),
      ...(context.onEvent ? { onEvent: context.onEvent } : {}),
      ...(refusal ? { check: () => refusal } : {}),
    };
    const outcome = await context.host.request(request);
    const { record } = outcome;
    const answer = outcome.ok ? (outcome.result as ToolResult) : undefined;
    const ok = outcome.ok && !answer?.isError;
    const error = ok
      ? undefined
      : (record.error ??
        (outcome.ok ? undefined : { code: outcome.error.code, message: outcome.error.message }));
    done.push({ id, name: spec.tool, ok, ms: record.ms, ...(error ? { error } : {}) });
  }
  return done;
}
