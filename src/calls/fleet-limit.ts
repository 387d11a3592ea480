import type { CallPriority } from "../config/vocabulary.js";
import { Bulkhead } from "./bulkhead.js";

/** What a fleet slot is asked for, in the bulkhead's terms (its queue is unbounded: never refused). */
const FLEET = { server: "(fleet)", tool: "(any)" };

/**
 * The fleet-wide cap on requests in flight (`limits.inFlight`): one count over every server, on top of
 * each server's own limit — a {@link Bulkhead} of that size whose queue is unbounded. Requests that find
 * it full wait by priority — `high`, then `normal`, then `low`, each first come first served — so urgent
 * work overtakes background work; a waiting request whose signal aborts (its deadline, its caller)
 * leaves the queue at once. A server's guard asks for a slot here only once its own bulkhead gave one, so
 * a request never holds a fleet slot while it waits for a busy server. No `limits` in the config: no
 * FleetLimit at all.
 */
export class FleetLimit {
  readonly limit: number;
  readonly #slots: Bulkhead;

  constructor(limit: number) {
    this.limit = limit;
    this.#slots = new Bulkhead(limit, Number.POSITIVE_INFINITY);
  }

  get active(): number {
    return this.#slots.active;
  }

  get queued(): number {
    return this.#slots.queued;
  }

  /** A slot now, if one is free and nobody waits; undefined otherwise. */
  tryAcquire(): (() => void) | undefined {
    return this.#slots.tryAcquire();
  }

  /**
   * Wait for a slot, behind every waiting request of the same or a higher priority; resolves with the
   * function that gives it back (call it exactly once).
   * @throws the signal's reason when it aborts while waiting.
   */
  acquire(priority: CallPriority | undefined, signal: AbortSignal | undefined): Promise<() => void> {
    return this.#slots.acquire(signal, FLEET, priority);
  }
}
