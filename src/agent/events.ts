/** Why a run ended. */
export type StopReason = "answer" | "max_steps" | "error";

/** One tool call of a run, as recorded. */
export interface CallRecord {
  /** The model's `tool_call_id`. */
  id: string;
  /** The catalog name the model used. */
  name: string;
  server?: string;
  tool?: string;
  ok: boolean;
  ms: number;
  /** Why it was not ok: a Switchyard error code or `TOOL_ERROR` (the tool answered `isError`). */
  error?: string;
}

/** What happens during a run, in order; for progress displays, logs and tests. */
export type AgentEvent =
  | { type: "step_started"; step: number; tools: number }
  | { type: "model_answered"; step: number; ms: number; toolCalls: number; text: string | null }
  | { type: "call_started"; step: number; id: string; name: string; arguments: string }
  | ({ type: "call_finished"; step: number } & CallRecord)
  | { type: "answer"; step: number; text: string }
  | { type: "stopped"; step: number; reason: StopReason; message?: string };

/** Milliseconds since `started` (a `performance.now()` reading), to a hundredth. */
export function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
