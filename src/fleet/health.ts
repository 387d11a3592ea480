import { messageOf } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { Health } from "./server-state.js";

/**
 * A server's health checks, when `health.intervalMs` asks for them: a ping every interval while the
 * server is ready, and what the last one said. The timer never holds the process.
 */
export class HealthChecks {
  #timer: NodeJS.Timeout | undefined;
  #health: Health = "unknown";

  /** What the last ping said: `unknown` until one ran. */
  get state(): Health {
    return this.#health;
  }

  /**
   * (Re)start pinging every `intervalMs` (none: stop), one ping at a time; a failing server is warned
   * about once. Pings left unanswered count towards a restart where the connection counts them.
   */
  start(
    intervalMs: number | undefined,
    check: { ready(): boolean; ping(): Promise<void>; log: Logger },
  ): void {
    this.stop();
    if (!intervalMs) return;
    let pinging = false;
    this.#timer = setInterval(() => {
      // One ping at a time: a ping slower than the interval is not joined by more.
      if (pinging || !check.ready()) return;
      pinging = true;
      check
        .ping()
        .then(
          () => {
            this.#health = "ok";
          },
          (error: unknown) => {
            if (this.#health !== "failing") check.log.warn({}, `health ping failed: ${messageOf(error)}`);
            this.#health = "failing";
          },
        )
        .finally(() => {
          pinging = false;
        });
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
