// The gateway: a Switchyard's whole fleet as one MCP server. Its parts: one server instance's handlers
// (server.ts), the 2025-11-25 HTTP sessions (sessions.ts), stdio clients (stdio-connections.ts) and
// the live connections told of changes (live-servers.ts); 2026-07-28 requests go to the SDK's handler.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable, Writable } from "node:stream";
import {
  type AuthInfo,
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJsonContentType,
  isLegacyRequest,
  type McpHttpHandler,
} from "@modelcontextprotocol/server";
import type { Clock } from "../abort.js";
import {
  DEFAULT_GATEWAY_MODE,
  DEFAULT_GATEWAY_PATH,
  DEFAULT_GATEWAY_STREAMS_PER_USER,
} from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import { packageJson } from "../package-root.js";
import type { Switchyard } from "../switchyard.js";
import type { Identity } from "../telemetry/audit.js";
import { leanMessage } from "./lean-request.js";
import { limitOf, StreamSlots } from "./limits.js";
import { LiveServers } from "./live-servers.js";
import { GatewayMetrics } from "./metrics.js";
import { serveModernNode } from "./modern-request.js";
import { requestInfoOf, toWebRequest, writeWebResponse } from "./node-request.js";
import { answerOperations, isOperationsPath } from "./operations.js";
import { ClientRelay } from "./relay.js";
import { ToolSearch } from "./search.js";
import { buildGatewayServer, type GatewayParts, gatewayTasks } from "./server.js";
import { SessionSeal } from "./session-seal.js";
import { type GatewaySessionStore, HttpSessions } from "./sessions.js";
import { StdioConnections } from "./stdio-connections.js";

/** What the gateway offers: every tool, or `search_tools` and `call_tool`. */
export type GatewayMode = "all" | "search";

