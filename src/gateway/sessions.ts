// The gateway's 2025-11-25 HTTP sessions: one server instance and transport each, held in this process
// (at most `maxSessions`), sealed into their ids (session-seal.ts) or kept in a session store, so that any
// replica takes up a session another began. Each identity has at most `sessionsPerUser` (here and in the store); a session
// unused for `idleMs` is ended, here and in the store.
import { randomUUID } from "node:crypto";
import type { AuthInfo, Server } from "@modelcontextprotocol/server";
import type { Clock } from "../abort.js";
import {
  DEFAULT_GATEWAY_MAX_SESSIONS,
  DEFAULT_GATEWAY_SESSION_IDLE_MS,
  DEFAULT_GATEWAY_SESSION_RECLAIM_MS,
  DEFAULT_GATEWAY_SESSION_SWEEP_MS,
  DEFAULT_GATEWAY_SESSION_TOUCH_MS,
  DEFAULT_GATEWAY_SESSIONS_PER_USER,
} from "../config/defaults.js";
import type { Store } from "../store/store.js";
import { limitOf, tooManyRequests } from "./limits.js";
import { anotherUsers, isoAt, sessionExpired, sessionNotFound } from "./session-refusals.js";
import { SEALED_PREFIX, type SessionSeal } from "./session-seal.js";
import { SessionTransport } from "./session-transport.js";

/** What the gateway needs of a store to share its 2025-11-25 sessions (every `Store` has it). */
export type GatewaySessionStore = Pick<
  Store,
  | "saveGatewaySession"
  | "gatewaySession"
  | "touchGatewaySession"
  | "dropGatewaySession"
  | "pruneGatewaySessions"
  | "gatewaySessionsOf"
>;

/** The wall clock (ms since the epoch): sessions' last uses are times of day, kept in the store. */
const wallClock: Clock = { now: () => Date.now() };

/** What taking up a stored session gives when the session is another user's. */
const ANOTHER_USERS = Symbol("another user's session");

/** A session to take up: whose it is and the `initialize` to replay (from its sealed id or the store). */
interface FoundSession {
  user: string;
  initialize: unknown;
  /** Sealed: when the id stops being accepted (ms since the epoch). */
  expiresAt?: number | undefined;
}

/** A 2025-11-25 session this process holds. */
interface HeldSession {
  transport: SessionTransport;
  user: string;
  /** When a request last came for it (ms since the epoch). */
  usedAt: number;
  /** When its last use was written to the session store (ms since the epoch). */
  touchedAt: number;
  /** Sealed: when its id stops being accepted (ms since the epoch), on every replica alike. */
  expiresAt?: number | undefined;
}

/** Options of {@link HttpSessions}. */
export interface HttpSessionsOptions {
  /** A new server instance for a session (the gateway keeps it told of changes until it closes). */
  serve: () => Server;
  /** Sessions kept at most; default {@link DEFAULT_GATEWAY_MAX_SESSIONS}. */
  maxSessions?: number | undefined;
  /** Sessions one user may have, here and in the store; default {@link DEFAULT_GATEWAY_SESSIONS_PER_USER}. */
  sessionsPerUser?: number | undefined;
  /** A session unused this long is ended; default {@link DEFAULT_GATEWAY_SESSION_IDLE_MS}. */
  idleMs?: number | undefined;
  /** The wall clock (ms since the epoch) sessions' uses are read from; default `Date.now`. */
  clock?: Clock | undefined;
  /** Where sessions are kept beside this process's memory, for other replicas and restarts. */
  store?: GatewaySessionStore | undefined;
  /**
   * Seals each new session into its id (`gateway.sessionKey`): any replica with the key takes it up, and
   * the store is not used for sessions (ids of before, not sealed, are still looked up there).
   */
  seal?: SessionSeal | undefined;
  /** Told of sessions the store could not keep or give back (the session then lives here only). */
  onStoreError?: ((error: unknown) => void) | undefined;
}

/**
 * The 2025-11-25 HTTP sessions (`Mcp-Session-Id`) this process holds. Past `maxSessions` the one unused
 * longest is ended here (not in the store): its client gets 404 `Session not found` and starts another.
 * A user with `sessionsPerUser` sessions (here and in the store) is answered 429 for another, unless
 * its session unused longest has gone unused `DEFAULT_GATEWAY_SESSION_RECLAIM_MS`: that one is ended
 * for it. A session unused `idleMs` is ended (404) and its row deleted: when a request names it, and by
 * a sweep when this starts and at most every `DEFAULT_GATEWAY_SESSION_SWEEP_MS` after.
 * @throws SwitchyardError `INVALID_INPUT` when a limit is not a positive integer.
 */
