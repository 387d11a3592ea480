import { SdkError, SdkErrorCode, type ToolAnnotations } from "@modelcontextprotocol/client";
import { findCause, httpStatusOf, isSwitchyardError, systemErrorCode } from "../errors.js";

/** Retries of one call after a failure that is safe to retry. */
export const DEFAULT_MAX_RETRIES = 2;
/** First retry delay; doubles each time, with full jitter. */
export const DEFAULT_RETRY_BASE_MS = 100;
/** Longest wait between two tries. */
export const MAX_RETRY_DELAY_MS = 2_000;

/** HTTP statuses that say "not now" rather than "no": the request did not run. */
const TRANSIENT_HTTP = new Set([429, 502, 503, 504]);
/** System errors that mean the request never left. */
const NEVER_DELIVERED = new Set(["ECONNREFUSED", "EPIPE"]);
/** JSON-RPC codes servers use for transient trouble (request timeout, session not found). */
const TRANSIENT_RPC = new Set([-32001]);

/** Why a failed call may or may not be tried again. */
export type FailureKind =
  /** The request never left: safe to retry. */
  | "not_sent"
  /** The server said try again (429, 502, 503, 504, -32001): the tool did not run. */
  | "transient"
  /** The request may have reached the tool: retry only if the tool says repeats are harmless. */
  | "maybe_ran"
  /** Not worth another try: bad arguments, a deadline that passed, a cancelled call, a crash. */
  | "final";

/**
 * Sort a failure by whether another try could help and could hurt. A crash during the call is final:
 * the call may be what crashed the server, and retrying a poison pill only burns restarts.
 */
export function classifyFailure(error: unknown): FailureKind {
  if (!isSwitchyardError(error)) return "final";
  if (
    [
      "INVALID_ARGUMENTS",
      "TIMEOUT",
      "CANCELLED",
      "TOOL_NOT_FOUND",
      "CIRCUIT_OPEN",
      "QUEUE_FULL",
      "RESULT_TOO_LARGE",
    ].includes(error.code)
  ) {
    return "final";
  }
  if (error.rpcCode !== undefined) return TRANSIENT_RPC.has(error.rpcCode) ? "transient" : "final";
  const status = httpStatusOf(error);
  if (status !== undefined) return TRANSIENT_HTTP.has(status) ? "transient" : "final";
  const sdk = findCause(error, (cause): cause is SdkError => cause instanceof SdkError);
  if (sdk?.code === SdkErrorCode.NotConnected) return "not_sent";
  // Refused connections and writes to a closed pipe: the request never reached the server.
  if (systemErrorCode(error, NEVER_DELIVERED)) return "not_sent";
  if (error.code === "SERVER_UNAVAILABLE" && sdk?.code === SdkErrorCode.ConnectionClosed) return "final";
  return "maybe_ran";
}

/** True when a failure of this kind may be retried for a tool with these annotations. */
export function isRetryable(kind: FailureKind, annotations: ToolAnnotations | undefined): boolean {
  if (kind === "not_sent" || kind === "transient") return true;
  if (kind === "maybe_ran") return annotations?.idempotentHint === true || annotations?.readOnlyHint === true;
  return false;
}

/** Delay before retry number `attempt` (0-based): exponential with full jitter, capped. */
export function retryDelayMs(attempt: number, baseMs = DEFAULT_RETRY_BASE_MS): number {
  return Math.random() * Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** attempt);
}

/**
 * A per-server retry budget (token bucket): each retry costs a token, each call that succeeds first
 * time earns a fraction of one back. A broken server cannot turn every call into `1 + maxRetries`
 * calls: once the bucket is dry, failures are reported at once.
 */
export class RetryBudget {
  readonly #capacity: number;
  readonly #refill: number;
  #tokens: number;

  constructor(capacity = 10, refillPerSuccess = 0.1) {
    this.#capacity = capacity;
    this.#refill = refillPerSuccess;
    this.#tokens = capacity;
  }

  /** Take a token for one retry; false when the budget is spent. */
  spend(): boolean {
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** A call succeeded without retrying. */
  earn(): void {
    this.#tokens = Math.min(this.#capacity, this.#tokens + this.#refill);
  }
}
