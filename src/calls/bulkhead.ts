import { DEFAULT_MAX_QUEUE } from "../config/defaults.js";
import type { CallPriority } from "../config/vocabulary.js";
import { SwitchyardError } from "../errors.js";

export { DEFAULT_MAX_QUEUE } from "../config/defaults.js";

/** The rank of each priority (`high` first). */
const RANK: Readonly<Record<CallPriority, number>> = { high: 0, normal: 1, low: 2 };

/** The rank of a request's priority; none given is `normal`. */
export function priorityRank(priority: CallPriority | undefined): number {
  return priority === undefined ? 1 : RANK[priority];
}

/** A limit that may change between calls (an adaptive one): read each time a slot is asked for. */
export interface ConcurrencyLimit {
  readonly limit: number;
}

/**
 * At most `limit` calls in flight; the rest wait in a queue of at most `maxQueue`, ordered by priority
 * (`high` before `normal` before `low`) and first come first served within one. A waiting call
 * whose signal aborts leaves the queue at once. The limit is a number, or a {@link ConcurrencyLimit}
 * read at each call and each release (a limit that rose lets as many waiting calls go; one that fell
 * lets none go until fewer are in flight than it says).
 */
export class Bulkhead {
  readonly #fixed: number | undefined;
  readonly #source: ConcurrencyLimit | undefined;
  readonly #maxQueue: number;
  /** Waiting calls, by priority (`high` first), each priority first come first served. */
  readonly #waiting: Array<{ rank: number; grant: () => void }> = [];
  #active = 0;

  constructor(limit: number | ConcurrencyLimit, maxQueue = DEFAULT_MAX_QUEUE) {
    if (typeof limit === "number") this.#fixed = limit;
    else this.#source = limit;
    this.#maxQueue = maxQueue;
  }

  /** Calls allowed in flight now. */
  get limit(): number {
    return this.#fixed ?? this.#source!.limit;
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** A slot now, if one is free and nobody is waiting (FIFO); undefined otherwise. */
  tryAcquire(): (() => void) | undefined {
    if (this.#active >= this.limit || this.#waiting.length > 0) return undefined;
    this.#active += 1;
    return this.#releaser();
  }

  /**
   * Wait for a slot; resolves with the function that gives it back (call it exactly once).
   * @throws SwitchyardError `QUEUE_FULL` when the queue is full; the signal's reason when it aborts.
   */
  acquire(
    signal: AbortSignal | undefined,
    what: { server: string; tool: string },
    priority?: CallPriority,
  ): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#active < this.limit && this.#waiting.length === 0) {
      this.#active += 1;
      return Promise.resolve(this.#releaser());
    }
    if (this.#waiting.length >= this.#maxQueue) {
      return Promise.reject(
        new SwitchyardError(
          "QUEUE_FULL",
          `server ${what.server} has ${this.#active} calls in flight and ${this.#waiting.length} waiting; ${what.tool} was refused (raise maxConcurrency or maxQueue, or send fewer calls at once)`,
          what,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        rank: priorityRank(priority),
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
      // Behind every waiting call of the same or a higher priority (with one priority: at the end).
      let at = this.#waiting.length;
      while (at > 0 && this.#waiting[at - 1]!.rank > waiter.rank) at -= 1;
      this.#waiting.splice(at, 0, waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active -= 1;
      if (this.#fixed !== undefined) this.#waiting.shift()?.grant();
      else while (this.#waiting.length > 0 && this.#active < this.limit) this.#waiting.shift()!.grant();
    };
  }
}