export class HttpSessions {
  readonly #serve: () => Server;
  readonly #maxSessions: number;
  readonly #perUser: number;
  readonly #idleMs: number;
  readonly #clock: Clock;
  readonly #store: GatewaySessionStore | undefined;
  readonly #seal: SessionSeal | undefined;
  /** Tells `onStoreError` (a session the store could not keep or give back lives here only). */
  readonly #storeFailed: (error: unknown) => void;
  /** By id, the most recently used last. */
  readonly #sessions = new Map<string, HeldSession>();
  /** Sessions being taken up from the store (by id and user): two requests for one come together, one replay. */
  readonly #restoring = new Map<string, Promise<HeldSession | typeof ANOTHER_USERS | undefined>>();
  /** Each user's sessions being begun, one after another: the last in line, by user. */
  readonly #beginning = new Map<string, Promise<unknown>>();
  /** When the next sweep of unused sessions is due (ms since the epoch). */
  #sweepAt = 0;

  constructor(options: HttpSessionsOptions) {
    this.#maxSessions = limitOf("maxSessions", options.maxSessions, DEFAULT_GATEWAY_MAX_SESSIONS);
    this.#perUser = limitOf("sessionsPerUser", options.sessionsPerUser, DEFAULT_GATEWAY_SESSIONS_PER_USER);
    this.#idleMs = limitOf("sessionIdleMs", options.idleMs, DEFAULT_GATEWAY_SESSION_IDLE_MS);
    this.#serve = options.serve;
    this.#clock = options.clock ?? wallClock;
    this.#store = options.store;
    this.#seal = options.seal;
    this.#storeFailed = (error) => options.onStoreError?.(error);
    this.#sweep(); // the rows that expired while no gateway was running
  }

