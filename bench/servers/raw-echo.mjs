#!/usr/bin/env node
// The hand-written limit's server: newline-delimited JSON-RPC over stdio, or plain JSON over HTTP
// (--http <port>, 0 picks one, prints "listening http://127.0.0.1:<port>/mcp" on stderr). No SDK, no
// validation, no sessions: initialize, tools/list (one tool, echo) and tools/call echo. Just enough
// protocol that the bench's hand-written client can do what an MCP client does, as fast as it can.
import { createServer } from "node:http";

const TOOLS = [
  {
    name: "echo",
    description: "Echo the text back",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
];

/** The answer to one request (undefined for a notification). */
function answer(message) {
  if (message.id === undefined || message.id === null) return undefined;
  switch (message.method) {
    case "initialize":
      return {
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params?.protocolVersion ?? "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "raw-echo", version: "0.0.1" },
        },
      };
    case "tools/list":
      return { jsonrpc: "2.0", id: message.id, result: { tools: TOOLS } };
    case "tools/call":
      return {
        jsonrpc: "2.0",
        id: message.id,
        result: { content: [{ type: "text", text: String(message.params?.arguments?.text) }] },
      };
    default:
      return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } };
  }
}

const httpAt = process.argv.indexOf("--http");
if (httpAt === -1) {
  let buffered = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    buffered += chunk;
    let out = "";
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() === "") continue;
      const reply = answer(JSON.parse(line));
      if (reply) out += `${JSON.stringify(reply)}\n`;
    }
    // One write per chunk: requests that arrive together are answered together.
    if (out) process.stdout.write(out);
  });
  process.stdin.on("end", () => process.exit(0));
} else {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const reply =
        req.method === "POST" ? answer(JSON.parse(Buffer.concat(chunks).toString("utf8"))) : undefined;
      if (!reply) {
        res.writeHead(req.method === "POST" ? 202 : 405).end();
        return;
      }
      const body = JSON.stringify(reply);
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.argv[httpAt + 1] ?? 0), "127.0.0.1", () => {
    process.stderr.write(`listening http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  process.on("SIGTERM", () => {
    server.closeAllConnections();
    server.close();
    process.exit(0);
  });
}
