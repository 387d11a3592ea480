import { setTimeout as delay } from "node:timers/promises";
import { abortable } from "../abort.js";
import { DEFAULT_RESTART_STABLE_AFTER_MS } from "../config/defaults.js";
import type { ServerConfig } from "../config/schema.js";
import { type ErrorCode, isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import { type AttemptTarget, attemptOn, pingOn } from "./attempt.js";
import { type CachedServerCatalog, readServerCatalog, rememberServerCatalog } from "./catalog-cache.js";
import { declaresExtension, SKILLS_EXTENSION } from "./extensions.js";
import { HealthChecks } from "./health.js";
import type { AttemptOptions, RequestMethod, ServerAnswers, ServerRequest } from "./requests.js";
import type { ServerLists } from "./server-lists.js";
import type { ConnectionHooks, ServerState, ServerStatus } from "./server-state.js";
import { ServerSession, type SessionOptions } from "./session.js";
import { ServerSubscriptions } from "./subscriptions.js";
import { negotiationFor } from "./version-negotiation.js";

export type { ServerLists } from "./server-lists.js";
export type { ConnectionHooks, Health, ServerState, ServerStatus } from "./server-state.js";
export { CLIENT_INFO } from "./session.js";

const NO_LISTS: ServerLists = Object.freeze({ tools: [], resources: [], resourceTemplates: [], prompts: [] });

/**
 * One configured server over its whole life: connects it (or, `lazy`, lists it from its cache until the
 * first request), restarts it when it is lost (with backoff, up to `restart.maxRestarts`; requests that
 * arrive meanwhile wait), pings it when asked, and carries its requests — one attempt each, through
 * {@link attempt}, which only the call pipeline's server guard uses. Each life is a {@link ServerSession}.
 */
export class ServerConnection {
  readonly config: ServerConfig;
  readonly #hooks: ConnectionHooks;
  readonly #log: Logger;
  #status: ServerStatus;
  #session: ServerSession | undefined;
  /** What the server negotiated in its last life: a restart opens with it and does not probe again. */
  #negotiated: SessionOptions["versionNegotiation"];
  /** Replaced whole on each change, never changed in place (request plans are cached per tool list). */
  #lists: ServerLists = NO_LISTS;
  readonly #subscriptions: ServerSubscriptions;
  /** What an attempt sees of this connection. */
  readonly #target: AttemptTarget;
  readonly #health = new HealthChecks();
  #connectMs: number | undefined;
  #error: string | undefined;
  #errorCode: ErrorCode | undefined;
  /** The last connect attempt failed for want of an OAuth login. */
  #needsAuth = false;
  /** Counts the server's lives: failures within one life share an incident. */
  #generation = 0;
  #noiseReported = false;
  #closing: Promise<void> | undefined;
  #restarts = 0;
  #restartsInRow = 0;
  /** Pings in a row this life left unanswered; `health.maxFailures` of them restart a server with a process. */
  #unansweredPings = 0;
  #upSince = 0;
  /** Resolves when a restart is over, one way or the other; requests that arrive meanwhile wait on it. */
  #restartOver: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Aborted on close: ends restart backoffs early. */
  readonly #lifetime = new AbortController();
  /** A lazy server's catalog from its last life, while it is not started. */
  #cached: CachedServerCatalog | undefined;
  /** A lazy server starting: every request that needs it waits on this one start. */
  #starting: Promise<void> | undefined;

  constructor(config: ServerConfig, hooks: ConnectionHooks) {
    this.config = config;
    this.#hooks = hooks;
    this.#log = hooks.logger.child({ server: config.name });
    this.#status = config.disabled ? "disabled" : "connecting";
    this.#subscriptions = new ServerSubscriptions(config.name);
    this.#target = {
      name: config.name,
      isReady: () => this.#status === "ready",
      unavailable: () => (this.#status !== "ready" ? this.#error : undefined),
      ready: async (what, signal) => {
        await this.#ready(what, signal);
        return this.#session!;
      },
      incident: () => this.#incident(),
      lost: (session) => this.#lost(session),
      tools: () => this.#lists.tools,
      subscriptions: this.#subscriptions,
      log: this.#log,
    };
  }

  get name(): string {
    return this.config.name;
  }

  get status(): ServerStatus {
    return this.#status;
  }

  /** What the server listed in its current life (a lazy one: from its cache), every page, unfiltered. */
  get lists(): Readonly<ServerLists> {
    return this.#lists;
  }

  /** The server's `instructions` from the handshake, if any (a lazy server's: from its cache). */
  get instructions(): string | undefined {
    const client = this.#session?.client;
    return client ? client.getInstructions() : this.#cached?.instructions;
  }

  state(): ServerState {
    const client = this.#session?.client;
    const state: ServerState = {
      name: this.name,
      status: this.#status,
      transport: this.#session?.transportKind ?? this.config.transport,
      tools: this.#lists.tools.length,
      resources: this.#lists.resources.length,
      prompts: this.#lists.prompts.length,
      tasks: this.#session?.tasks.inFlight ?? 0,
      restarts: this.#restarts,
      health: this.#health.state,
    };
    const protocolVersion = client?.getNegotiatedProtocolVersion();
    const serverInfo = client?.getServerVersion() ?? (client ? undefined : this.#cached?.serverInfo);
    const pid = this.#session?.process?.pid;
    if (protocolVersion) state.protocolVersion = protocolVersion;
    if (this.#connectMs !== undefined) state.connectMs = this.#connectMs;
    if (this.#error !== undefined) state.error = this.#error;
    if (this.#errorCode !== undefined) state.errorCode = this.#errorCode;
    if (serverInfo) state.serverInfo = { name: serverInfo.name, version: serverInfo.version };
    if (pid !== undefined) state.pid = pid;
    if (declaresExtension(client?.getServerCapabilities(), SKILLS_EXTENSION)) state.skills = true;
    return state;
  }

  /**
   * Start the server (or reach it), run the handshake and list what it offers, within
   * `connectTimeoutMs`. Never throws: a failure leaves the connection `failed` with a reason.
   */
  async connect(signal?: AbortSignal): Promise<void> {
    if (this.#status !== "connecting") return;
    if (this.config.lazy) {
      const cached = readServerCatalog(this.config);
      if (cached) {
        this.#cached = cached;
        this.#lists = cached;
        this.#setStatus("lazy");
        this.#log.info({ tools: cached.tools.length }, "lazy: listed from its cache, not started");
        return;
      }
    }
    const failure = await this.#open(signal);
    if (this.#status !== "connecting") return;
    if (failure) return this.#fail(failure, `failed to connect: ${failure}`, this.#hooks.failureLogLevel);
    this.#becomeReady();
    this.#log.info({ ms: this.#connectMs, tools: this.#lists.tools.length }, "connected");
    this.#startHealthChecks();
    this.#remember();
  }

  /**
   * Send one request: exactly one attempt, after waiting through a lazy start or a restart under way.
   * Retries, the deadline and the breaker belong to the caller (the call pipeline's server guard, the
   * one caller); every failure comes back classified (`delivery`, `serverFault`, `incident`).
   * @throws SwitchyardError `SERVER_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`, `INVALID_ARGUMENTS`,
   *   `INVALID_RESULT`, `CAPABILITY_MISSING`, `AUTH_REQUIRED`, `RESULT_TOO_LARGE` or `SERVER_ERROR`.
   */
  attempt<M extends RequestMethod>(
    request: Extract<ServerRequest, { method: M }>,
    options: AttemptOptions,
  ): Promise<ServerAnswers[M]> {
    // Nothing to tell a server that is not there, or of a URI it was never subscribed to.
    const asked = request as ServerRequest;
    if (asked.method === "resources/unsubscribe" && this.#status !== "ready") {
      this.#subscriptions.forget(asked.uri);
      return Promise.resolve(undefined as ServerAnswers[M]);
    }
    const generation = this.#generation;
    return attemptOn(this.#target, request, options).then((answer) => {
      if (generation === this.#generation) this.#unansweredPings = 0; // the connection carries requests
      return answer;
    });
  }

  /**
   * Ask the server whether it is alive (the breaker's probe, the health check): `ping`, or
   * `server/discover` on the 2026-07-28 revision.
   * @throws SwitchyardError `SERVER_UNAVAILABLE` or `TIMEOUT`.
   */
  async ping(timeoutMs = this.config.health.timeoutMs): Promise<void> {
    const generation = this.#generation;
    try {
      await pingOn(this.#target, timeoutMs);
      this.#unansweredPings = 0;
    } catch (error) {
      if (generation === this.#generation) this.#pingUnanswered(error, timeoutMs);
      throw error;
    }
  }

  /**
   * A ping got no answer (it timed out, or could not be sent): a server whose process lives on but whose
   * connection carries nothing any more is restarted like a crashed one after `health.maxFailures` in a
   * row. A remote server is left to its breaker: a new session would not reach it sooner.
   */
  #pingUnanswered(error: unknown, timeoutMs: number): void {
    const session = this.#session;
    const noAnswer =
      isSwitchyardError(error) && (error.code === "TIMEOUT" || error.code === "SERVER_UNAVAILABLE");
    if (!noAnswer || this.#status !== "ready" || !session?.process) return;
    this.#unansweredPings += 1;
    const { maxFailures } = this.config.health;
    if (maxFailures === 0 || this.#unansweredPings < maxFailures) return;
    this.#lost(
      session,
      `its process runs, but ${this.#unansweredPings} pings in a row got no answer within ${timeoutMs} ms (health.maxFailures)`,
    );
  }

  /**
   * Wait until the server can take a request: at once when ready; through a lazy start or a restart
   * under way; never for a failed, disabled or closed server.
   * @throws SwitchyardError `SERVER_UNAVAILABLE`, or the signal's reason when it aborts first.
   */
  async #ready(what: string, signal?: AbortSignal): Promise<void> {
    if (this.#status === "lazy") await abortable(this.#start(), signal);
    const restart = this.#restartOver;
    if (this.#status === "restarting" && restart) await abortable(restart.promise, signal);
    if (this.#status !== "ready" || !this.#session?.client) {
      throw new SwitchyardError(
        "SERVER_UNAVAILABLE",
        `server ${this.name} is ${this.#status}${this.#error ? `: ${this.#error}` : ""}; ${what} cannot be called`,
        { server: this.name, tool: what, delivery: "final", serverFault: false },
      );
    }
  }

  /**
   * Start a lazy server now, once for every request that waits on it: it is `ready` (its own lists
   * replace the cached ones, and the cache is written again) or `failed`. Never throws.
   */
  #start(): Promise<void> {
    this.#starting ??= (async () => {
      const failure = await this.#open();
      if (this.#status !== "lazy") {
        await this.#session?.close(); // closed meanwhile
        return;
      }
      this.#cached = undefined;
      if (failure) return this.#fail(failure, `failed to start: ${failure}`, this.#hooks.failureLogLevel);
      this.#becomeReady();
      this.#log.info({ ms: this.#connectMs, tools: this.#lists.tools.length }, "started on first use");
      this.#startHealthChecks();
      this.#remember();
      this.#listsChanged(); // what it lists now may differ from the cache
    })().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /**
   * Keep what a lazy server (or, with `cacheCatalogs`, any server) lists for a later lazy connect; a
   * cache that cannot be written is no matter.
   */
  #remember(): void {
    const client = this.#session?.client;
    if (client && (this.config.lazy || this.#hooks.cacheCatalogs))
      rememberServerCatalog(this.config, client, this.#lists);
  }

  /**
   * Connect again from scratch: a server that failed (at startup, or after its restarts ran out) — or,
   * with `failedOnly: false`, a ready one too — gets a new process or session, a handshake and its
   * lists. Never throws; disabled and closed servers are left alone.
   */
  async reconnect(options: { failedOnly?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    const failedOnly = options.failedOnly ?? true;
    if (this.#closing || this.#status === "disabled") return;
    const settledDown = this.#status === "failed" || this.#status === "needs-auth";
    if (!settledDown && (failedOnly || this.#status !== "ready")) return;
    const wasReady = this.#status === "ready";
    this.#setStatus("connecting");
    await this.#session?.close();
    this.#restartsInRow = 0;
    this.#error = undefined;
    this.#errorCode = undefined;
    this.#negotiated = undefined; // from scratch: the server may have been upgraded meanwhile
    const failure = await this.#open(options.signal);
    if ((this.#status as ServerStatus) !== "connecting") return;
    if (failure) return this.#fail(failure, `failed to reconnect: ${failure}`);
    this.#becomeReady(true);
    this.#remember();
    this.#log.info({ ms: this.#connectMs, tools: this.#lists.tools.length, wasReady }, "reconnected");
    this.#listsChanged();
    this.#startHealthChecks();
  }

  /** Stop the server (stdio: stdin, SIGTERM, SIGKILL) and release everything. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#status !== "disabled") this.#setStatus("closed");
      this.#health.stop();
      this.#lifetime.abort();
      this.#restartDone();
      await this.#session?.close();
    })();
    return this.#closing;
  }

  async #open(signal?: AbortSignal): Promise<string | undefined> {
    const session = new ServerSession(
      this.config,
      {
        logger: this.#log,
        ...(this.#hooks.wire ? { wire: this.#hooks.wire } : {}),
        onNoise: (line) => this.#noise(line),
        onLost: (why) => this.#lost(session, why),
        onToolsChanged: (error, tools) => this.#listChanged(session, "tools", error, tools && { tools }),
        onResourcesChanged: (error, lists) => this.#listChanged(session, "resources", error, lists),
        onPromptsChanged: (error, prompts) =>
          this.#listChanged(session, "prompts", error, prompts && { prompts }),
        onResourceUpdated: (uri) => {
          if (session === this.#session) this.#hooks.onResourceUpdated?.(this.name, uri);
        },
        ...(this.#hooks.requests ? { requests: this.#hooks.requests } : {}),
      },
      this.#negotiated !== undefined ? { versionNegotiation: this.#negotiated } : {},
    );
    this.#session = session;
    this.#generation += 1;
    try {
      await session.open(signal);
      const { tools, resources, resourceTemplates, prompts } = session;
      this.#lists = { tools, resources, resourceTemplates, prompts };
      this.#connectMs = session.connectMs;
      this.#negotiated = negotiationFor(session.client?.getNegotiatedProtocolVersion());
      this.#needsAuth = false;
      return undefined;
    } catch (error) {
      this.#errorCode = isSwitchyardError(error) ? error.code : undefined;
      this.#needsAuth = session.needsLogin;
      return messageOf(error);
    }
  }

  /** The incident a failure in the server's current life belongs to. */
  #incident(): string {
    return `${this.name}#${this.#generation}`;
  }

  /** The server was lost: restart it within the limits, or give up and mark it failed. */
  #lost(session: ServerSession, why = "the connection closed"): void {
    if (this.#status !== "ready" || session !== this.#session) return;
    const reason = session.describeExit(why);
    if (Date.now() - this.#upSince > DEFAULT_RESTART_STABLE_AFTER_MS) this.#restartsInRow = 0;
    if (this.#restartsInRow >= this.config.restart.maxRestarts) {
      const gaveUp =
        this.config.restart.maxRestarts > 0 ? `; gave up after ${this.#restartsInRow} restart(s)` : "";
      void session.close();
      this.#fail(`${reason}${gaveUp}`, `server lost: ${reason}${gaveUp}`);
      return;
    }
    this.#error = reason;
    this.#restartOver ??= deferred();
    this.#setStatus("restarting");
    this.#log.warn({}, `server lost (${reason}); restarting`);
    void this.#restart();
  }

  /** Bring a lost server back with the same config; the wait doubles each time, up to `maxRestarts`. */
  async #restart(): Promise<void> {
    const { maxRestarts, backoffMs } = this.config.restart;
    while (this.#status === "restarting") {
      if (this.#restartsInRow >= maxRestarts) {
        this.#fail(`${this.#error}; gave up after ${maxRestarts} restart(s)`, "restarts exhausted");
        return;
      }
      await this.#session?.close();
      // Not unref'd: requests may be waiting for this restart, and nothing else may keep the process up.
      await delay(backoffMs * 2 ** this.#restartsInRow, undefined, { signal: this.#lifetime.signal }).catch(
        () => {},
      );
      this.#restartsInRow += 1;
      this.#restarts += 1;
      if (this.#status !== "restarting") return;
      const failure = await this.#open();
      if ((this.#status as ServerStatus) !== "restarting") {
        await this.#session?.close();
        return;
      }
      if (!failure) {
        this.#error = undefined;
        this.#errorCode = undefined;
        this.#becomeReady(true);
        this.#remember();
        this.#log.info({ restarts: this.#restarts }, "restarted");
        this.#listsChanged();
        return;
      }
      this.#error = failure;
      this.#log.warn({}, `restart ${this.#restartsInRow} failed: ${failure}`);
    }
  }

  /** Tell the hooks of every list the server has, and subscribe again, after a new life began. */
  #listsChanged(): void {
    const { tools, resources, resourceTemplates, prompts } = this.#lists;
    this.#hooks.onToolsChanged?.(this.name, tools);
    this.#hooks.onResourcesChanged?.(this.name, resources, resourceTemplates);
    this.#hooks.onPromptsChanged?.(this.name, prompts);
    const client = this.#session?.client;
    if (client) this.#subscriptions.resubscribe(client, this.#log);
  }

  /** A list the server said changed was listed again (or could not be): keep it and tell the hooks. */
  #listChanged(
    session: ServerSession,
    list: "tools" | "resources" | "prompts",
    error: Error | null,
    lists: Partial<ServerLists> | null,
  ): void {
    if (this.#status !== "ready" || session !== this.#session) return;
    if (error || !lists) {
      this.#log.warn(
        {},
        `could not list ${list} again after list_changed: ${error ? error.message : "none"}`,
      );
      return;
    }
    this.#lists = { ...this.#lists, ...lists };
    this.#remember();
    this.#log.info(
      { [list]: this.#lists[list].length },
      `${list === "tools" ? "tool" : list.slice(0, -1)} list changed`,
    );
    if (list === "tools") this.#hooks.onToolsChanged?.(this.name, this.#lists.tools);
    else if (list === "prompts") this.#hooks.onPromptsChanged?.(this.name, this.#lists.prompts);
    else this.#hooks.onResourcesChanged?.(this.name, this.#lists.resources, this.#lists.resourceTemplates);
  }

  #becomeReady(recovered = false): void {
    this.#upSince = Date.now();
    this.#unansweredPings = 0;
    this.#setStatus("ready", recovered);
    this.#restartDone();
  }

  #fail(reason: string, logLine: string, level: "warn" | "info" = "warn"): void {
    this.#error = reason;
    this.#setStatus(this.#needsAuth ? "needs-auth" : "failed");
    this.#log[level]({}, logLine);
    this.#restartDone();
  }

  #setStatus(status: ServerStatus, recovered = false): void {
    if (this.#status === status) return;
    this.#status = status;
    this.#hooks.onStatus?.(this.name, status, recovered);
  }

  /** Wake the requests waiting for a restart: it is over, one way or the other. */
  #restartDone(): void {
    this.#restartOver?.resolve();
    this.#restartOver = undefined;
  }

  #startHealthChecks(): void {
    this.#health.start(this.config.health.intervalMs, {
      ready: () => this.#status === "ready",
      ping: () => this.ping(),
      log: this.#log,
    });
  }

  #noise(line: string): void {
    if (this.#noiseReported) return;
    this.#noiseReported = true;
    const sample = line.length > 200 ? `${line.slice(0, 200)}…` : line;
    this.#log.warn(
      { sample },
      "the server prints non-JSON-RPC lines on stdout; they are skipped (servers should log to stderr)",
    );
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
