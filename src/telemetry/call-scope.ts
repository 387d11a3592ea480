import { AsyncLocalStorage } from "node:async_hooks";

/** The call (and run) that a piece of work is done for, carried across awaits. */
export interface CallScope {
  runId?: string;
  callId: string;
}

/**
 * Which call the code running now belongs to, for records made far below the call pipeline (wire
 * records). The pipeline enters a scope only when something reads it (a wire trace is on): on Node 20
 * the first scope turns on async context tracking for the whole process.
 */
export const callScope = new AsyncLocalStorage<CallScope>();
