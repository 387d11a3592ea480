import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import {
  type AuthInfo,
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJsonContentType,
  isLegacyRequest,
  type McpHttpHandler,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { type StdioServerHandle, StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import {
  DEFAULT_GATEWAY_MAX_SESSIONS,
  DEFAULT_GATEWAY_MODE,
  DEFAULT_GATEWAY_PATH,
  DEFAULT_GATEWAY_SESSION_IDLE_MS,
  DEFAULT_GATEWAY_SESSION_TOUCH_MS,
} from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import { packageJson } from "../package-root.js";
import type { Store } from "../store/store.js";
import type { Switchyard } from "../switchyard.js";
import type { Identity } from "../telemetry/audit.js";
import { ClientRelay } from "./relay.js";
import { ToolSearch } from "./search.js";
import { buildGatewayServer, type GatewayParts } from "./server.js";

/**
 * What the HTTP face makes of a request before MCP sees it: the caller's identity (the policy lists and
 * admits per identity), or a `Response` to answer with instead (401 with a `WWW-Authenticate`, 403, …).
 * `undefined`: the gateway's identity.
 */
/** What the gateway offers: every tool, or `search_tools` and `call_tool`. */
export type GatewayMode = "all" | "search";

export type Authenticate = (
  request: Request,
) => Identity | Response | undefined | Promise<Identity | Response | undefined>;

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  /** `all`: every tool the identity may call; `search`: `search_tools` and `call_tool`. Default `all`. */
  mode?: GatewayMode;
  /** HTTP: who each request is for, or a refusal. Default: every request is the gateway's identity. */
  authenticate?: Authenticate;
  /** Who stdio clients (and unauthenticated HTTP requests) are; default: the Switchyard's identity. */
  identity?: Identity;
  /**
   * Forwards servers' elicitation, sampling and log messages to the client whose call caused them. The
   * Switchyard must have been made with its `switchyardOptions` (a relay made after it forwards nothing).
   */
  relay?: ClientRelay;
  /** The name and version the gateway tells clients; default `switchyard` and the package's version. */
  name?: string;
  version?: string;
  /** The path the HTTP face answers on; other paths get 404. Default `/mcp`. */
  path?: string;
  /**
   * 2025-11-25 HTTP sessions kept at most; a new one past it ends the session unused longest (its client
   * gets 404 `Session not found` and starts another). Default {@link DEFAULT_GATEWAY_MAX_SESSIONS}.
   */
  maxSessions?: number;
  /**
   * Where 2025-11-25 HTTP sessions are kept beside this process's memory (the run store: `switchyard
   * serve` passes its own), so that a request for a session another replica began — or this one before
   * a restart — is taken up here: the client's `initialize` is replayed into a new server instance under
   * the same `Mcp-Session-Id`. Without it a session lives in the process that began it.
   */
  sessionStore?: GatewaySessionStore;
  /** Told of sessions the store could not keep or give back (the session then lives in this process only). */
  onSessionStoreError?: (error: unknown) => void;
}

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

/** The whole fleet of a Switchyard as one MCP server. */
export interface Gateway extends AsyncDisposable {
  /**
   * Serve one client over stdio (the process's stdin/stdout unless given). Resolves once serving;
   * `closed` resolves when the client goes (stdin ends).
   */
  connectStdio(streams?: { stdin?: Readable; stdout?: Writable }): Promise<{ closed: Promise<void> }>;
  /**
   * Answer one HTTP request of the Streamable HTTP transport: 2026-07-28 requests statelessly (any
   * replica answers any request), 2025-11-25 clients with sessions (`Mcp-Session-Id`) held in this
   * process. Requests on another path get 404.
   */
  handle(request: Request): Promise<Response>;
  /** Stop serving: end every session and stdio connection. Idempotent; the Switchyard stays open. */
  close(): Promise<void>;
}

/**
 * Serve a Switchyard's catalog — tools under their catalog names, resources, prompts — as one MCP server.
 * Every call goes through `yard.callTool` (validation, policy for the caller's identity, breaker,
 * deadline, records).
 *
 * ```ts
 * const relay = new ClientRelay();
 * const yard = await Switchyard.fromFile("switchyard.config.json", relay.switchyardOptions());
 * const gateway = createGateway(yard, { relay });
 * await gateway.connectStdio();
 * ```
 * @throws SwitchyardError `INVALID_INPUT` for an unknown mode.
 */
export function createGateway(yard: Switchyard, options: GatewayOptions = {}): Gateway {
  const mode = options.mode ?? DEFAULT_GATEWAY_MODE;
  if (mode !== "all" && mode !== "search")
    throw new SwitchyardError(
      "INVALID_INPUT",
      `gateway mode must be "all" or "search" (got ${String(mode)})`,
    );
  const path = options.path ?? DEFAULT_GATEWAY_PATH;
  /** Servers of live connections (stdio, 2025 HTTP sessions): told of list changes and logs. */
  const live = new Set<Server>();
  const parts: GatewayParts = {
    yard,
    identity: options.identity ?? yard.identity,
    // Without a relay the Switchyard was not made to forward questions: nothing ever reaches this one.
    relay: options.relay ?? new ClientRelay(),
    ...(mode === "search" ? { search: new ToolSearch(yard) } : {}),
    info: { name: options.name ?? "switchyard", version: options.version ?? packageJson().version },
  };
  const build = () => buildGatewayServer(parts);
  const modern: McpHttpHandler = createMcpHandler(build, { legacy: "reject" });
  const sessions = new Map<string, HeldSession>();
  /** Sessions being taken up from the store (by id and user): two requests for one come together, one replay. */
  const restoring = new Map<string, Promise<HeldSession | typeof ANOTHER_USERS | undefined>>();
  const shared = options.sessionStore;
  const storeFailed = (error: unknown) => options.onSessionStoreError?.(error);
  const maxSessions = options.maxSessions ?? DEFAULT_GATEWAY_MAX_SESSIONS;
  if (!Number.isInteger(maxSessions) || maxSessions < 1)
    throw new SwitchyardError(
      "INVALID_INPUT",
      `gateway maxSessions must be a positive integer (got ${String(maxSessions)})`,
    );
  const stdio = new Set<StdioServerHandle>();
  let closed = false;

  const keep = (server: Server) => {
    live.add(server);
    const onclose = server.onclose;
    server.onclose = () => {
      onclose?.();
      live.delete(server);
    };
    return server;
  };
  const stops = [
    yard.onCatalogChange(() => {
      modern.notify.toolsChanged();
      for (const server of live) void server.sendToolListChanged().catch(() => {});
    }),
    yard.onListChange((change) => {
      if (change.kind === "resources") modern.notify.resourcesChanged();
      else modern.notify.promptsChanged();
      for (const server of live) {
        const sent =
          change.kind === "resources" ? server.sendResourceListChanged() : server.sendPromptListChanged();
        void sent.catch(() => {});
      }
    }),
    ...(options.relay
      ? [
          options.relay.onServerLog((log) => {
            for (const server of live) void server.sendLoggingMessage(log).catch(() => {});
          }),
        ]
      : []),
  ];

  async function identify(request: Request): Promise<Identity | Response> {
    const found = options.authenticate ? await options.authenticate(request) : undefined;
    return found ?? parts.identity;
  }

  /** Hold a session here; past `maxSessions` the one unused longest is ended in this process (not in the store). */
  function hold(id: string, session: HeldSession) {
    sessions.set(id, session);
    for (const [oldest, old] of sessions) {
      if (sessions.size <= maxSessions) break;
      sessions.delete(oldest);
      void old.transport.close().catch(() => {});
    }
  }

  /** A transport for a 2025-11-25 session of `user`; `id` makes its session id (a new one, or a stored one). */
  function sessionTransport(user: string, id: () => string, initialize: () => unknown) {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: id,
      onsessioninitialized: async (sessionId) => {
        hold(sessionId, { transport, user, touchedAt: Date.now() });
        const now = new Date().toISOString();
        // Kept before the client hears of the session: its next request may go to another replica.
        await shared
          ?.saveGatewaySession({ id: sessionId, user, createdAt: now, usedAt: now, initialize: initialize() })
          .catch(storeFailed);
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId);
        const unusedSince = new Date(Date.now() - DEFAULT_GATEWAY_SESSION_IDLE_MS).toISOString();
        void shared?.dropGatewaySession(sessionId, unusedSince).catch(storeFailed);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId && sessions.get(transport.sessionId)?.transport === transport)
        sessions.delete(transport.sessionId);
    };
    return transport;
  }

  /**
   * Take up a session this process does not hold from the store: a new server instance, the client's
   * `initialize` and `notifications/initialized` replayed into it under the session's id. Undefined when
   * the store has no such session (or it went unused past `DEFAULT_GATEWAY_SESSION_IDLE_MS`);
   * `ANOTHER_USERS` when it is not `user`'s (nothing is started for a request that will be refused).
   */
  function restore(
    id: string,
    user: string,
    authInfo: AuthInfo,
  ): Promise<HeldSession | typeof ANOTHER_USERS | undefined> {
    const key = `${id}\n${user}`;
    let pending = restoring.get(key);
    if (!pending) {
      pending = (async () => {
        const record = await shared?.gatewaySession(id).catch((error) => void storeFailed(error));
        if (!record) return undefined;
        if (record.user !== user) return ANOTHER_USERS;
        if (Date.parse(record.usedAt) < Date.now() - DEFAULT_GATEWAY_SESSION_IDLE_MS) {
          void shared?.dropGatewaySession(id).catch(storeFailed);
          return undefined;
        }
        const transport = sessionTransport(
          record.user,
          () => id,
          () => record.initialize,
        );
        await keep(build()).connect(transport);
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
        return sessions.get(id);
      })().finally(() => restoring.delete(key));
      restoring.set(key, pending);
    }
    return pending;
  }

  return {
    async connectStdio(streams = {}) {
      if (closed) throw new SwitchyardError("CLOSED", "this gateway is closed");
      const stdin = streams.stdin ?? process.stdin;
      const handle = serveStdio(() => keep(build()), {
        transport: new StdioServerTransport(stdin, streams.stdout ?? process.stdout),
      });
      stdio.add(handle);
      // The client is gone when our stdin ends (or breaks): the connection is over.
      const ended = new Promise<void>((resolve) => {
        const done = () => {
          stdio.delete(handle);
          void handle.close().finally(resolve);
        };
        stdin.once("end", done);
        stdin.once("close", done);
        stdin.once("error", done);
      });
      return { closed: ended };
    },

    async handle(incoming) {
      if (new URL(incoming.url).pathname !== path) return new Response("Not Found", { status: 404 });
      if (closed) return new Response("the gateway is shutting down", { status: 503 });
      const identity = await identify(incoming);
      if (identity instanceof Response) return identity;
      const authInfo = {
        token: "",
        clientId: identity.user,
        scopes: [...identity.roles],
        extra: { identity },
      };
      const { parsedBody, request } = await readJsonBody(incoming);
      const given = { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) };
      if (!(await isLegacyRequest(request, parsedBody))) return modern.fetch(request, given);
      const id = request.headers.get("mcp-session-id");
      if (id) {
        const session = sessions.get(id) ?? (await restore(id, identity.user, authInfo));
        if (!session)
          return Response.json(
            { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } },
            { status: 404 },
          );
        if (session === ANOTHER_USERS || session.user !== identity.user)
          return Response.json(
            {
              jsonrpc: "2.0",
              id: null,
              error: { code: -32001, message: "this session belongs to another user" },
            },
            { status: 403 },
          );
        // The most recently used last: when there are too many, the one unused longest goes first.
        sessions.delete(id);
        sessions.set(id, session);
        if (shared && Date.now() - session.touchedAt >= DEFAULT_GATEWAY_SESSION_TOUCH_MS) {
          session.touchedAt = Date.now();
          void shared.touchGatewaySession(id, new Date().toISOString()).catch(storeFailed);
        }
        return session.transport.handleRequest(request, given);
      }
      // The initialize request, kept with the session for a replica that takes it up.
      const initialize =
        shared && parsedBody === undefined
          ? await request
              .clone()
              .json()
              .catch(() => undefined)
          : parsedBody;
      const transport = sessionTransport(identity.user, randomUUID, () => initialize);
      await keep(build()).connect(transport);
      return transport.handleRequest(request, given);
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const stop of stops) stop();
      await Promise.allSettled([
        modern.close(),
        ...[...sessions.values()].map((session) => session.transport.close()),
        ...[...stdio].map((handle) => handle.close()),
      ]);
      sessions.clear();
    },

    async [Symbol.asyncDispose]() {
      await this.close();
    },
  };
}

/**
 * A JSON POST's body, read and parsed once here for the SDK (its era check, then the transport, would
 * each clone, read and parse it again). Anything else — not a JSON POST, no declared length or one
 * past the SDK's bound (`DEFAULT_MAX_REQUEST_BODY_SIZE`), an empty or unparsable body — is left for the SDK to read and answer as it
 * does: the request it gets then carries the same bytes.
 */
async function readJsonBody(request: Request): Promise<{ parsedBody?: unknown; request: Request }> {
  const length = Number(request.headers.get("content-length") ?? Number.NaN);
  if (
    request.method !== "POST" ||
    !(length > 0 && length <= DEFAULT_MAX_REQUEST_BODY_SIZE) ||
    !isJsonContentType(request.headers.get("content-type"))
  )
    return { request };
  const text = await request.text();
  try {
    return { parsedBody: JSON.parse(text), request };
  } catch {
    return { request: new Request(request, { body: text }) };
  }
}
