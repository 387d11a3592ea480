import { setTimeout as delay } from "node:timers/promises";
import type { Deadline } from "../abort.js";
import type { CallPriority } from "../config/vocabulary.js";
import { isSwitchyardError, SwitchyardError } from "../errors.js";
import type { ServerConnection } from "../fleet/connection.js";
import type { RequestMethod, ServerAnswers, ServerRequest } from "../fleet/requests.js";
import { AdaptiveLimit, type Flight } from "./adaptive-limit.js";
import { Bulkhead } from "./bulkhead.js";
import { type BreakerState, CircuitBreaker } from "./circuit-breaker.js";
import type { FleetLimit } from "./fleet-limit.js";
import { RateLimit } from "./rate-limit.js";
import { classifyFailure, isRetryable, RetryBudget, retryDelayMs } from "./retry.js";

/** A guard's counters, shown by `servers()`. */
export interface GuardState {
  breaker: BreakerState;
  breakerOpenings: number;
  inFlight: number;
  /** Requests allowed in flight now: the fixed `maxConcurrency`, or where the adaptive limit stands. */
  limit: number;
  /** `fixed` (`maxConcurrency: n`) or `adaptive` (within `concurrency.min` … `concurrency.max`). */
  limitMode: "fixed" | "adaptive";
  queued: number;
  retries: number;
}

/** One admitted request as the guard carries it through its tries. */
export interface GuardedRequest {
  request: ServerRequest;
  /** What messages call it: `orders_refund (tool refund on server orders)`, `resources/read x on server s`. */
  what: string;
  /** The tool of a tool call (its failures' `tool` field). */
  tool?: string | undefined;
  /** The whole request's deadline: queueing, a restart and every retry within it. */
  deadline: Deadline;
  /** The caller's cancel. */
  signal?: AbortSignal | undefined;
  /** Each try's own timeout (with `maxTotalTimeoutMs`, progress pushes it back up to the deadline). */
  attemptMs: number;
  /** Another try is safe after a failure that may have reached the server (read-only or idempotent). */
  repeatable: boolean;
  /** How urgent it is: orders the server's queue and the fleet-wide limit's; default `normal`. */
  priority?: CallPriority | undefined;
  /** Asked before each try is sent, once the server is ready: a refusal fails it unsent (see AttemptOptions). */
  beforeSend?: (() => SwitchyardError | undefined) | undefined;
}

/**
 * Everything between an admitted request and its server: the circuit breaker, the bulkhead (at most the
 * server's limit in flight — fixed, or adaptive: fed each served request's latency and each timeout or
 * server fault — and a bounded FIFO queue), the request's one deadline (queueing, waiting for a restart
 * and retries included), and retries only where they are safe. Every kind of request goes this one way.
 */
export class ServerGuard {
  readonly #connection: ServerConnection;
  readonly #bulkhead: Bulkhead;
  /** The adaptive limit; undefined when `maxConcurrency` fixes it. */
  readonly #limiter: AdaptiveLimit | undefined;
  readonly #breaker: CircuitBreaker;
  /** The fleet-wide limit (`limits.inFlight`), asked after the bulkhead; undefined without `limits`. */
  readonly #fleet: FleetLimit | undefined;
  readonly #budget = new RetryBudget();
  /** The server's `rateLimit`; undefined without one (and then nothing of it is on the way). */
  readonly #rate: RateLimit | undefined;
  #retries = 0;

