import type { ServerConnection, ServerState } from "../fleet/connection.js";
import type { RequestMethod, ServerAnswers } from "../fleet/requests.js";
import type { FleetLimit } from "./fleet-limit.js";
import { ResultCache } from "./result-cache.js";
import { type GuardedRequest, type GuardState, ServerGuard } from "./server-guard.js";

/** One server as `servers()` reports it: its connection's state and its guard's counters. */
export type ServerInfo = ServerState & GuardState;

/**
 * One configured server as the pipeline sees it: its connection (process, transport, restarts) and its
 * guard (breaker, bulkhead, deadline, retries), kept in step — a server that comes back after it was
 * lost starts with a closed breaker. {@link send} is the one way a request reaches the connection.
 */
export class ManagedServer {
  readonly #connection: ServerConnection;
  readonly #guard: ServerGuard;
  /** The results of its read-only tools, when its config has a `cache`; none: no cost at all. */
  readonly cache: ResultCache | undefined;

  /** `fleet`: the fleet-wide limit (`limits.inFlight`) every server shares, when the config sets one. */
  constructor(connection: ServerConnection, fleet?: FleetLimit) {
    this.#connection = connection;
    this.#guard = new ServerGuard(connection, fleet);
    const cache = connection.config.cache;
    this.cache = cache ? new ResultCache(cache) : undefined;
  }

  get name(): string {
    return this.#connection.name;
  }

  /** The prefix of its tools' catalog names (`namespace`), or false. */
  get namespace(): string | false {
    return this.#connection.config.namespace;
  }

  /** The servers (in order) that serve this one's tool calls while it is down; undefined: none. */
  get fallback(): readonly string[] | undefined {
    return this.#connection.config.fallback;
  }

  /**
   * Whether a request sent now would not be served: the server failed (or needs a login, is disabled
   * or closed), or is restarting — its restart may take its backoff and a connect, and may fail.
   */
  get down(): boolean {
    const status = this.#connection.status;
    return status !== "ready" && status !== "lazy" && status !== "connecting";
  }

  info(): ServerInfo {
    return { ...this.#connection.state(), ...this.#guard.state() };
  }

  /**
   * A request's time on this server: the whole deadline (`timeoutMs` given, else the server's; with
   * `maxTotalTimeoutMs`, progress may stretch it that far) and each try's own timeout.
   */
  budget(timeoutMs: number | undefined): { limitMs: number; attemptMs: number } {
    const config = this.#connection.config;
    const attemptMs = timeoutMs ?? config.timeoutMs;
    return { attemptMs, limitMs: Math.max(attemptMs, config.maxTotalTimeoutMs ?? 0) };
  }

  /** Send an admitted request through the guard to the connection. */
  send<M extends RequestMethod>(
    guarded: GuardedRequest & { request: { method: M } },
  ): Promise<ServerAnswers[M]> {
    return this.#guard.run<M>(guarded);
  }

  /** The connection finished a restart or reconnect: what the breaker counted is over. */
  recovered(): void {
    this.#guard.recovered();
  }
}
