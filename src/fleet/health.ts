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

  /** (Re)start pinging every `intervalMs` (none: stop); a failing server is warned about once. */
  start(
    intervalMs: number | undefined,
    check: { ready(): boolean; ping(): Promise<void>; log: Logger },
  ): void {
    this.stop();
    if (!intervalMs) return;
    this.#timer = setInterval(() => {
      if (!check.ready()) return;
      check.ping().then(
        () => {
          this.#health = "ok";
        },
        (error: unknown) => {
          if (this.#health !== "failing") check.log.warn({}, `health ping failed: ${messageOf(error)}`);
          this.#health = "failing";
        },
      );
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
