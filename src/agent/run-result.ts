import { type Compaction, summaryMessage } from "../context/compact.js";
import type { ResultHandles } from "../context/handles.js";
import type { ChatMessage } from "../models/model.js";
import { recordedError } from "../telemetry/events.js";
import type { Redactor } from "../telemetry/redact.js";
import type { AgentResult } from "./agent.js";
import {
  type CallRecord,
  elapsedMs,
  type RecordedError,
  type RunRecord,
  type StepRecord,
  type StopReason,
} from "./events.js";

/** How a run stopped: why, the answer (or what is said instead), and the error behind it, if any. */
export interface RunStop {
  reason: StopReason;
  answer: string;
  error?: string;
  /** The failure behind `error`: it gives the record its code. */
  cause?: unknown;
}

/** What a run's end is made of. */
export interface RunEnd {
  runId: string;
  startedAt: string;
  /** `performance.now()` at the start. */
  started: number;
  stop: RunStop;
  steps: StepRecord[];
  calls: CallRecord[];
  /** Model turns taken. */
  stepCount: number;
  messages: ChatMessage[];
  compaction: Compaction;
  handles: ResultHandles;
  redactor: Redactor | undefined;
}

/**
 * A run's record (`run_finished` carries it) and its result: the answer, the working record, the
 * history to continue from (a summary message and what follows it, once the run compacted), redacted
 * where it leaves the run.
 */
export function runResult(end: RunEnd): { result: AgentResult; record: RunRecord } {
  const { stop, redactor, compaction, messages } = end;
  const tokens = sumTokens(end.steps);
  const error: RecordedError | undefined =
    stop.cause !== undefined
      ? recordedError(stop.cause)
      : stop.error === undefined
        ? undefined
        : { code: stopCode(stop.reason), message: stop.error };
  const record: RunRecord = {
    id: end.runId,
    kind: "agent",
    startedAt: end.startedAt,
    ms: elapsedMs(end.started),
    outcome: stop.reason,
    steps: end.steps,
    calls: end.calls,
    ...(tokens ? { tokens } : {}),
    ...(error ? { error } : {}),
  };
  const result: AgentResult = {
    runId: end.runId,
    answer: stop.answer,
    stopReason: stop.reason,
    steps: end.stepCount,
    calls: redactor ? redactor.value(end.calls) : end.calls,
    messages,
    history: compaction.summary
      ? [summaryMessage(compaction.summary), ...messages.slice(compaction.upTo)]
      : messages,
    handles: end.handles,
    ...(stop.error ? { error: stop.error } : {}),
    record: redactor ? redactor.value(record) : record,
  };
  return { result, record };
}

/** What a cancelled run says: that it was cancelled, and by what when the signal's reason tells. */
export function cancelMessage(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  const why =
    typeof reason === "string"
      ? reason
      : reason instanceof Error && reason.message && reason.message !== "This operation was aborted"
        ? reason.message
        : undefined;
  return `The run was cancelled${why ? `: ${why}` : ""}.`;
}

/** The code a run record's error carries for a stop reason. */
function stopCode(reason: StopReason): string {
  switch (reason) {
    case "max_steps":
      return "MAX_STEPS";
    case "error":
      return "RUN_FAILED";
    case "cancelled":
      return "CANCELLED";
    default:
      return "STOPPED";
  }
}

function sumTokens(steps: readonly StepRecord[]): RunRecord["tokens"] {
  const reported = steps.filter((step) => step.tokens);
  if (reported.length === 0) return undefined;
  return reported.reduce(
    (sum, step) => ({ input: sum.input + step.tokens!.input, output: sum.output + step.tokens!.output }),
    { input: 0, output: 0 },
  );
}
