// How long one tool call run as a task may take, and the waits between its polls.
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { monotonicClock } from "../abort.js";

/**
 * How long one task call may stay silent: `timeoutMs` from the start and, with `maxTotalTimeoutMs`,
 * pushed back by each sign of life (progress, status) up to that total — never past the request's
 * deadline, which `maxTotalTimeoutMs` carries. It and the caller's signal abort one signal. Measured on
 * the monotonic clock every deadline reads.
 */
export class TaskDeadline {
  readonly #controller = new AbortController();
  readonly #started = monotonicClock.now();
  readonly #timeoutMs: number;
  readonly #maxTotalMs: number | undefined;
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort = () => this.#controller.abort(this.#caller!.reason);
  #until: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, maxTotalMs: number | undefined, caller: AbortSignal | undefined) {
    this.#timeoutMs = timeoutMs;
    this.#maxTotalMs = maxTotalMs !== undefined && maxTotalMs > timeoutMs ? maxTotalMs : undefined;
    this.#caller = caller;
    this.#until = this.#started + timeoutMs;
    if (caller?.aborted) this.#onCallerAbort();
    caller?.addEventListener("abort", this.#onCallerAbort, { once: true });
    this.#arm();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The longest the call may take. */
  get totalMs(): number {
    return this.#maxTotalMs ?? this.#timeoutMs;
  }

  /**
   * Options for one request of the call: the signal ends it at the deadline (which progress may push
   * back meanwhile); the SDK's own timeout only at the call's longest.
   */
  requestOptions(): { signal: AbortSignal; timeout: number } {
    return { signal: this.signal, timeout: Math.max(1, this.#started + this.totalMs - monotonicClock.now()) };
  }

  /** A sign of life: with a total allowed, the deadline moves to `timeoutMs` from now. */
  extend(): void {
    if (this.#maxTotalMs === undefined || this.signal.aborted) return;
    this.#until = Math.min(monotonicClock.now() + this.#timeoutMs, this.#started + this.#maxTotalMs);
    this.#arm();
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener("abort", this.#onCallerAbort);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () =>
        this.#controller.abort(
          new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: this.#timeoutMs }),
        ),
      Math.max(0, this.#until - monotonicClock.now()),
    );
  }
}

/** Wait `ms`, or until woken; rejects with the signal's reason when it aborts first. */
export function nap(ms: number, signal: AbortSignal, onWake: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", aborted);
      resolve();
    };
    const aborted = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", aborted, { once: true });
    onWake(done);
  });
}
