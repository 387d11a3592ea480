// Time and cancellation, once: the deadline of a request or a run, and work raced against a signal.
// Shared by every layer (like errors.ts): calls/ owns a request's deadline, the agent and plans race
// their own waits against a run's signal, fleet/ waits for a restart within a call's.

/** Milliseconds that only move forward. Tests give a deadline a clock of their own. */
export interface Clock {
  now(): number;
}

/** `performance.now()`: the clock every deadline reads unless given another. */
export const monotonicClock: Clock = Object.freeze({ now: () => performance.now() });

/**
 * When one piece of work must end: made once, read by every step on the way (an approval's wait, a
 * queue, a restart, each attempt). It costs two numbers until something asks for its {@link signal}:
 * only then is a timer made, and {@link dispose} releases it.
 */
export class Deadline {
  /** The whole budget, as given. */
  readonly limitMs: number;
  readonly #clock: Clock;
  readonly #endsAt: number;
  #controller: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(limitMs: number, clock: Clock = monotonicClock) {
    this.limitMs = limitMs;
    this.#clock = clock;
    this.#endsAt = clock.now() + limitMs;
  }

  /** Milliseconds left; zero or less once it has passed. */
  left(): number {
    return this.#endsAt - this.#clock.now();
  }

  /** Milliseconds left, at least 1: what a timeout handed on may be given. */
  remaining(): number {
    return Math.max(1, this.left());
  }

  get passed(): boolean {
    return this.left() <= 0;
  }

  /** Milliseconds since it was made. */
  elapsed(): number {
    return this.limitMs - this.left();
  }

  /**
   * Aborts (with a `TimeoutError` `DOMException`) when the deadline passes. Made on first use; the
   * timer holds the process while work waits on it, until {@link dispose}.
   */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      const expire = () => controller.abort(new DOMException("the deadline passed", "TimeoutError"));
      if (this.passed) expire();
      else this.#timer = setTimeout(expire, this.remaining());
    }
    return this.#controller.signal;
  }

  /** Whether its signal was made and has fired (a wait cut short by the deadline, not by a caller). */
  get fired(): boolean {
    return this.#controller?.signal.aborted === true;
  }

  /** The deadline's signal joined with `other` (a caller's cancel), or the deadline's alone. */
  signalWith(other: AbortSignal | undefined): AbortSignal {
    return other ? AbortSignal.any([other, this.signal]) : this.signal;
  }

  /** Release the timer, if one was made. Idempotent. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * `work`, or a rejection with `reason()` as soon as `signal` aborts, whether or not `work` heeds the
 * signal (its own outcome is then ignored). Without a signal, `work` itself.
 */
export function abortable<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  reason: () => unknown = () => signal?.reason,
): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
