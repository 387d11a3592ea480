// The agent reports with the one event union and the records of src/telemetry; nothing is defined twice.
import type { SwitchyardEvent } from "../telemetry/events.js";

export {
  type CallRecord,
  elapsedMs,
  newId,
  type RecordedError,
  type RunRecord,
  type StepRecord,
  type SwitchyardEvent,
  type TokenUsage,
} from "../telemetry/events.js";

/** Why a run ended; `cancelled`: its `signal` aborted (nothing more was asked of the model). */
export type StopReason = "answer" | "max_steps" | "error" | "cancelled";

/** What the agent reports through `onEvent`: the one event union, {@link SwitchyardEvent}. */
export type AgentEvent = SwitchyardEvent;
