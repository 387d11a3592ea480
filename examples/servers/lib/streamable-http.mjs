// Streamable HTTP serving on plain node:http for MCP servers built with the SDK
// v2 (@modelcontextprotocol/server). Shared by examples/servers/hasher.mjs and
// the test fixture test/fixtures/sdk-server.mjs. Not a server itself.
//
// Routing (the pattern documented on isLegacyRequest()):
// - 2026-07-28 traffic (per-request _meta envelope) goes to createMcpHandler,
//   which is per-request by design;
// - 2025-era traffic (initialize handshake, Mcp-Session-Id) is served
//   STATEFULLY: one McpServer + WebStandardStreamableHTTPServerTransport per
//   session; an unknown session id gets 404 "Session not found".
//
// The node:http <-> fetch Request/Response adapter below is deliberately
// minimal, to avoid depending on @modelcontextprotocol/node.
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/** Default limit on an HTTP request body; a larger one is answered with 413. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Serve `buildServer` (a factory returning a fresh McpServer) over Streamable
 * HTTP at `http://<host>:<port><path>`; any other path gets 404.
 *
 * - `port`: 0 picks a free one. Once listening, `log` receives
 *   `listening http://<host>:<port><path>` with the actual port; if the port
 *   cannot be bound, `log` says why and the process exits with status 1.
 * - `validateHost`: reject requests whose Host/Origin header is not localhost
 *   (DNS-rebinding protection).
 * - `maxBodyBytes`: a larger request body is answered with 413 (Infinity: no limit).
 * - `handleSignals`: on SIGTERM/SIGINT, close every session and the server, then exit 0.
 *
 * Returns the node http.Server.
 */
export function serveStreamableHttp({
  buildServer,
  port,
  host = "127.0.0.1",
  path = "/mcp",
  log,
  validateHost = true,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
  handleSignals = true,
}) {
  const { handle, sessions } = createSessionRouter(buildServer, { path, log, validateHost });
  const hostForUrl = host.includes(":") ? `[${host}]` : host;

  const httpServer = createHttpServer(async (req, res) => {
    try {
      await sendNodeResponse(res, await handle(await toWebRequest(req, res, { maxBodyBytes })));
    } catch (err) {
      if (err.status === 413) log(`rejected a request body larger than ${formatBytes(maxBodyBytes)}`);
      else log(`http error: ${err.stack ?? err}`);
      if (!res.headersSent) res.writeHead(err.status ?? 500, { connection: "close" });
      res.end();
    }
  });
  httpServer.on("error", (err) => {
    log(`cannot listen on ${hostForUrl}:${port}: ${err.message}`);
    process.exit(1);
  });
  httpServer.listen(port, host, () => {
    log(`listening http://${hostForUrl}:${httpServer.address().port}${path}`);
  });

  if (handleSignals) {
    let stopping = false;
    for (const sig of ["SIGINT", "SIGTERM"]) {
      process.on(sig, async () => {
        if (stopping) return;
        stopping = true;
        log(`shutting down (${sig}), closing ${sessions.size} session(s)`);
        setTimeout(() => process.exit(0), 2000).unref();
        await Promise.allSettled([...sessions.values()].map((t) => t.close()));
        httpServer.closeAllConnections();
        httpServer.close(() => process.exit(0));
      });
    }
  }
  return httpServer;
}

/**
 * The fetch-style request handler behind serveStreamableHttp: `handle(request)`
 * resolves to a Response; `sessions` maps Mcp-Session-Id -> transport.
 */
function createSessionRouter(buildServer, { path, log, validateHost }) {
  const sessions = new Map();
  const modern = createMcpHandler(buildServer, {
    legacy: "reject",
    onerror: (err) => log(`error: ${err.message}`),
  });
  const allowedHosts = validateHost ? localhostAllowedHostnames() : undefined;
  const allowedOrigins = validateHost ? localhostAllowedOrigins() : undefined;

  async function handle(request) {
    if (new URL(request.url).pathname !== path) return new Response("Not Found", { status: 404 });
    if (validateHost) {
      const rejected =
        hostHeaderValidationResponse(request, allowedHosts) ??
        originValidationResponse(request, allowedOrigins);
      if (rejected) return rejected;
    }
    if (!(await isLegacyRequest(request))) return modern.fetch(request);

    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const transport = sessions.get(sessionId);
      if (transport) return transport.handleRequest(request);
      return Response.json(
        { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } },
        { status: 404 },
      );
    }
    // No session id: must be an initialize POST (the transport answers anything
    // else with 400). Each new session gets its own server.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        log(`session ${id} opened`);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
        log(`session ${id} closed`);
      },
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await buildServer().connect(transport);
    return transport.handleRequest(request);
  }

  return { handle, sessions };
}

const formatBytes = (n) => (n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`);

// ---- minimal node:http <-> fetch Request/Response adapter -----------------

/**
 * A fetch Request for a node:http request. The body is read in full; past
 * `maxBodyBytes` this throws an error with `status: 413`. The request's signal
 * aborts when the client goes away mid-response, so the transport can tear
 * down its SSE streams.
 */
export async function toWebRequest(req, res, { maxBodyBytes = DEFAULT_MAX_BODY_BYTES } = {}) {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) headers.append(key, v);
  }
  let body;
  if (req.method !== "GET" && req.method !== "HEAD") {
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > maxBodyBytes) throw Object.assign(new Error("request body too large"), { status: 413 });
      chunks.push(chunk);
    }
    body = Buffer.concat(chunks);
  }
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
    method: req.method,
    headers,
    body,
    signal: abort.signal,
  });
}

/** Write a fetch Response to a node:http response, streaming its body (SSE included). */
export async function sendNodeResponse(res, response) {
  res.writeHead(response.status, response.statusText, [...response.headers].flat());
  if (!response.body) return void res.end();
  res.flushHeaders(); // SSE: get the headers out before the first event
  const reader = response.body.getReader();
  res.on("close", () => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // client disconnected / stream cancelled
  }
  res.end();
}
