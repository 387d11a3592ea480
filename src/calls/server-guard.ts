import { setTimeout as delay } from "node:timers/promises";
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { CatalogEntry } from "../catalog/catalog.js";
import { isSwitchyardError, SwitchyardError } from "../errors.js";
import type { CallOptions, ServerConnection } from "../fleet/connection.js";
import { AdaptiveLimit, type Flight } from "./adaptive-limit.js";
import { Bulkhead } from "./bulkhead.js";
import { type BreakerState, CircuitBreaker } from "./circuit-breaker.js";
import { classifyFailure, isRetryable, RetryBudget, retryDelayMs } from "./retry.js";

/** A guard's counters, shown by `servers()`. */
export interface GuardState {
  breaker: BreakerState;
  breakerOpenings: number;
  inFlight: number;
  /** Calls allowed in flight now: the fixed `maxConcurrency`, or where the adaptive limit stands. */
  limit: number;
  /** `fixed` (`maxConcurrency: n`) or `adaptive` (within `concurrency.min` … `concurrency.max`). */
  limitMode: "fixed" | "adaptive";
  queued: number;
  retries: number;
}

export interface GuardedCallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: CallOptions["onProgress"];
}

/**
 * Everything between a validated call and its server: the circuit breaker, the bulkhead (at most
 * the server's limit in flight — fixed, or adaptive: fed each served call's latency and each timeout
 * or server fault — and a bounded FIFO queue), one deadline for the whole call (queueing,
 * waiting for a restart and retries included), and retries only where they are safe.
 */
export class ServerGuard {
  readonly #connection: ServerConnection;
  readonly #bulkhead: Bulkhead;
  /** The adaptive limit; undefined when `maxConcurrency` fixes it. */
  readonly #limiter: AdaptiveLimit | undefined;
  readonly #breaker: CircuitBreaker;
  readonly #budget = new RetryBudget();
  #retries = 0;

