/**
 * An adaptive concurrency limit for one server: a gradient limiter in the manner of Netflix's
 * concurrency-limits (`Gradient`) and Envoy's adaptive concurrency filter, small enough to read whole.
 *
 * Each served call is a latency sample, compared with the lowest latency seen for the same tool (a
 * server's tools differ: a slow search and a fast lookup each have their own minimum) and its threshold:
 * `tolerance` × the minimum, or the minimum plus `slackMs`, whichever is more (below a few milliseconds
 * the differences are the client's and the pipe's, not the server's).
 *
 * A window of samples is judged on its floor — the lowest latency ÷ threshold among the calls that left
 * with the window's most calls in flight — not on its median. Load and noise part there: a server that
 * queues makes every call wait, the quickest too, so the floor rises; latency that varies per call (a
 * tool that takes 50–250 ms at random) spreads the calls but still brings some back near the minimum,
 * so the floor stays (judged on the median, such a tool read as load at any limit and held it at 1).
 * Calls sent while the window filled up to its load (fewer in flight) are not its floor.
 * A window closes unloaded as soon as it holds half a limit and a call within the threshold: the limit
 * grows by √limit × min(1, 2 × (1 − floor)) if the calls used at least half of it (it settles where
 * latency meets the threshold instead of overshooting). It closes loaded only when LOADED_SAMPLES (32)
 * calls at its load, and at least half a limit, were all past the threshold: the limit is multiplied
 * by 1 / floor (at least ½). A timeout or a server fault is a drop: the limit is multiplied by 0.9 (AIMD).
 * After any change, the calls already in flight no longer count (they saw the old limit's load): one
 * change per round trip, as TCP's congestion window, and one stall or one burst of timeouts decreases
 * the limit once, not once per call. The limit stays within `min` and `max`.
 *
 * What it cannot tell from load: noise whose quick calls are rarer than one in ~32 (a long tail below
 * the typical latency, a cache hit now and then setting the minimum): set `tolerance` wider for it, or
 * a fixed `maxConcurrency`.
 *
 * Time comes from `now` (ms), so that tests drive it with a fake clock.
 */
export interface AdaptiveLimitOptions {
  min: number;
  max: number;
  initial: number;
  /** How far above a tool's minimum latency a sample may be and still count as unloaded (× minimum). */
  tolerance: number;
  /** Latency within this many ms of the minimum counts as unloaded too, whatever the ratio. */
  slackMs: number;
  now?: () => number;
}

/** One call the limiter is told about: when it started, with how many in flight, in which round. */
export interface Flight {
  startedAt: number;
  inFlight: number;
  round: number;
}

/** The factor a drop (timeout, server fault) multiplies the limit by. */
const BACKOFF = 0.9;
/** Tools whose minimum is kept apart; past this, new tools share one minimum. */
const MAX_KEYS = 1024;
const SHARED_KEY = "\u0000";
/**
 * Calls at the window's load a window needs before it may find every one past the threshold: noise
 * that brings a call back near the floor one time in sixteen (50–250 ms at random against a 62.5 ms
 * threshold) leaves all of 32 past it one window in eight, and then only just past it.
 */
const LOADED_SAMPLES = 32;

export class AdaptiveLimit {
  readonly min: number;
  readonly max: number;
  readonly #tolerance: number;
  readonly #slackMs: number;
  readonly #now: () => number;
  readonly #initial: number;
  readonly #minLatency = new Map<string, number>();
  #estimate: number;
  #round = 0;
  /**
   * The current window: its calls, the most calls in flight any left with (its load), how many left
   * with that many, and the lowest latency among those (÷ its tool's threshold): the window's floor.
   */
  #windowSamples = 0;
  #windowInFlight = 0;
  #windowAtLoad = 0;
  #windowFloor = Number.POSITIVE_INFINITY;

  constructor(options: AdaptiveLimitOptions) {
    this.min = options.min;
    this.max = options.max;
    this.#initial = clamp(options.initial, options.min, options.max);
    this.#estimate = this.#initial;
    this.#tolerance = options.tolerance;
    this.#slackMs = options.slackMs;
    this.#now = options.now ?? performance.now.bind(performance);
  }

  /** Calls allowed in flight now. */
  get limit(): number {
    return Math.max(this.min, Math.floor(this.#estimate));
  }

  /** A call leaves for the server with `inFlight` calls in flight (itself included). */
  start(inFlight: number): Flight {
    return { startedAt: this.#now(), inFlight, round: this.#round };
  }

  /** The server answered the call (a tool error is an answer too): its latency is a sample. */
  succeeded(flight: Flight, key: string): void {
    const latency = Math.max(this.#now() - flight.startedAt, 0.001);
    const slot = this.#minLatency.has(key) || this.#minLatency.size < MAX_KEYS ? key : SHARED_KEY;
    const least = Math.min(this.#minLatency.get(slot) ?? latency, latency);
    this.#minLatency.set(slot, least);
    if (flight.round !== this.#round) return; // it saw the load of a limit since decreased
    const threshold = Math.max(least * this.#tolerance, least + this.#slackMs);
    this.#windowSamples += 1;
    if (flight.inFlight > this.#windowInFlight) {
      // Calls that left with fewer in flight (while it filled up) did not see the window's load.
      this.#windowInFlight = flight.inFlight;
      this.#windowAtLoad = 0;
      this.#windowFloor = Number.POSITIVE_INFINITY;
    }
    if (flight.inFlight === this.#windowInFlight) {
      this.#windowAtLoad += 1;
      this.#windowFloor = Math.min(this.#windowFloor, latency / threshold);
    }
    // One call back within the threshold shows the server was not queueing at that load: the window
    // closes as soon as it holds half a limit. That every call was past it takes LOADED_SAMPLES.
    const ratio = this.#windowFloor;
    const needed = Math.ceil(this.limit / 2);
    if (this.#windowSamples < needed) return;
    if (ratio > 1 && this.#windowAtLoad < LOADED_SAMPLES) return;
    const used = this.#windowInFlight >= this.#estimate / 2;
    this.#clearWindow();
    if (ratio <= 1) {
      // Room for more if the calls used the limit: √limit while the floor is under half the
      // threshold, less the nearer it gets (so that it settles there, not past it).
      if (used) this.#change(this.#estimate + Math.sqrt(this.#estimate) * Math.min(1, 2 * (1 - ratio)));
      return;
    }
    this.#change(this.#estimate * Math.max(0.5, 1 / ratio));
  }

  /** The call timed out or the server failed it: back off, once per round of calls in flight. */
  dropped(flight: Flight): void {
    if (flight.round === this.#round) this.#change(this.#estimate * BACKOFF);
  }

  /** A new limit; the calls in flight saw the old one's load, so their samples no longer count. */
  #change(estimate: number): void {
    this.#estimate = clamp(estimate, this.min, this.max);
    this.#round += 1;
    this.#clearWindow();
  }

  /** The server is a new process: what was learnt of its latency is forgotten, the limit starts over. */
  reset(): void {
    this.#minLatency.clear();
    this.#estimate = this.#initial;
    this.#round += 1;
    this.#clearWindow();
  }

  #clearWindow(): void {
    this.#windowSamples = 0;
    this.#windowInFlight = 0;
    this.#windowAtLoad = 0;
    this.#windowFloor = Number.POSITIVE_INFINITY;
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
