import { setTimeout as delay } from "node:timers/promises";
import { type Clock, type Deadline, monotonicClock } from "../abort.js";
import { SwitchyardError } from "../errors.js";
import { whenAgain } from "../fleet/call-errors.js";

/** A server's `rateLimit`: at most `perSecond` and `perMinute` requests, `burst` of them at once. */
export interface RateLimitConfig {
  perSecond?: number | undefined;
  perMinute?: number | undefined;
  burst?: number | undefined;
}

/**
 * A server's client-side rate limit: a token bucket per rate (per second, per minute), `burst` deep
 * (default 1: requests spread evenly), kept as GCRA — one "theoretical arrival time" per rate — so a
 * request reserves its send time at once and waits for it: the queue keeps its order with no list.
 * A request whose time comes after its deadline is refused at once with `RATE_LIMITED`.
 * Hand-written: no kept dependency has one, and none bounds a wait by a deadline.
 */
export class RateLimit {
  readonly #server: string;
  readonly #config: RateLimitConfig;
  readonly #clock: Clock;
  /** Per rate: ms between requests, the slack a burst allows, and when the next one is due. */
  readonly #rates: Array<{ interval: number; slack: number; due: number }>;

  constructor(server: string, config: RateLimitConfig, clock: Clock = monotonicClock) {
    this.#server = server;
    this.#config = config;
    this.#clock = clock;
    const burst = Math.max(1, config.burst ?? 1);
    const intervals = [
      config.perSecond ? 1000 / config.perSecond : undefined,
      config.perMinute ? 60_000 / config.perMinute : undefined,
    ].filter((interval): interval is number => interval !== undefined);
    this.#rates = intervals.map((interval) => ({ interval, slack: (burst - 1) * interval, due: -Infinity }));
  }

  /** Take a token now if one is there (the fast path: no promise, no timer); false when it is not. */
  tryTake(): boolean {
    const now = this.#clock.now();
    if (this.#sendAt(now) > now) return false;
    this.#reserve(now);
    return true;
  }

  /**
   * Wait for a token, in order, within the deadline.
   * @throws SwitchyardError `RATE_LIMITED` (with `retryAfterMs`) when the token comes after the deadline;
   *   the signal's reason when it aborts (the reservation is given back when it was the last).
   */
  async take(what: string, deadline: Deadline, signal: AbortSignal, tool?: string): Promise<void> {
    const now = this.#clock.now();
    const wait = this.#sendAt(now) - now;
    if (wait <= 0) {
      this.#reserve(now);
      return;
    }
    if (wait >= deadline.left()) throw this.#refusal(what, deadline, wait, tool);
    const reserved = this.#reserve(now);
    try {
      await delay(wait, undefined, { signal });
    } catch (error) {
      this.#giveBack(reserved);
      throw error;
    }
  }

  /**
   * Wait until a token could be taken, reserving none (then `tryTake`, which another request may win):
   * for a request that must give back what it holds while it waits, and queue for it again.
   * @throws SwitchyardError `RATE_LIMITED` when that time comes after the deadline; the signal's reason.
   */
  async untilTurn(what: string, deadline: Deadline, signal: AbortSignal, tool?: string): Promise<void> {
    const now = this.#clock.now();
    const wait = this.#sendAt(now) - now;
    if (wait <= 0) return;
    if (wait >= deadline.left()) throw this.#refusal(what, deadline, wait, tool);
    await delay(wait, undefined, { signal });
  }

  #refusal(what: string, deadline: Deadline, wait: number, tool: string | undefined): SwitchyardError {
    const { perSecond, perMinute } = this.#config;
    const limit = [perSecond && `${perSecond}/s`, perMinute && `${perMinute}/min`].filter(Boolean).join(", ");
    return new SwitchyardError(
      "RATE_LIMITED",
      `${what} was not sent: server ${this.#server}'s rateLimit (${limit}) has no turn for it within its ${deadline.limitMs} ms deadline; ${whenAgain(wait)}, or raise the rateLimit or timeoutMs`,
      {
        server: this.#server,
        ...(tool !== undefined ? { tool } : {}),
        delivery: "transient",
        serverFault: false,
        retryAfterMs: Math.ceil(wait),
      },
    );
  }

  /** When a request asked for at `now` may be sent. */
  #sendAt(now: number): number {
    let at = now;
    for (const rate of this.#rates) at = Math.max(at, rate.due - rate.slack);
    return at;
  }

  /** Reserve the next turn (at `sendAt(now)`); the dues it set, to give back. */
  #reserve(now: number): number[] {
    const at = this.#sendAt(now);
    return this.#rates.map((rate) => {
      rate.due = Math.max(rate.due, at) + rate.interval;
      return rate.due;
    });
  }

  /** A waiter that gave up: its turn goes back when nobody reserved after it. */
  #giveBack(reserved: number[]): void {
    this.#rates.forEach((rate, i) => {
      if (rate.due === reserved[i]) rate.due -= rate.interval;
    });
  }
}
