import { CALL_PRIORITIES, type CallPriority } from "../config/vocabulary.js";

/** The rank of each priority: its queue's index (`high` first). */
const RANK: Readonly<Record<CallPriority, number>> = { high: 0, normal: 1, low: 2 };

/** The rank of a request's priority; none given is `normal`. */
export function priorityRank(priority: CallPriority | undefined): number {
  return priority === undefined ? 1 : RANK[priority];
}

interface Waiter {
  grant(): void;
}

/**
 * The fleet-wide cap on requests in flight (`limits.inFlight`): one count over every server, on top of
 * each server's own limit. Requests that find it full wait in three queues — `high`, then `normal`, then
 * `low`, each first come first served — so urgent work overtakes background work; a waiting request whose
 * signal aborts (its deadline, its caller) leaves its queue at once. A server's guard asks for a slot
 * here only once its own bulkhead gave one, so a request never holds a fleet slot while it waits for a
 * busy server. No `limits` in the config: no FleetLimit at all.
 */
export class FleetLimit {
  readonly limit: number;
  readonly #queues: Waiter[][] = CALL_PRIORITIES.map(() => []);
  #active = 0;
  #waiting = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting;
  }

  /** A slot now, if one is free and nobody waits; undefined otherwise. */
  tryAcquire(): (() => void) | undefined {
    if (this.#active >= this.limit || this.#waiting > 0) return undefined;
    this.#active += 1;
    return this.#releaser();
  }

  /**
   * Wait for a slot, behind every waiting request of the same or a higher priority; resolves with the
   * function that gives it back (call it exactly once).
   * @throws the signal's reason when it aborts while waiting.
   */
  acquire(priority: CallPriority | undefined, signal: AbortSignal | undefined): Promise<() => void> {
    signal?.throwIfAborted();
    const release = this.tryAcquire();
    if (release) return Promise.resolve(release);
    const queue = this.#queues[priorityRank(priority)]!;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.#active += 1;
          resolve(this.#releaser());
        },
      };
      const onAbort = () => {
        const at = queue.indexOf(waiter);
        if (at !== -1) {
          queue.splice(at, 1);
          this.#waiting -= 1;
        }
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      queue.push(waiter);
      this.#waiting += 1;
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active -= 1;
      if (this.#waiting === 0) return;
      for (const queue of this.#queues) {
        const next = queue.shift();
        if (next) {
          this.#waiting -= 1;
          next.grant();
          return;
        }
      }
    };
  }
}
