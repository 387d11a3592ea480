import { DEFAULT_MAX_QUEUE } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";

export { DEFAULT_MAX_QUEUE } from "../config/defaults.js";

/**
 * At most `limit` calls in flight; the rest wait in a FIFO queue of at most `maxQueue`. A waiting call
 * whose signal aborts leaves the queue at once.
 */
export class Bulkhead {
  readonly #limit: number;
  readonly #maxQueue: number;
  readonly #waiting: Array<{ grant: () => void }> = [];
  #active = 0;

  constructor(limit: number, maxQueue = DEFAULT_MAX_QUEUE) {
    this.#limit = limit;
    this.#maxQueue = maxQueue;
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** A slot now, if one is free and nobody is waiting (FIFO); undefined otherwise. */
  tryAcquire(): (() => void) | undefined {
    if (this.#active >= this.#limit || this.#waiting.length > 0) return undefined;
    this.#active += 1;
    return this.#releaser();
  }

  /**
   * Wait for a slot; resolves with the function that gives it back (call it exactly once).
   * @throws SwitchyardError `QUEUE_FULL` when the queue is full; the signal's reason when it aborts.
   */
  acquire(signal: AbortSignal | undefined, what: { server: string; tool: string }): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#active < this.#limit) {
      this.#active += 1;
      return Promise.resolve(this.#releaser());
    }
    if (this.#waiting.length >= this.#maxQueue) {
      return Promise.reject(
        new SwitchyardError(
          "QUEUE_FULL",
          `server ${what.server} has ${this.#limit} calls in flight and ${this.#waiting.length} waiting; ${what.tool} was refused (raise maxConcurrency or maxQueue, or send fewer calls at once)`,
          what,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.#active += 1;
          resolve(this.#releaser());
        },
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at !== -1) this.#waiting.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active -= 1;
      this.#waiting.shift()?.grant();
    };
  }
}
