#!/usr/bin/env node
// hasher — a text hashing service as an MCP server over Streamable HTTP.
//
//   node examples/servers/hasher.mjs --port 8931      (or PORT=8931 node examples/servers/hasher.mjs)
//     -> stderr: listening http://127.0.0.1:8931/mcp
//
// The port is required (0 = pick a free one; the line above shows which).
// Binds to 127.0.0.1 only and rejects requests whose Host/Origin header is
// not localhost (DNS-rebinding protection). Stops on SIGTERM/SIGINT.
//
// 2025-era clients (initialize handshake, Mcp-Session-Id) get one stateful
// session each; 2026-07-28 clients (per-request _meta envelope) are served
// per request by createMcpHandler. Tool: hash_text. Logs to stderr only.
import { createHash, randomUUID } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { createLogger, defineTool, invalid, requireString, textResult } from "./lib/shared.mjs";

const log = createLogger("hasher");
const ALGORITHMS = ["sha256", "sha1", "md5"];
const MAX_TEXT = 1_000_000;
const MAX_BODY = 8 * 1024 * 1024; // bytes per HTTP request

// ---- port: --port <n> or $PORT -------------------------------------------------
function parsePort() {
  let raw = process.env.PORT;
  for (let i = 2; i < process.argv.length; i++) {
    const arg = process.argv[i];
    if (arg === "--port") raw = process.argv[++i];
    else if (arg.startsWith("--port=")) raw = arg.slice("--port=".length);
    else {
      log(`unknown argument ${arg}`);
      return null;
    }
  }
  if (raw === undefined || !/^\d+$/.test(raw) || Number(raw) > 65535) return null;
  return Number(raw);
}
const port = parsePort();
if (port === null) {
  log("usage: node examples/servers/hasher.mjs --port <0-65535>   (or set PORT; 0 picks a free port)");
  process.exit(2);
}

// ---- MCP server ------------------------------------------------------------------
function buildServer() {
  const server = new McpServer({ name: "hasher", version: "1.0.0" });

  defineTool(
    server,
    "hash_text",
    {
      title: "Hash text",
      description:
        "Compute the hex digest of a text (UTF-8 encoded) with SHA-256 (default), SHA-1 or MD5. " +
        "Use it to fingerprint or compare texts; SHA-1 and MD5 are for legacy checksums only, not for security.",
      inputSchema: {
        type: "object",
        properties: {
          text: {
            type: "string",
            maxLength: MAX_TEXT,
            description: `The text to hash, hashed exactly as given (UTF-8, no trimming; may be empty). At most ${MAX_TEXT} characters.`,
          },
          algorithm: {
            type: "string",
            enum: ALGORITHMS,
            default: "sha256",
            description: 'Hash algorithm: "sha256" (default), "sha1" or "md5".',
          },
        },
        required: ["text"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          algorithm: { type: "string", enum: ALGORITHMS },
          hex: { type: "string", description: "Lower-case hex digest" },
          input_bytes: { type: "integer", description: "Length of the UTF-8 encoded input in bytes" },
        },
        required: ["algorithm", "hex", "input_bytes"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const text = requireString(args, "text", { allowEmpty: true, trim: false, maxLength: MAX_TEXT });
      const algorithm = args.algorithm ?? "sha256";
      if (!ALGORITHMS.includes(algorithm)) {
        throw invalid(
          "algorithm",
          `must be one of ${ALGORITHMS.map((a) => `"${a}"`).join(", ")} (default "sha256")`,
          algorithm,
        );
      }
      const bytes = Buffer.from(text, "utf8");
      const hex = createHash(algorithm).update(bytes).digest("hex");
      return textResult(`${algorithm}: ${hex}`, { algorithm, hex, input_bytes: bytes.length });
    },
  );

  return server;
}

// ---- Streamable HTTP ---------------------------------------------------------------
const sessions = new Map(); // Mcp-Session-Id -> transport
const modern = createMcpHandler(buildServer, {
  legacy: "reject",
  onerror: (err) => log(`error: ${err.message}`),
});
const allowedHosts = localhostAllowedHostnames();
const allowedOrigins = localhostAllowedOrigins();

async function handle(request) {
  if (new URL(request.url).pathname !== "/mcp") return new Response("Not Found", { status: 404 });
  const rejected =
    hostHeaderValidationResponse(request, allowedHosts) ?? originValidationResponse(request, allowedOrigins);
  if (rejected) return rejected;
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
  // No session id: must be an initialize POST (the transport answers anything else with 400).
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

const httpServer = createHttpServer(async (req, res) => {
  try {
    await sendNodeResponse(res, await handle(await toWebRequest(req, res)));
  } catch (err) {
    if (err.status === 413) log("rejected a request body larger than 8 MiB");
    else log(`http error: ${err.stack ?? err}`);
    if (!res.headersSent) res.writeHead(err.status ?? 500, { connection: "close" });
    res.end();
  }
});
httpServer.on("error", (err) => {
  log(`cannot listen on 127.0.0.1:${port}: ${err.message}`);
  process.exit(1);
});
httpServer.listen(port, "127.0.0.1", () => {
  log(`listening http://127.0.0.1:${httpServer.address().port}/mcp`);
});

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    if (stopping) return;
    stopping = true;
    log(`shutting down (${sig}), closing ${sessions.size} session(s)`);
    await Promise.allSettled([...sessions.values()].map((t) => t.close()));
    httpServer.closeAllConnections();
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  });
}

// ---- minimal node:http <-> fetch Request/Response adapter ----------------------------
async function toWebRequest(req, res) {
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
      if (size > MAX_BODY) throw Object.assign(new Error("request body too large"), { status: 413 });
      chunks.push(chunk);
    }
    body = Buffer.concat(chunks);
  }
  // Abort the request's signal when the client goes away mid-response, so the
  // transport can tear down its SSE streams.
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

async function sendNodeResponse(res, response) {
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
