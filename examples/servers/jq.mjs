#!/usr/bin/env node
// jq — a long-lived MCP stdio server in front of Debian's `jq` (a command-line JSON processor written
// in C): every call runs `jq` once, as its own process, with the JSON on its stdin.
//
//   node examples/servers/jq.mjs            (JQ_BIN=/path/to/jq to use another binary)
//
// Tool: filter(filter, json) (jq_filter in the catalog). jq's exit status and stderr become an isError result; a missing
// binary says so. Each run is killed after 10 s. Logs to stderr only; exits when stdin closes.
import { spawn } from "node:child_process";
import { McpServer } from "@modelcontextprotocol/server";
import { createLogger, defineTool, requireString, runStdio, textResult, toolError } from "./lib/shared.mjs";

const log = createLogger("jq");
const JQ = process.env.JQ_BIN || "jq";
const RUN_LIMIT_MS = 10_000;
const MAX_OUTPUT = 1_000_000;

/** Run jq once: `jq -c <filter>` with `input` on stdin. */
function runJq(filter, input, signal) {
  return new Promise((resolve) => {
    const child = spawn(JQ, ["-c", filter], {
      stdio: ["pipe", "pipe", "pipe"],
      signal,
      timeout: RUN_LIMIT_MS,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", (error) =>
      resolve({
        error: error.code === "ENOENT" ? `${JQ} is not installed (apt-get install jq)` : error.message,
      }),
    );
    child.on("close", (code, sig) => resolve({ code, signal: sig, stdout, stderr }));
    child.stdin.on("error", () => {}); // jq may exit before reading everything
    child.stdin.end(input);
  });
}

function buildServer() {
  const server = new McpServer({ name: "jq", version: "1.0.0" });
  defineTool(
    server,
    "filter",
    {
      title: "Filter JSON with jq",
      description:
        "Run a jq filter over a JSON document and return jq's compact output (one JSON value per line). " +
        'Use it to select, reshape or count fields, e.g. filter ".items | length" or "[.[] | .name]".',
      inputSchema: {
        type: "object",
        properties: {
          filter: { type: "string", description: 'A jq program, such as ".a.b" or "map(select(.ok))".' },
          json: { type: "string", description: "The JSON document to filter, as text." },
        },
        required: ["filter", "json"],
        additionalProperties: false,
      },
    },
    async (args, ctx) => {
      const filter = requireString(args, "filter", { maxLength: 2_000 });
      const json = requireString(args, "json", { maxLength: 1_000_000, trim: false });
      const run = await runJq(filter, json, ctx?.mcpReq?.signal);
      if (run.error) return toolError(`jq could not run: ${run.error}`);
      if (run.code !== 0)
        return toolError(`jq exited with ${run.code ?? run.signal}: ${run.stderr.trim() || "no message"}`);
      const output = run.stdout.trim();
      log(`filter ${JSON.stringify(filter)} -> ${output.length} chars`);
      return textResult(output, { filter, output });
    },
  );
  return server;
}

runStdio(buildServer, { log });
