import type { CallToolResult } from "@modelcontextprotocol/client";
import type { CatalogEntry } from "../catalog/catalog.js";
import { isSwitchyardError, SwitchyardError } from "../errors.js";
import type { ServerConnection } from "../fleet/connection.js";
import { Bulkhead } from "./bulkhead.js";
import { type BreakerState, CircuitBreaker } from "./circuit-breaker.js";
import { classifyFailure, isRetryable, RetryBudget, retryDelayMs } from "./retry.js";

/** Codes that say the server is unwell (as opposed to the call or the caller): they count against the breaker. */
const SERVER_FAILURES = new Set(["SERVER_UNAVAILABLE", "TIMEOUT", "SERVER_ERROR"]);

/** A guard's counters, shown by `servers()`. */
export interface GuardState {
  breaker: BreakerState;
  breakerOpenings: number;
  inFlight: number;
  queued: number;
  retries: number;
}

export interface GuardedCallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Everything between a validated call and its server: the circuit breaker, the bulkhead (at most
 * `maxConcurrency` in flight, a bounded FIFO queue), one deadline for the whole call (queueing,
 * waiting for a restart and retries included), and retries only where they are safe.
 */
export class ServerGuard {
  readonly #connection: ServerConnection;
  readonly #bulkhead: Bulkhead;
  readonly #breaker: CircuitBreaker;
  readonly #budget = new RetryBudget();
  #retries = 0;

  constructor(connection: ServerConnection) {
    const { maxConcurrency, maxQueue, circuitBreaker, name } = connection.config;
    this.#connection = connection;
    this.#bulkhead = new Bulkhead(maxConcurrency, maxQueue);
    this.#breaker = new CircuitBreaker({
      server: name,
      failureThreshold: circuitBreaker.failureThreshold,
      cooldownMs: circuitBreaker.cooldownMs,
      probe: () => connection.ping(),
    });
  }

  state(): GuardState {
    return {
      breaker: this.#breaker.state,
      breakerOpenings: this.#breaker.openings,
      inFlight: this.#bulkhead.active,
      queued: this.#bulkhead.queued,
      retries: this.#retries,
    };
  }

  /**
   * Call a tool through the guard.
   * @throws SwitchyardError: `CIRCUIT_OPEN`, `QUEUE_FULL`, `TIMEOUT` (the whole call's deadline),
   *   `CANCELLED`, or what the connection threw on the last try.
   */
  async call(
    entry: CatalogEntry,
    args: Record<string, unknown>,
    options: GuardedCallOptions = {},
  ): Promise<CallToolResult> {
    const config = this.#connection.config;
    const timeoutMs = options.timeoutMs ?? config.timeoutMs;
    // With progress, a call may run past timeoutMs, but never past maxTotalTimeoutMs.
    const limitMs = Math.max(timeoutMs, config.maxTotalTimeoutMs ?? 0);
    const started = Date.now();
    // An explicit timer rather than AbortSignal.timeout: it is cleared when the call settles, and
    // fires on time however busy the process is with other calls' signals.
    const deadlineController = new AbortController();
    const deadlineTimer = setTimeout(
      () => deadlineController.abort(new DOMException("the call's deadline passed", "TimeoutError")),
      limitMs,
    );
    const deadline = deadlineController.signal;
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const where = { server: entry.server, tool: entry.tool };
    /** What a failure means for this call: the caller's cancel, the call's deadline, or as thrown. */
    const explain = (error: unknown): unknown => {
      if (options.signal?.aborted) {
        return new SwitchyardError(
          "CANCELLED",
          `call to ${entry.tool} on server ${entry.server} was cancelled by the caller`,
          {
            ...where,
            cause: error,
          },
        );
      }
      if (deadline.aborted || isSwitchyardError(error, "TIMEOUT")) {
        return new SwitchyardError(
          "TIMEOUT",
          `call to ${entry.tool} on server ${entry.server} did not finish within ${limitMs} ms (queueing, restarts and retries included); the server was asked to cancel`,
          { ...where, cause: error },
        );
      }
      return error;
    };

    try {
      await this.#breaker.admit(entry.tool, signal);
    } catch (error) {
      clearTimeout(deadlineTimer);
      throw explain(error);
    }
    let release: () => void;
    try {
      release = await this.#bulkhead.acquire(signal, where);
    } catch (error) {
      clearTimeout(deadlineTimer);
      throw explain(error);
    }
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const remaining = limitMs - (Date.now() - started);
          if (remaining <= 0) deadline.throwIfAborted();
          const result = await this.#connection.callTool(entry.tool, args, {
            timeoutMs: Math.max(1, Math.min(timeoutMs, remaining)),
            signal,
            ...(config.maxTotalTimeoutMs !== undefined ? { maxTotalTimeoutMs: remaining } : {}),
          });
          this.#breaker.success();
          if (attempt === 0) this.#budget.earn();
          return result;
        } catch (error) {
          const failure = explain(error);
          if (isSwitchyardError(failure) && SERVER_FAILURES.has(failure.code)) this.#breaker.failure();
          const kind = classifyFailure(failure);
          // A request that never left costs the server nothing: it does not draw on the budget.
          const retry =
            !signal.aborted &&
            attempt < config.retry.maxRetries &&
            isRetryable(kind, entry.annotations) &&
            (kind === "not_sent" || this.#budget.spend());
          if (!retry) throw failure;
          this.#retries += 1;
          try {
            await sleep(retryDelayMs(attempt, config.retry.backoffMs), signal);
          } catch (aborted) {
            throw explain(aborted);
          }
        }
      }
    } finally {
      release();
      clearTimeout(deadlineTimer);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
