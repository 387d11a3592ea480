import type { ToolAnnotations } from "@modelcontextprotocol/client";
import { DEFAULT_MAX_RETRY_DELAY_MS, DEFAULT_RETRY_BACKOFF_MS } from "../config/defaults.js";
import { type Delivery, isSwitchyardError } from "../errors.js";

/** Why a failed call may or may not be tried again: the `delivery` the fleet classified it with. */
export type FailureKind = Delivery;

/**
 * What a failure says about another try, as the fleet classified it where it was caught. Anything
 * unclassified (a failure of our own, or of the caller) is final.
 */
export function classifyFailure(error: unknown): FailureKind {
  return isSwitchyardError(error) ? (error.delivery ?? "final") : "final";
}

/**
 * True when a failure of this kind may be retried: one that never ran, always; one that may have run,
 * only when running it twice is harmless (`repeatable`).
 */
export function isRetryable(kind: FailureKind, repeatable: boolean): boolean {
  if (kind === "not_sent" || kind === "transient") return true;
  return kind === "maybe_ran" && repeatable;
}

/** Whether a tool may run twice without harm: its annotations say it is idempotent or read-only. */
export function isRepeatable(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.idempotentHint === true || annotations?.readOnlyHint === true;
}

/** Delay before retry number `attempt` (0-based): exponential with full jitter, capped. */
export function retryDelayMs(attempt: number, baseMs = DEFAULT_RETRY_BACKOFF_MS): number {
  return Math.random() * Math.min(DEFAULT_MAX_RETRY_DELAY_MS, baseMs * 2 ** attempt);
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
