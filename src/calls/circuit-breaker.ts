import { abortable, type Clock, monotonicClock } from "../abort.js";
import { SwitchyardError } from "../errors.js";

/** Where a breaker stands: `closed` lets calls through, `open` fails them fast, `probing` is deciding. */
export type BreakerState = "closed" | "open" | "probing";

export interface CircuitBreakerOptions {
  server: string;
  /** Consecutive failures that open the breaker. */
  failureThreshold: number;
  /** How long it stays open before one probe decides. */
  cooldownMs: number;
  /** The probe: resolves when the server is healthy (a `ping`). */
  probe: () => Promise<void>;
  /** Told each time the breaker opens. */
  onOpen?: () => void;
  /** What the cooldown is measured on; default the monotonic clock every deadline reads. */
  clock?: Clock;
}

/**
 * A circuit breaker per server: `failureThreshold` consecutive failures open it; calls then fail fast
 * with `CIRCUIT_OPEN` until `cooldownMs` passes; then one probe (a ping) decides — success closes it,
 * failure opens it for another cooldown. Calls that arrive while the probe runs wait for its verdict.
 */
export class CircuitBreaker {
  readonly #options: CircuitBreakerOptions;
  #state: BreakerState = "closed";
  #failures = 0;
  /** Incidents already counted since the last success: failures that share a cause count once. */
  readonly #incidents = new Set<string>();
  #openedAt = 0;
  #opened = 0;

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
  }

  get state(): BreakerState {
    return this.#state;
  }

  /** How many times the breaker has opened. */
  get openings(): number {
    return this.#opened;
  }

  /**
   * Let a call through, or refuse it.
   * @throws SwitchyardError `CIRCUIT_OPEN` naming the server, the tool and when to try again.
   */
  async admit(tool: string, signal?: AbortSignal): Promise<void> {
    if (this.#state === "closed") return;
    const waited = this.#now() - this.#openedAt;
    // While open, and while another call's probe decides, calls fail fast.
    if (this.#state === "probing" || waited < this.#options.cooldownMs) {
      throw this.#refusal(tool, Math.max(0, this.#options.cooldownMs - waited));
    }
    const probe = this.#runProbe();
    await abortable(probe, signal);
    // The probe changed the state while this call waited.
    if ((this.#state as BreakerState) !== "closed") throw this.#refusal(tool, this.#options.cooldownMs);
  }

  /** A call succeeded: the failure count starts again. */
  success(): void {
    this.#failures = 0;
    this.#incidents.clear();
  }

  /**
   * A call failed in a way that says the server is unwell (not a tool error, not bad arguments).
   * Failures of one `incident` (the calls in flight when a connection was lost) count once.
   */
  failure(incident?: string): void {
    if (incident !== undefined) {
      if (this.#incidents.has(incident)) return;
      this.#incidents.add(incident);
    }
    this.#failures += 1;
    if (this.#state === "closed" && this.#failures >= this.#options.failureThreshold) this.#open();
  }

  /** The server came back (a restart or reconnect finished its handshake): close the breaker. */
  reset(): void {
    if (this.#state === "probing") return; // the probe under way decides
    this.#state = "closed";
    this.success();
  }

  async #runProbe(): Promise<void> {
    this.#state = "probing";
    try {
      await this.#options.probe();
      this.#state = "closed";
      this.#failures = 0;
    } catch {
      this.#open();
    }
  }

  #open(): void {
    this.#state = "open";
    this.#openedAt = this.#now();
    this.#opened += 1;
    this.#options.onOpen?.();
  }

  #now(): number {
    return (this.#options.clock ?? monotonicClock).now();
  }

  #refusal(tool: string, retryInMs: number): SwitchyardError {
    const { server, failureThreshold } = this.#options;
    return new SwitchyardError(
      "CIRCUIT_OPEN",
      `server ${server} failed ${failureThreshold} times in a row, so calls to it (here ${tool}) fail fast; the next try is in ${Math.max(0, Math.round(retryInMs))} ms (circuitBreaker.cooldownMs; circuitBreaker.failureThreshold sets how many failures open it)`,
      { server, tool },
    );
  }
}
