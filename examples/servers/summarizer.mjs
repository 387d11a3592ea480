#!/usr/bin/env node
// summarizer — an MCP stdio server that shortens a text to at most 100 characters (extractive: the
// leading sentences that fit, else the text cut at a word boundary with "…"). Counted in Unicode
// code points, so Chinese text is cut by characters.
//
//   node examples/servers/summarizer.mjs
//   docker run -i --rm -v "$PWD/examples:/examples" node:20-slim node /examples/servers/summarizer.mjs
//     (the same server in a container; it needs the repository's node_modules beside examples/)
//
// Tool: summarize(text, max_chars = 100). Logs to stderr only; exits when stdin closes.
import { McpServer } from "@modelcontextprotocol/server";
import { createLogger, defineTool, invalid, requireString, runStdio, textResult } from "./lib/shared.mjs";

const log = createLogger("summarizer");
const CAP = 100;

/** The text in at most `max` code points: whole sentences when they fit, else a cut with "…". */
export function summarize(text, max) {
  const clean = text.replace(/\s+/g, " ").trim();
  const chars = [...clean];
  if (chars.length <= max) return clean;
  const sentences = clean.match(/[^.!?。！？]+[.!?。！？]+["'”’）)]?\s*|[^.!?。！？]+$/g) ?? [clean];
  let out = "";
  for (const sentence of sentences) {
    if ([...(out + sentence)].length > max) break;
    out += sentence;
  }
  if (out.trim()) return out.trim();
  return `${chars
    .slice(0, max - 1)
    .join("")
    .trimEnd()}…`;
}

function buildServer() {
  const server = new McpServer({ name: "summarizer", version: "1.0.0" });
  defineTool(
    server,
    "summarize",
    {
      title: "Summarize text",
      description: `Shorten a text to at most ${CAP} characters, keeping its leading sentences. Use it for a one-line gist.`,
      inputSchema: {
        type: "object",
        properties: {
          text: { type: "string", description: "The text to shorten." },
          max_chars: {
            type: "integer",
            minimum: 10,
            maximum: CAP,
            description: `At most this many characters, 10 to ${CAP}. Default ${CAP}.`,
          },
        },
        required: ["text"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          summary: { type: "string" },
          chars: { type: "integer" },
          original_chars: { type: "integer" },
        },
        required: ["summary", "chars", "original_chars"],
      },
    },
    async (args) => {
      const text = requireString(args, "text", { maxLength: 200_000 });
      const max = args.max_chars ?? CAP;
      if (!Number.isInteger(max) || max < 10 || max > CAP)
        throw invalid("max_chars", `must be an integer from 10 to ${CAP} (default ${CAP})`, args.max_chars);
      const summary = summarize(text, max);
      const chars = [...summary].length;
      log(`${[...text].length} -> ${chars} chars`);
      return textResult(summary, { summary, chars, original_chars: [...text].length });
    },
  );
  return server;
}

runStdio(buildServer, { log });
