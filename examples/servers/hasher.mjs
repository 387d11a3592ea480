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
import { createHash } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/server";
import { createLogger, defineTool, invalid, requireString, textResult } from "./lib/shared.mjs";
import { serveStreamableHttp } from "./lib/streamable-http.mjs";

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
serveStreamableHttp({ buildServer, port, log, maxBodyBytes: MAX_BODY });