  /**
   * Answer one 2025-11-25 request of `user`: in its session (held here, or taken up from the store),
   * or, with no session id, as the `initialize` that begins one. 404 for an unknown session, 403 for
   * another user's.
   */
  async handle(
    request: Request,
    { user, ...given }: { user: string; authInfo: AuthInfo; parsedBody?: unknown },
  ): Promise<Response> {
    const now = this.#clock.now();
    if (now >= this.#sweepAt) this.#sweep();
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const held = this.#sessions.get(id);
      if (held && held.expiresAt !== undefined && now >= held.expiresAt) {
        void this.#end(id, held);
        return sessionExpired(held.expiresAt);
      }
      if (held && this.#expired(held.usedAt)) {
        void this.#end(id, held);
        return sessionNotFound();
      }
      const session = held ?? (await this.#takeUp(id, user, given.authInfo));
      if (session instanceof Response) return session;
      if (!session) return sessionNotFound();
      if (session === ANOTHER_USERS || session.user !== user) return anotherUsers();
      this.#use(id, session, now);
      return session.transport.handleRequest(request, given);
    }
    // The initialize request, kept with the session for a replica that takes it up.
    const initialize =
      given.parsedBody === undefined
        ? await request
            .clone()
            .json()
            .catch(() => undefined)
        : given.parsedBody;
    const begin = async () => {
      const refusal = isInitialize(initialize) ? await this.#makeRoom(user, initialize.id) : undefined;
      if (refusal) return refusal;
      const seal = this.#seal;
      const transport = this.#transport(
        user,
        seal ? () => seal.seal(user, initialize) : randomUUID,
        () => initialize,
      );
      await this.#serve().connect(transport);
      // Resolves once the session is held and kept in the store: the next in line counts it.
      return transport.handleRequest(request, given);
    };
    // One user's sessions are begun one after another, so that two at once cannot both take the last place.
    const turn = (this.#beginning.get(user) ?? Promise.resolve()).then(begin);
    const last = turn.catch(() => {});
    this.#beginning.set(user, last);
    void last.then(() => {
      if (this.#beginning.get(user) === last) this.#beginning.delete(user);
    });
    return turn;
  }

  /**
   * The transport of session `id` when this process holds it for `user` and it may be used now (it is
   * then marked used), for a request served on it directly; else undefined, and `handle` answers the
   * request (a session to take up, expired, another user's, ended).
   */
  heldFor(id: string, user: string): SessionTransport | undefined {
    const now = this.#clock.now();
    if (now >= this.#sweepAt) this.#sweep();
    const held = this.#sessions.get(id);
    if (
      !held ||
      held.user !== user ||
      held.transport.closed ||
      (held.expiresAt !== undefined && now >= held.expiresAt) ||
      this.#expired(held.usedAt)
    )
      return undefined;
    this.#use(id, held, now);
    return held.transport;
  }

  /** Mark a session used now: the most recently used last (past `maxSessions` the one unused longest goes). */
  #use(id: string, session: HeldSession, now: number): void {
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
    session.usedAt = now;
    const store = this.#store;
    if (store && now - session.touchedAt >= DEFAULT_GATEWAY_SESSION_TOUCH_MS) {
      session.touchedAt = now;
      void store.touchGatewaySession(id, isoAt(now)).catch(this.#storeFailed);
    }
  }

  /** End every session held here (they stay in the store, for another replica). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#sessions.values()].map((session) => session.transport.close()));
    this.#sessions.clear();
  }

  /**
   * Room for one more session of `user`: undefined when it has fewer than `sessionsPerUser` (here and
   * in the store), or when the ones in the way have gone unused `DEFAULT_GATEWAY_SESSION_RECLAIM_MS`
   * (they are ended); else the 429 to answer with (`id`: the `initialize` request's).
   */
  async #makeRoom(user: string, id: unknown): Promise<Response | undefined> {
    const now = this.#clock.now();
    const uses = new Map<string, number>();
    for (const [sessionId, session] of this.#sessions)
      if (session.user === user && !this.#expired(session.usedAt)) uses.set(sessionId, session.usedAt);
    // Sealed sessions are not in the store: each replica counts those it holds.
    const stored = await (this.#seal ? undefined : this.#store)
      ?.gatewaySessionsOf(user, isoAt(now - this.#idleMs))
      .catch((error) => void this.#storeFailed(error));
    for (const row of stored ?? []) uses.set(row.id, Math.max(uses.get(row.id) ?? 0, Date.parse(row.usedAt)));
    if (uses.size < this.#perUser) return undefined;
    const inTheWay = [...uses].sort((a, b) => a[1] - b[1]).slice(0, uses.size - this.#perUser + 1);
    const lastUse = Math.max(...inTheWay.map(([, usedAt]) => usedAt));
    if (now - lastUse >= DEFAULT_GATEWAY_SESSION_RECLAIM_MS) {
      await Promise.all(inTheWay.map(([sessionId]) => this.#end(sessionId, this.#sessions.get(sessionId))));
      return undefined;
    }
    const reclaimMinutes = Math.round(DEFAULT_GATEWAY_SESSION_RECLAIM_MS / 60_000);
    return tooManyRequests({
      limit: "sessionsPerUser",
      max: this.#perUser,
      user,
      retryAfterMs: lastUse + DEFAULT_GATEWAY_SESSION_RECLAIM_MS - now,
      what: "sessions",
      hint: `end one it no longer uses (an HTTP DELETE with its Mcp-Session-Id) before starting another (one unused for ${reclaimMinutes} min gives its place to a new one)`,
      id,
    });
  }

  /** Whether a session last used at `usedAt` has gone unused past `idleMs`. */
  #expired(usedAt: number): boolean {
    return usedAt < this.#clock.now() - this.#idleMs;
  }

  /** End a session: here when it is held, and in the store (its next request is 404 everywhere). */
  async #end(id: string, held: HeldSession | undefined): Promise<void> {
    if (held && this.#sessions.get(id) === held) this.#sessions.delete(id);
    void held?.transport.close().catch(() => {});
    await this.#store?.dropGatewaySession(id).catch(this.#storeFailed);
  }

  /** End the sessions held here that went unused past `idleMs`, and delete the store's; the next is due later. */
  #sweep(): void {
    const now = this.#clock.now();
    this.#sweepAt = now + DEFAULT_GATEWAY_SESSION_SWEEP_MS;
    for (const [id, session] of this.#sessions)
      if (this.#expired(session.usedAt)) {
        this.#sessions.delete(id);
        void session.transport.close().catch(() => {});
      }
    void this.#store?.pruneGatewaySessions(isoAt(now - this.#idleMs)).catch(this.#storeFailed);
  }

  /** Hold a session here; past `maxSessions` the one unused longest is ended in this process (not in the store). */
  #hold(id: string, session: HeldSession): void {
    this.#sessions.set(id, session);
    for (const [oldest, old] of this.#sessions) {
      if (this.#sessions.size <= this.#maxSessions) break;
      this.#sessions.delete(oldest);
      void old.transport.close().catch(() => {});
    }
  }

  /** A transport for a 2025-11-25 session of `user`; `id` makes its session id (a new one, or a stored one). */
  #transport(user: string, id: () => string, initialize: () => unknown): SessionTransport {
    const transport: SessionTransport = new SessionTransport({
      sessionIdGenerator: id,
      onsessioninitialized: async (sessionId) => {
        const usedAt = this.#clock.now();
        const sealed =
          this.#seal && sessionId.startsWith(SEALED_PREFIX) ? this.#seal.open(sessionId) : undefined;
        const expiresAt = sealed?.type === "open" ? sealed.session.expiresAt : undefined;
        this.#hold(sessionId, { transport, user, usedAt, touchedAt: usedAt, expiresAt });
        if (sealed) return; // its id is all another replica needs
        const now = isoAt(usedAt);
        // Kept before the client hears of the session: its next request may go to another replica.
        await this.#store
          ?.saveGatewaySession({ id: sessionId, user, createdAt: now, usedAt: now, initialize: initialize() })
          .catch(this.#storeFailed);
      },
      onsessionclosed: (sessionId) => {
        this.#sessions.delete(sessionId);
        const unusedSince = isoAt(this.#clock.now() - this.#idleMs);
        void this.#store?.dropGatewaySession(sessionId, unusedSince).catch(this.#storeFailed);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId && this.#sessions.get(transport.sessionId)?.transport === transport)
        this.#sessions.delete(transport.sessionId);
    };
    return transport;
  }

  /**
   * Take up a session this process does not hold, from its sealed id: the refusal to answer when the id
   * is altered, sealed by a key no longer accepted (404) or expired (404), else as {@link #restore}.
   */
  async #takeUp(
    id: string,
    user: string,
    authInfo: AuthInfo,
  ): Promise<HeldSession | typeof ANOTHER_USERS | Response | undefined> {
    if (!id.startsWith(SEALED_PREFIX)) return this.#restore(id, user, authInfo, () => this.#stored(id));
    const opened = this.#seal?.open(id) ?? { type: "unknown" as const };
    if (opened.type === "unknown") return sessionNotFound(this.#seal ? "unsealed" : "no key");
    if (opened.type === "expired") return sessionExpired(opened.expiresAt);
    const session = opened.session;
    if (session.user !== user) return ANOTHER_USERS;
    return this.#restore(id, user, authInfo, async () => session);
  }

  /** A session of the store, unless it went unused past `idleMs` (then its row is deleted). */
  async #stored(id: string): Promise<FoundSession | undefined> {
    const record = await this.#store?.gatewaySession(id).catch((error) => void this.#storeFailed(error));
    if (!record) return undefined;
    if (this.#expired(Date.parse(record.usedAt))) {
      void this.#store?.dropGatewaySession(id).catch(this.#storeFailed);
      return undefined;
    }
    return record;
  }

  /**
   * Take up a session this process does not hold (`find`: from its sealed id, or the store): a new server
   * instance, the client's `initialize` and `notifications/initialized` replayed into it under the
   * session's id. Undefined when there is no such session; `ANOTHER_USERS` when it is not `user`'s
   * (nothing is started for a request that will be refused).
   */
  #restore(
    id: string,
    user: string,
    authInfo: AuthInfo,
    find: () => Promise<FoundSession | undefined>,
  ): Promise<HeldSession | typeof ANOTHER_USERS | undefined> {
    const key = `${id}\n${user}`;
    let pending = this.#restoring.get(key);
    if (!pending) {
      pending = (async () => {
        const record = await find();
        if (!record) return undefined;
        if (record.user !== user) return ANOTHER_USERS;
        const transport = this.#transport(
          record.user,
          () => id,
          () => record.initialize,
        );
        await this.#serve().connect(transport);
        const replay = (message: unknown, headers: Record<string, string> = {}) =>
          transport.handleRequest(
            new Request("http://127.0.0.1/", {
              method: "POST",
              headers: {
                accept: "application/json, text/event-stream",
                "content-type": "application/json",
                ...headers,
              },
              body: JSON.stringify(message),
            }),
            { authInfo, parsedBody: message },
          );
        const opened = await replay(record.initialize);
        await opened.text(); // the initialize result, for nobody: the client had it from the first replica
        if (!opened.ok) {
          void transport.close().catch(() => {});
          return undefined;
        }
        await (
          await replay({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id })
        ).text();
        return this.#sessions.get(id);
      })().finally(() => this.#restoring.delete(key));
      this.#restoring.set(key, pending);
    }
    return pending;
  }
}

/** Whether a request's body is an `initialize` (the request that begins a session). */
function isInitialize(body: unknown): body is { method: "initialize"; id?: unknown } {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";
}
