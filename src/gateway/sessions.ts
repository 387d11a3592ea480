// The gateway's 2025-11-25 HTTP sessions: one server instance and transport each, held in this process
// (at most `maxSessions`), kept in a session store when there is one, so that any replica takes up a
// session another began.
import { randomUUID } from "node:crypto";
import {
  type AuthInfo,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import {
  DEFAULT_GATEWAY_MAX_SESSIONS,
  DEFAULT_GATEWAY_SESSION_IDLE_MS,
  DEFAULT_GATEWAY_SESSION_TOUCH_MS,
} from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import type { Store } from "../store/store.js";

/** What the gateway needs of a store to share its 2025-11-25 sessions (every `Store` has it). */
export type GatewaySessionStore = Pick<
  Store,
  "saveGatewaySession" | "gatewaySession" | "touchGatewaySession" | "dropGatewaySession"
>;

/** What taking up a stored session gives when the session is another user's. */
const ANOTHER_USERS = Symbol("another user's session");

/** A 2025-11-25 session this process holds. */
interface HeldSession {
  transport: WebStandardStreamableHTTPServerTransport;
  user: string;
  /** When its last use was written to the session store (ms since the epoch). */
  touchedAt: number;
}

/** Options of {@link HttpSessions}. */
export interface HttpSessionsOptions {
  /** A new server instance for a session (the gateway keeps it told of changes until it closes). */
  serve: () => Server;
  /** Sessions kept at most; default {@link DEFAULT_GATEWAY_MAX_SESSIONS}. */
  maxSessions?: number | undefined;
  /** Where sessions are kept beside this process's memory, for other replicas and restarts. */
  store?: GatewaySessionStore | undefined;
  /** Told of sessions the store could not keep or give back (the session then lives here only). */
  onStoreError?: ((error: unknown) => void) | undefined;
}

/**
 * The 2025-11-25 HTTP sessions (`Mcp-Session-Id`) this process holds. Past `maxSessions` the one unused
 * longest is ended here (not in the store): its client gets 404 `Session not found` and starts another.
 * @throws SwitchyardError `INVALID_INPUT` when `maxSessions` is not a positive integer.
 */
export class HttpSessions {
  readonly #serve: () => Server;
  readonly #maxSessions: number;
  readonly #store: GatewaySessionStore | undefined;
  /** Tells `onStoreError` (a session the store could not keep or give back lives here only). */
  readonly #storeFailed: (error: unknown) => void;
  /** By id, the most recently used last. */
  readonly #sessions = new Map<string, HeldSession>();
  /** Sessions being taken up from the store (by id and user): two requests for one come together, one replay. */
  readonly #restoring = new Map<string, Promise<HeldSession | typeof ANOTHER_USERS | undefined>>();

  constructor(options: HttpSessionsOptions) {
    const maxSessions = options.maxSessions ?? DEFAULT_GATEWAY_MAX_SESSIONS;
    if (!Number.isInteger(maxSessions) || maxSessions < 1)
      throw new SwitchyardError(
        "INVALID_INPUT",
        `gateway maxSessions must be a positive integer (got ${String(maxSessions)})`,
      );
    this.#serve = options.serve;
    this.#maxSessions = maxSessions;
    this.#store = options.store;
    this.#storeFailed = (error) => options.onStoreError?.(error);
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
    const store = this.#store;
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const session = this.#sessions.get(id) ?? (await this.#restore(id, user, given.authInfo));
      if (!session)
        return Response.json(
          { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } },
          { status: 404 },
        );
      if (session === ANOTHER_USERS || session.user !== user)
        return Response.json(
          {
            jsonrpc: "2.0",
            id: null,
            error: { code: -32001, message: "this session belongs to another user" },
          },
          { status: 403 },
        );
      // The most recently used last: when there are too many, the one unused longest goes first.
      this.#sessions.delete(id);
      this.#sessions.set(id, session);
      if (store && Date.now() - session.touchedAt >= DEFAULT_GATEWAY_SESSION_TOUCH_MS) {
        session.touchedAt = Date.now();
        void store.touchGatewaySession(id, new Date().toISOString()).catch(this.#storeFailed);
      }
      return session.transport.handleRequest(request, given);
    }
    // The initialize request, kept with the session for a replica that takes it up.
    const initialize =
      store && given.parsedBody === undefined
        ? await request
            .clone()
            .json()
            .catch(() => undefined)
        : given.parsedBody;
    const transport = this.#transport(user, randomUUID, () => initialize);
    await this.#serve().connect(transport);
    return transport.handleRequest(request, given);
  }

  /** End every session held here (they stay in the store, for another replica). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#sessions.values()].map((session) => session.transport.close()));
    this.#sessions.clear();
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
  #transport(
    user: string,
    id: () => string,
    initialize: () => unknown,
  ): WebStandardStreamableHTTPServerTransport {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: id,
      onsessioninitialized: async (sessionId) => {
        this.#hold(sessionId, { transport, user, touchedAt: Date.now() });
        const now = new Date().toISOString();
        // Kept before the client hears of the session: its next request may go to another replica.
        await this.#store
          ?.saveGatewaySession({ id: sessionId, user, createdAt: now, usedAt: now, initialize: initialize() })
          .catch(this.#storeFailed);
      },
      onsessionclosed: (sessionId) => {
        this.#sessions.delete(sessionId);
        const unusedSince = new Date(Date.now() - DEFAULT_GATEWAY_SESSION_IDLE_MS).toISOString();
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
   * Take up a session this process does not hold from the store: a new server instance, the client's
   * `initialize` and `notifications/initialized` replayed into it under the session's id. Undefined when
   * the store has no such session (or it went unused past `DEFAULT_GATEWAY_SESSION_IDLE_MS`);
   * `ANOTHER_USERS` when it is not `user`'s (nothing is started for a request that will be refused).
   */
  #restore(
    id: string,
    user: string,
    authInfo: AuthInfo,
  ): Promise<HeldSession | typeof ANOTHER_USERS | undefined> {
    const key = `${id}\n${user}`;
    let pending = this.#restoring.get(key);
    if (!pending) {
      pending = (async () => {
        const record = await this.#store?.gatewaySession(id).catch((error) => void this.#storeFailed(error));
        if (!record) return undefined;
        if (record.user !== user) return ANOTHER_USERS;
        if (Date.parse(record.usedAt) < Date.now() - DEFAULT_GATEWAY_SESSION_IDLE_MS) {
          void this.#store?.dropGatewaySession(id).catch(this.#storeFailed);
          return undefined;
        }
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