  constructor(connection: ServerConnection) {
    const { concurrency, maxConcurrency, maxQueue, circuitBreaker, name } = connection.config;
    this.#connection = connection;
    // A config made by hand (not resolved) may lack `concurrency`: its maxConcurrency is fixed.
    if (concurrency?.mode === "adaptive") {
      this.#limiter = new AdaptiveLimit(concurrency);
      this.#bulkhead = new Bulkhead(this.#limiter, maxQueue);
    } else {
      this.#bulkhead = new Bulkhead(concurrency?.limit ?? maxConcurrency, maxQueue);
    }
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
      limit: this.#bulkhead.limit,
      limitMode: this.#limiter ? "adaptive" : "fixed",
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
    const plan: CallPlan = {
      entry,
      args,
      timeoutMs,
      limitMs,
      started: Date.now(),
      callerSignal: options.signal,
      onProgress: options.onProgress,
    };

    // The common case — nobody to wait for — needs no deadline of ours: the SDK's own request timeout
    // enforces it, and a caller's signal goes to the SDK as it is (both send notifications/cancelled).
    // This spares every call an AbortController, a timer, a combined signal and their listeners.
    if (!options.signal?.aborted && this.#breaker.state === "closed" && this.#connection.status === "ready") {
      const release = this.#bulkhead.tryAcquire();
      if (release) {
        let failure: unknown;
        try {
          return await this.#attempt(plan, options.signal);
        } catch (error) {
          failure = this.#explain(plan, error, left(plan) <= 0);
          if (!this.#shouldRetry(failure, entry, 0)) throw failure;
        } finally {
          release();
        }
        return this.#guarded(plan, 1);
      }
    }
    return this.#guarded(plan, 0);
  }

  /** The full path: one deadline of ours over the breaker, the queue, a restart and every retry. */
  async #guarded(plan: CallPlan, firstAttempt: number): Promise<CallToolResult> {
    const deadlineController = new AbortController();
    const deadlineTimer = setTimeout(
      () => deadlineController.abort(new DOMException("the call's deadline passed", "TimeoutError")),
      Math.max(1, left(plan)),
    );
    const deadline = deadlineController.signal;
    const signal = plan.callerSignal ? AbortSignal.any([plan.callerSignal, deadline]) : deadline;
    const explain = (error: unknown) => this.#explain(plan, error, deadline.aborted);
    const guard = <T>(promise: Promise<T>) =>
      promise.catch((error: unknown) => Promise.reject(explain(error)));
    try {
      if (firstAttempt > 0) await guard(this.#backoff(firstAttempt - 1, signal));
      await guard(this.#breaker.admit(plan.entry.tool, signal));
      const release = await guard(this.#bulkhead.acquire(signal, plan.entry));
      try {
        for (let attempt = firstAttempt; ; attempt += 1) {
          try {
            if (left(plan) <= 0) deadline.throwIfAborted();
            return await this.#attempt(plan, signal);
          } catch (error) {
            const failure = explain(error);
            if (signal.aborted || !this.#shouldRetry(failure, plan.entry, attempt)) throw failure;
            await guard(this.#backoff(attempt, signal));
          }
        }
      } finally {
        release();
      }
    } finally {
      clearTimeout(deadlineTimer);
    }
  }

  /** One try: success resets the breaker and earns retry budget; a server fault counts against it. */
  async #attempt(plan: CallPlan, signal: AbortSignal | undefined): Promise<CallToolResult> {
    const config = this.#connection.config;
    const remaining = Math.max(1, left(plan));
    const flight = this.#limiter?.start(this.#bulkhead.active);
    try {
      const result = await this.#connection.callTool(plan.entry.tool, plan.args, {
        timeoutMs: Math.min(plan.timeoutMs, remaining),
        ...(signal ? { signal } : {}),
        ...(config.maxTotalTimeoutMs !== undefined ? { maxTotalTimeoutMs: remaining } : {}),
        ...(plan.onProgress ? { onProgress: plan.onProgress } : {}),
      });
      if (flight) this.#limiter!.succeeded(flight, plan.entry.tool);
      this.#breaker.success();
      this.#budget.earn();
      return result;
    } catch (error) {
      // The fleet said whether the server is to blame; a deadline that passed says it was too slow.
      const failure = this.#explain(plan, error, signal?.aborted === true);
      if (isSwitchyardError(failure) && failure.serverFault) {
        this.#breaker.failure(failure.incident);
        if (flight) this.#dropped(flight, failure);
      }
      throw failure;
    }
  }

  /**
   * A request that is not a tool call (`resources/read`, `prompts/get`, `resources/subscribe`) through
   * the same breaker and bulkhead as the server's tool calls, within one deadline (the server's
   * `timeoutMs` unless `options.timeoutMs`), with one attempt: `attempt` gets what is left of the
   * deadline and a signal that aborts at it. A server fault counts against the breaker.
   * @throws SwitchyardError `CIRCUIT_OPEN`, `QUEUE_FULL`, `TIMEOUT`, `CANCELLED`, or what the
   *   connection threw.
   */
  async request<T>(
    request: string,
    attempt: (options: { timeoutMs: number; signal: AbortSignal }) => Promise<T>,
    options: GuardedCallOptions = {},
  ): Promise<T> {
    const { name } = this.#connection.config;
    const timeoutMs = options.timeoutMs ?? this.#connection.config.timeoutMs;
    const started = Date.now();
    const deadlineController = new AbortController();
    const deadlineTimer = setTimeout(
      () => deadlineController.abort(new DOMException("the request's deadline passed", "TimeoutError")),
      timeoutMs,
    );
    const deadline = deadlineController.signal;
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const explain = (error: unknown): unknown => {
      const where = { server: name, cause: error, delivery: "final" as const };
      if (options.signal?.aborted)
        return new SwitchyardError("CANCELLED", `${request} on server ${name} was cancelled by the caller`, {
          ...where,
          serverFault: false,
        });
      if (deadline.aborted || isSwitchyardError(error, "TIMEOUT"))
        return new SwitchyardError(
          "TIMEOUT",
          `${request} on server ${name} did not finish within ${timeoutMs} ms (queueing and restarts included); raise the server's timeoutMs or pass timeoutMs`,
          { ...where, serverFault: true },
        );
      return error;
    };
    try {
      await this.#breaker.admit(request, signal);
      const release = await this.#bulkhead.acquire(signal, { server: name, tool: request });
      const flight = this.#limiter?.start(this.#bulkhead.active);
      try {
        const result = await attempt({ timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)), signal });
        if (flight) this.#limiter!.succeeded(flight, request.split(" ", 1)[0]!);
        this.#breaker.success();
        return result;
      } catch (error) {
        const failure = explain(error);
        if (isSwitchyardError(failure) && failure.serverFault) {
          this.#breaker.failure(failure.incident);
          if (flight) this.#dropped(flight, failure);
        }
        throw failure;
      } finally {
        release();
      }
    } catch (error) {
      // The attempt's failure is explained already; the breaker's and the queue's are not.
      throw isSwitchyardError(error, "CANCELLED") || isSwitchyardError(error, "TIMEOUT")
        ? error
        : explain(error);
    } finally {
      clearTimeout(deadlineTimer);
    }
  }