  constructor(connection: ServerConnection, fleet?: FleetLimit) {
    const { concurrency, maxConcurrency, maxQueue, circuitBreaker, name } = connection.config;
    this.#connection = connection;
    this.#fleet = fleet;
    const { rateLimit } = connection.config;
    if (rateLimit) this.#rate = new RateLimit(name, rateLimit);
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
   * Send a request through the guard.
   * @throws SwitchyardError: `CIRCUIT_OPEN`, `QUEUE_FULL`, `TIMEOUT` (the whole request's deadline),
   *   `RATE_LIMITED` (the server's "not now", or its `rateLimit`, past the deadline),
   *   `CANCELLED`, or what the connection threw on the last try.
   */
  async run<M extends RequestMethod>(
    request: GuardedRequest & { request: { method: M } },
  ): Promise<ServerAnswers[M]> {
    return (await this.#run(request)) as ServerAnswers[M];
  }

  async #run(guarded: GuardedRequest): Promise<unknown> {
    // The common case — nobody to wait for — needs no timer of ours: the SDK's own request timeout
    // enforces the deadline, and a caller's signal goes to the SDK as it is (both send
    // notifications/cancelled). This spares every request an AbortController, a timer, a combined
    // signal and their listeners.
    if (!guarded.signal?.aborted && this.#breaker.state === "closed" && this.#connection.status === "ready") {
      const release = this.#bulkhead.tryAcquire();
      // With a fleet-wide limit, a slot of it too, and a token of the server's rateLimit (none free:
      // the full path waits for them).
      const fleetSlot = release && this.#fleet?.tryAcquire();
      if (release && ((this.#fleet && !fleetSlot) || (this.#rate && !this.#rate.tryTake()))) {
        if (fleetSlot) fleetSlot();
        release();
      } else if (release) {
        let wait: number | undefined;
        try {
          return await this.#attempt(guarded, guarded.signal);
        } catch (error) {
          const failure = this.#explain(guarded, error, guarded.deadline.passed);
          wait = this.#waitFor(failure, guarded, 0);
          if (wait === undefined && !this.#shouldRetry(failure, guarded, 0)) throw failure;
        } finally {
          if (fleetSlot) fleetSlot();
          release();
        }
        return this.#guarded(guarded, 1, wait);
      }
    }
    return this.#guarded(guarded, 0);
  }

  /**
   * The full path: the deadline's own signal over the breaker, the queue, a restart and every retry.
   * A server's "not now" is waited out holding no slot — neither the server's nor the fleet's — so
   * other calls go on meanwhile; the request then queues for them again, within its deadline.
   */
  async #guarded(guarded: GuardedRequest, firstAttempt: number, firstWait?: number): Promise<unknown> {
    const { deadline } = guarded;
    const signal = deadline.signalWith(guarded.signal);
    const explain = (error: unknown) => this.#explain(guarded, error, deadline.fired || deadline.passed);
    const guard = <T>(promise: Promise<T>) =>
      promise.catch((error: unknown) => Promise.reject(explain(error)));
    try {
      if (firstAttempt > 0) await guard(this.#backoff(firstAttempt - 1, signal, firstWait));
      for (let attempt = firstAttempt; ; attempt += 1) {
        const notNow = await this.#held(guarded, attempt, signal, explain, guard);
        if (!("wait" in notNow)) return notNow.answer;
        attempt = notNow.attempt;
        await guard(this.#backoff(attempt, signal, notNow.wait));
      }
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Tries from `attempt` on while holding the server's slot and, with `limits`, a fleet slot: the answer,
   * or — the server said "not now" — how long to wait (the slots given back first) and the try it was.
   */
  async #held(
    guarded: GuardedRequest,
    firstAttempt: number,
    signal: AbortSignal,
    explain: (error: unknown) => unknown,
    guard: <T>(promise: Promise<T>) => Promise<T>,
  ): Promise<{ answer: unknown } | { wait: number; attempt: number }> {
    const { deadline } = guarded;
    await guard(this.#breaker.admit(guarded.what, signal));
    const release = await guard(
      this.#bulkhead.acquire(signal, { server: this.#connection.name, tool: guarded.what }, guarded.priority),
    );
    let fleetSlot: (() => void) | undefined;
    try {
      for (let attempt = firstAttempt; ; attempt += 1) {
        fleetSlot = await this.#sendingTurn(guarded, signal, guard, fleetSlot);
        try {
          if (deadline.passed) deadline.signal.throwIfAborted();
          return { answer: await this.#attempt(guarded, signal) };
        } catch (error) {
          const failure = explain(error);
          if (signal.aborted) throw failure;
          const wait = this.#waitFor(failure, guarded, attempt);
          if (wait !== undefined) return { wait, attempt };
          if (!this.#shouldRetry(failure, guarded, attempt)) throw failure;
          await guard(this.#backoff(attempt, signal));
        }
      }
    } finally {
      fleetSlot?.();
      release();
    }
  }

  /**
   * What a try needs once the server can take it (its own slot held): with `limits`, a fleet slot —
   * only now waited for, never while the server is busy — and a token of the server's `rateLimit`.
   * Without `limits` the token is waited for in order. With them, a fleet slot is never held while the
   * rate says not yet: it is given back, the turn waited for, and both asked for again (so calls to other
   * servers go on meanwhile, and calls that waited for the fleet together still go out spaced).
   */
  async #sendingTurn(
    guarded: GuardedRequest,
    signal: AbortSignal,
    guard: <T>(promise: Promise<T>) => Promise<T>,
    held: (() => void) | undefined,
  ): Promise<(() => void) | undefined> {
    const fleet = this.#fleet;
    const rate = this.#rate;
    const { what, deadline, tool } = guarded;
    if (!fleet) {
      if (rate) await guard(rate.take(what, deadline, signal, tool));
      return undefined;
    }
    let slot = held;
    for (;;) {
      slot ??= await this.#fleetSlot(fleet, guarded, signal);
      if (!rate || rate.tryTake()) return slot;
      slot();
      slot = undefined;
      await guard(rate.untilTurn(what, deadline, signal, tool));
    }
  }

  /**
   * A slot of the fleet-wide limit, waited for in the request's priority's queue within its deadline.
   * @throws SwitchyardError `TIMEOUT` (not sent) when the deadline passes while it waits; `CANCELLED`.
   */
  async #fleetSlot(fleet: FleetLimit, guarded: GuardedRequest, signal: AbortSignal): Promise<() => void> {
    try {
      return await fleet.acquire(guarded.priority, signal);
    } catch (error) {
      const failure = this.#explain(guarded, error, guarded.deadline.fired || guarded.deadline.passed);
      if (!isSwitchyardError(failure, "TIMEOUT")) throw failure;
      throw new SwitchyardError(
        "TIMEOUT",
        `${guarded.what} waited for the fleet-wide limit (limits.inFlight: ${fleet.limit}; ${fleet.active} in flight, ${fleet.queued} waiting) until its ${guarded.deadline.limitMs} ms deadline passed, and was not sent; raise limits.inFlight, send fewer calls at once, or give urgent calls priority "high"`,
        {
          server: this.#connection.name,
          ...(guarded.tool !== undefined ? { tool: guarded.tool } : {}),
          cause: error,
          delivery: "not_sent",
          serverFault: false,
        },
      );
    }
  }

  /** One try: success resets the breaker and earns retry budget; a server fault counts against it. */
  async #attempt(guarded: GuardedRequest, signal: AbortSignal | undefined): Promise<unknown> {
    const remaining = guarded.deadline.remaining();
    const flight = this.#limiter?.start(this.#bulkhead.active);
    try {
      const answer = await this.#connection.attempt(guarded.request, {
        timeoutMs: Math.min(guarded.attemptMs, remaining),
        ...(signal ? { signal } : {}),
        ...(this.#connection.config.maxTotalTimeoutMs !== undefined ? { maxTotalTimeoutMs: remaining } : {}),
        ...(guarded.beforeSend ? { beforeSend: guarded.beforeSend } : {}),
      });
      if (flight) this.#limiter!.succeeded(flight, guarded.tool ?? guarded.request.method);
      this.#breaker.success();
      this.#budget.earn();
      return answer;
    } catch (error) {
      // The fleet said whether the server is to blame; a deadline that passed says it was too slow.
      const failure = this.#explain(guarded, error, signal?.aborted === true && !guarded.signal?.aborted);
      if (isSwitchyardError(failure) && failure.serverFault) {
        this.#breaker.failure(failure.incident);
        if (flight) this.#dropped(flight, failure);
      }
      throw failure;
    }
  }

  /** The server came back after it was lost or failed: whatever the breaker counted is over. */
  recovered(): void {
    this.#breaker.reset();
    this.#limiter?.reset(); // a new process: its latency is learnt again
  }

  /**
   * A server fault tells the adaptive limit to back off when the server was overloaded or gone: a
   * timeout, a lost connection, a rejected or failed request. A request the server answered is a
   * sample (its latency), never a drop.
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
  #shouldRetry(failure: unknown, guarded: GuardedRequest, attempt: number): boolean {
    const kind = classifyFailure(failure);
    // A request that never left costs the server nothing: it does not draw on the budget, and gets
    // one more try even with retries off (an expired session is renewed that way).
    const tries = Math.max(this.#connection.config.retry.maxRetries, kind === "not_sent" ? 1 : 0);
    const retry =
      attempt < tries &&
      isRetryable(kind, guarded.repeatable) &&
      (kind === "not_sent" || this.#budget.spend());
    if (retry) this.#retries += 1;
    return retry;
  }

  /**
   * The server said "not now" (`RATE_LIMITED`): how long to wait before sending the request again —
   * its `Retry-After`, else the retry policy's backoff — when that ends within the deadline. Such a
   * wait is neither a retry of the policy's nor a charge on the budget: the request was not processed.
   * Undefined for any other failure.
   * @throws SwitchyardError `RATE_LIMITED`, saying when to try again, when the wait would pass the deadline.
   */
  #waitFor(failure: unknown, guarded: GuardedRequest, attempt: number): number | undefined {
    if (!isSwitchyardError(failure, "RATE_LIMITED")) return undefined;
    const wait = failure.retryAfterMs || retryDelayMs(attempt, this.#connection.config.retry.backoffMs);
    if (wait < guarded.deadline.left()) {
      this.#retries += 1;
      return wait;
    }
    throw new SwitchyardError(
      "RATE_LIMITED",
      `${failure.message}; ${guarded.what} cannot wait that long within its ${guarded.deadline.limitMs} ms deadline (not sent again)`,
      failure.details(),
    );
  }

  #backoff(attempt: number, signal: AbortSignal, wait?: number): Promise<void> {
    const ms = wait ?? retryDelayMs(attempt, this.#connection.config.retry.backoffMs);
    return delay(ms, undefined, { signal });
  }

  /**
   * What a failure means for this request: the caller's cancel, the deadline, or as thrown. The guard
   * owns the deadline, so an abort it caused is a `TIMEOUT` (the server's fault), never the caller's
   * `CANCELLED`.
   */
  #explain(guarded: GuardedRequest, error: unknown, deadlinePassed: boolean): unknown {
    const where = {
      server: this.#connection.name,
      ...(guarded.tool !== undefined ? { tool: guarded.tool } : {}),
      cause: error,
      delivery: "final" as const,
    };
    if (guarded.signal?.aborted) {
      return new SwitchyardError("CANCELLED", `${guarded.what} was cancelled by the caller`, {
        ...where,
        serverFault: false,
      });
    }
    if (deadlinePassed || isSwitchyardError(error, "TIMEOUT")) {
      return new SwitchyardError(
        "TIMEOUT",
        `${guarded.what} did not finish within ${guarded.deadline.limitMs} ms (queueing, restarts and retries included); the server was asked to cancel. If it is only slow, raise the server's timeoutMs or pass timeoutMs`,
        { ...where, serverFault: true },
      );
    }
    return error;
  }
}
