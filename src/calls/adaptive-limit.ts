/**
 * An adaptive concurrency limit for one server: a gradient limiter in the manner of Netflix's
 * concurrency-limits (`Gradient`) and Envoy's adaptive concurrency filter, small enough to read whole.
 *
 * Each served call is a latency sample, compared with the lowest latency seen for the same tool (a
 * server's tools differ: a slow search and a fast lookup each have their own minimum). Samples are
 * taken in windows of half the limit; at the end of a window its median ratio to the threshold —
 * `tolerance` × the minimum, or the minimum plus `slackMs`, whichever is more (below a few
 * milliseconds the differences are the client's and the pipe's, not the server's) — decides: within
 * it, the limit grows by √limit × min(1, 2 × (1 − ratio)) (if the calls used at least half of it: it settles
 * where latency meets the threshold instead of overshooting); past it, the limit is multiplied by
 * 1 / ratio (at least ½). A timeout or a server fault is a drop: the limit is multiplied by 0.9 (AIMD).
 * After any change, the calls already in flight no longer count (they saw the old limit's load): one
 * change per round trip, as TCP's congestion window, and one stall or one burst of timeouts decreases
 * the limit once, not once per call. The limit stays within `min` and `max`.
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
  /** The current window's samples: each latency ÷ its tool's threshold. */
  #window: number[] = [];
  /** The most calls in flight any of the window's calls left with. */
  #windowInFlight = 0;

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
    this.#window.push(latency / threshold);
    this.#windowInFlight = Math.max(this.#windowInFlight, flight.inFlight);
    if (this.#window.length < Math.ceil(this.limit / 2)) return;
    const ratio = median(this.#window);
    const used = this.#windowInFlight >= this.#estimate / 2;
    this.#window = [];
    this.#windowInFlight = 0;
    if (ratio <= 1) {
      // Unloaded; and if the calls used the limit, there is room for more: √limit while latency is
      // under half the threshold, less the nearer it gets (so that it settles there, not past it).
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
    this.#window = [];
    this.#windowInFlight = 0;
  }

  /** The server is a new process: what was learnt of its latency is forgotten, the limit starts over. */
  reset(): void {
    this.#minLatency.clear();
    this.#estimate = this.#initial;
    this.#round += 1;
    this.#window = [];
    this.#windowInFlight = 0;
  }
}

function median(values: number[]): number {
  const sorted = values.sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