  /** The server came back after it was lost or failed: whatever the breaker counted is over. */
  recovered(): void {
    this.#breaker.reset();
    this.#limiter?.reset(); // a new process: its latency is learnt again
  }

  /**
   * A server fault tells the adaptive limit to back off when the server was overloaded or gone: a
   * timeout, a lost connection, a rejected or failed request. A call the server answered is a sample
   * (its latency), never a drop.
   */
  #dropped(flight: Flight, failure: SwitchyardError): void {
    if (
      failure.code === "TIMEOUT" ||
      failure.code === "SERVER_UNAVAILABLE" ||
      failure.code === "SERVER_ERROR"
    )
      this.#limiter!.dropped(flight);
  }

  /** Whether a failure is worth another try: safe to repeat, tries left, and budget for it. */
  #shouldRetry(failure: unknown, entry: CatalogEntry, attempt: number): boolean {
    const kind = classifyFailure(failure);
    // A request that never left costs the server nothing: it does not draw on the budget, and gets
    // one more try even with retries off (an expired session is renewed that way).
    const tries = Math.max(this.#connection.config.retry.maxRetries, kind === "not_sent" ? 1 : 0);
    const retry =
      attempt < tries &&
      isRetryable(kind, entry.annotations) &&
      (kind === "not_sent" || this.#budget.spend());
    if (retry) this.#retries += 1;
    return retry;
  }

  #backoff(attempt: number, signal: AbortSignal): Promise<void> {
    return delay(retryDelayMs(attempt, this.#connection.config.retry.backoffMs), undefined, { signal });
  }

  /**
   * What a failure means for this call: the caller's cancel, the call's deadline, or as thrown. The
   * guard owns the deadline, so an abort it caused is a `TIMEOUT` (the server's fault), never the
   * caller's `CANCELLED`.
   */
  #explain(plan: CallPlan, error: unknown, deadlinePassed: boolean): unknown {
    const { entry } = plan;
    const where = { server: entry.server, tool: entry.tool, cause: error, delivery: "final" as const };
    if (plan.callerSignal?.aborted) {
      return new SwitchyardError(
        "CANCELLED",
        `${entry.name} (tool ${entry.tool} on server ${entry.server}) was cancelled by the caller`,
        { ...where, serverFault: false },
      );
    }
    if (deadlinePassed || isSwitchyardError(error, "TIMEOUT")) {
      return new SwitchyardError(
        "TIMEOUT",
        `${entry.name} (tool ${entry.tool} on server ${entry.server}) did not finish within ${plan.limitMs} ms (queueing, restarts and retries included); the server was asked to cancel. If it is only slow, raise the server's timeoutMs or pass timeoutMs for the call`,
        { ...where, serverFault: true },
      );
    }
    return error;
  }
}

/** One call as the guard carries it through its tries. */
interface CallPlan {
  entry: CatalogEntry;
  args: Record<string, unknown>;
  /** Each try's timeout (progress restarts it when `maxTotalTimeoutMs` is set). */
  timeoutMs: number;
  /** The whole call's deadline, from `started`. */
  limitMs: number;
  started: number;
  callerSignal: AbortSignal | undefined;
  onProgress: CallOptions["onProgress"];
}

/** Milliseconds left before the call's deadline. */
function left(plan: CallPlan): number {
  return plan.limitMs - (Date.now() - plan.started);
}