/**
 * What the HTTP face makes of a request before MCP sees it: the caller's identity (the policy lists and
 * admits per identity), or a `Response` to answer with instead (401 with a `WWW-Authenticate`, 403, …).
 * `undefined`: the gateway's identity.
 */
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
   * Forwards servers' elicitation, sampling and log messages to the client whose call caused them, and
   * to no other (see `ClientRelay`). The Switchyard must have been made with its `switchyardOptions` (a
   * relay made after it forwards nothing).
   */
  relay?: ClientRelay;
  /** The name and version the gateway tells clients; default `switchyard` and the package's version. */
  name?: string;
  version?: string;
  /** The path the HTTP face answers on; other paths get 404. Default `/mcp`. */
  path?: string;
  /**
   * 2025-11-25 HTTP sessions kept at most; a new one past it ends the session unused longest (its client
   * gets 404 `Session not found` and starts another). Default `DEFAULT_GATEWAY_MAX_SESSIONS`.
   */
  maxSessions?: number;
  /**
   * 2025-11-25 HTTP sessions one identity may have (here and in the session store); past it a new one is
   * 429 with `Retry-After`, unless its session unused longest has gone unused
   * `DEFAULT_GATEWAY_SESSION_RECLAIM_MS` (that one is ended for it). Default
   * `DEFAULT_GATEWAY_SESSIONS_PER_USER`.
   */
  sessionsPerUser?: number;
  /**
   * HTTP requests one identity may have open at once (GET streams, and requests until their response
   * ends); past it 429 with `Retry-After`. Default `DEFAULT_GATEWAY_STREAMS_PER_USER`.
   */
  streamsPerUser?: number;
  /**
   * A 2025-11-25 session unused this long is ended: its id is 404 and its row in the session store is
   * deleted. Default `DEFAULT_GATEWAY_SESSION_IDLE_MS`.
   */
  sessionIdleMs?: number;
  /** The wall clock (ms since the epoch) sessions' uses are measured with; default `Date.now`. Tests move it. */
  clock?: Clock;
  /**
   * Where 2025-11-25 HTTP sessions are kept beside this process's memory (the run store: `switchyard
   * serve` passes its own), so that a request for a session another replica began — or this one before
   * a restart — is taken up here: the client's `initialize` is replayed into a new server instance under
   * the same `Mcp-Session-Id`. Without it a session lives in the process that began it.
   */
  sessionStore?: GatewaySessionStore;
  /** Told of sessions the store could not keep or give back (the session then lives in this process only). */
  onSessionStoreError?: (error: unknown) => void;
  /**
   * Seal each 2025-11-25 session into its `Mcp-Session-Id` with this key (AES-256-GCM; at least
   * `DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS` characters): every replica given the same key serves every
   * session, with no store; `sessionStore` then only serves ids of before, not sealed.
   */
  sessionKey?: string;
  /** Keys sealed ids are still opened with, never sealed with (the ones before a rotation). */
  previousSessionKeys?: readonly string[];
  /**
   * A sealed session id is accepted this long after its `initialize` (then 404: the client starts
   * another). Default `DEFAULT_GATEWAY_SESSION_MAX_AGE_MS`.
   */
  sessionMaxAgeMs?: number;
  /**
   * Answer `/metrics` and `/readyz`'s reasons without `authenticate` (for a scraper that has no token).
   * Default false: they need what the MCP path needs (`/healthz` and `/readyz`'s bare status answer
   * anyone, for probes). Open them only where nobody else can reach them (`switchyard serve` allows it on
   * a loopback address only).
   */
  openOperations?: boolean;
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
  /**
   * The lean path `listenHttp` tries first: serve a POST (`body`: read whole) on node's own request and
   * response when it is one JSON-RPC message, not `initialize`, of a 2025-11-25 session this process
   * holds for its caller, or one carrying the 2026-07-28 envelope claim (given to the SDK's modern
   * handler with no web `Request`) — answered `application/json`, or SSE when the server sends anything
   * for it before its answer; its caller refused (401/403, or 429 past its identity's streams) is
   * answered here as `handle` would. False when it is not such a request: nothing was written, and
   * `handle` answers it.
   */
  serveNode(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<boolean>;
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
 * @throws SwitchyardError `INVALID_INPUT` for an unknown mode, or a limit (`maxSessions`,
 *   `sessionsPerUser`, `streamsPerUser`, `sessionIdleMs`, `sessionMaxAgeMs`) that is not a positive
 *   integer, a session key shorter than `DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS`, or `sessionMaxAgeMs`
 *   without `sessionKey`.
 */
export function createGateway(yard: Switchyard, options: GatewayOptions = {}): Gateway {
  const mode = options.mode ?? DEFAULT_GATEWAY_MODE;
  if (mode !== "all" && mode !== "search")
    throw new SwitchyardError(
      "INVALID_INPUT",
      `gateway mode must be "all" or "search" (got ${String(mode)})`,
    );
  if (options.sessionMaxAgeMs !== undefined && options.sessionKey === undefined)
    throw new SwitchyardError(
      "INVALID_INPUT",
      `gateway sessionMaxAgeMs (${options.sessionMaxAgeMs}) bounds sealed sessions only: give sessionKey too, or leave sessionMaxAgeMs out (sessions kept by one process end after sessionIdleMs idle)`,
    );
  const path = options.path ?? DEFAULT_GATEWAY_PATH;
  const parts: GatewayParts = {
    yard,
    identity: options.identity ?? yard.identity,
    // Without a relay the Switchyard was not made to forward questions: nothing ever reaches this one.
    relay: options.relay ?? new ClientRelay(),
    ...(mode === "search" ? { search: new ToolSearch(yard) } : {}),
    info: { name: options.name ?? "switchyard", version: options.version ?? packageJson().version },
    tasks: gatewayTasks(yard),
  };
  const build = () => buildGatewayServer(parts);
  const modern: McpHttpHandler = createMcpHandler(build, { legacy: "reject" });
  // The server of a live connection (stdio, a 2025 HTTP session) is kept, to be told of list changes.
  const serveLive = () => live.keep(build());
  const sessions = new HttpSessions({
    serve: serveLive,
    maxSessions: options.maxSessions,
    sessionsPerUser: options.sessionsPerUser,
    idleMs: options.sessionIdleMs,
    clock: options.clock,
    store: options.sessionStore,
    onStoreError: options.onSessionStoreError,
    seal:
      options.sessionKey === undefined
        ? undefined
        : new SessionSeal({
            key: options.sessionKey,
            previousKeys: options.previousSessionKeys,
            maxAgeMs: options.sessionMaxAgeMs,
            clock: options.clock,
          }),
  });
  const streams = new StreamSlots(
    limitOf("streamsPerUser", options.streamsPerUser, DEFAULT_GATEWAY_STREAMS_PER_USER),
  );
  const stdio = new StdioConnections(serveLive);
  // Listening last: an option refused above leaves nothing listening to the Switchyard.
  const metrics = new GatewayMetrics(yard);
  parts.metrics = metrics;
  const live = new LiveServers({ yard, notify: modern.notify });
  let closed = false;

  async function identify(request: Request): Promise<Identity | Response> {
    const found = options.authenticate ? await options.authenticate(request) : undefined;
    return found ?? parts.identity;
  }

  return {
    async connectStdio(streams = {}) {
      if (closed) throw new SwitchyardError("CLOSED", "this gateway is closed");
      return stdio.connect(streams);
    },

    async handle(incoming) {
      const { pathname } = new URL(incoming.url);
      if (isOperationsPath(pathname)) {
        const identity = options.openOperations ? undefined : await identify(incoming);
        const refusal = identity instanceof Response ? identity : undefined;
        return answerOperations(incoming, {
          yard,
          metrics,
          closed,
          trusted: refusal === undefined,
          ...(refusal ? { refusal } : {}),
        });
      }
      if (pathname !== path) return new Response("Not Found", { status: 404 });
      if (closed) return new Response("the gateway is shutting down", { status: 503 });
      const identity = await identify(incoming);
      if (identity instanceof Response) return identity;
      // Each request holds a place of its identity's until its response ends (429 past the cap).
      return streams.serve(identity.user, () => serve(incoming, identity));
    },

    async serveNode(req, res, body) {
      const lean = closed ? undefined : leanMessage(req, body, path);
      if (!lean) return false;
      const identity = options.authenticate ? await identify(toWebRequest(req, body)) : parts.identity;
      // A refusal (401, 403, 429) is the full path's own answer: written here, not worked out again there.
      if (identity instanceof Response) return refused(res, identity);
      if (lean.era === "modern") {
        const release = streams.take(identity.user);
        if (release instanceof Response) return refused(res, release);
        res.once("close", release);
        await serveModernNode(modern, { req, res }, lean.body, authInfoOf(identity));
        return true;
      }
      const transport = sessions.heldFor(lean.sessionId, identity.user);
      if (!transport?.accepts(lean.protocolVersion)) return false;
      const release = streams.take(identity.user);
      if (release instanceof Response) return refused(res, release);
      res.once("close", release);
      transport.serveLean(lean.message, res, { authInfo: authInfoOf(identity), request: requestInfoOf(req) });
      return true;
    },

    async close() {
      if (closed) return;
      closed = true;
      live.close();
      metrics.close();
      parts.tasks?.close();
      await Promise.allSettled([modern.close(), sessions.close(), stdio.close()]);
    },

    async [Symbol.asyncDispose]() {
      await this.close();
    },
  };

  /** One request of `identity`: a 2026-07-28 one statelessly, a 2025-11-25 one in its session. */
  async function serve(incoming: Request, identity: Identity): Promise<Response> {
    const authInfo = authInfoOf(identity);
    const { parsedBody, request } = await readJsonBody(incoming);
    const given = { authInfo, ...(parsedBody !== undefined ? { parsedBody } : {}) };
    if (!(await isLegacyRequest(request, parsedBody))) return modern.fetch(request, given);
    return sessions.handle(request, { user: identity.user, ...given });
  }
}

/** Write a refusal on node's response; the request was taken (served, as refused). */
async function refused(res: ServerResponse, refusal: Response): Promise<true> {
  await writeWebResponse(res, refusal);
  return true;
}

/** What the SDK's server is told of a request's caller (the gateway's handlers read `extra.identity`). */
function authInfoOf(identity: Identity): AuthInfo {
  return { token: "", clientId: identity.user, scopes: [...identity.roles], extra: { identity } };
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
