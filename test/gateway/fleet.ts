// What the gateway tests share: a fleet config (the example fleet's stdio servers, server-everything and
// fixtures that ask, fail, change their lists and log), `switchyard serve` started from dist/, and SDK
// clients of either protocol era over stdio or Streamable HTTP.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client, type ClientOptions, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CLI, EVERYTHING, NODE, RAW_SERVER, ROOT } from "../helpers.js";

export type Era = "legacy" | "modern";
const FIXTURES = `${ROOT}test/fixtures`;
const EXAMPLES = `${ROOT}examples/servers`;

/** The data folder of the example orders server (its SQLite file), one per test file. */
export const DATA_DIR = mkdtempSync(path.join(tmpdir(), "switchyard-gateway-data-"));

/** The servers every gateway test fronts. */
export function gatewayServers(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orders: { command: NODE, args: [`${EXAMPLES}/orders.mjs`], env: { ORDERS_DB: `${DATA_DIR}/orders.db` } },
    geo: { command: NODE, args: [`${EXAMPLES}/geo.mjs`] },
    everything: { command: NODE, args: [EVERYTHING] },
    asking: { command: NODE, args: [`${FIXTURES}/asking-server.mjs`] },
    // A 2025-era server: it pushes elicitation/create and sends log messages.
    needy: { command: NODE, args: [`${FIXTURES}/needy-server.mjs`], versionNegotiation: "legacy" },
    fault: { command: NODE, args: [`${FIXTURES}/fault-server.mjs`] },
    slow: { command: NODE, args: [`${FIXTURES}/fault-server.mjs`, "--name", "slow"], timeoutMs: 500 },
    // One server per test variant that fails for good when it crashes.
    ...Object.fromEntries(
      ["stdio_legacy", "stdio_modern", "http_legacy", "http_modern"].map((tag) => [
        `down_${tag}`,
        { command: NODE, args: [`${FIXTURES}/fault-server.mjs`], restart: { maxRestarts: 0 } },
      ]),
    ),
    raw: { command: NODE, args: [RAW_SERVER, "--list-changed"] },
    notes: { command: NODE, args: [`${FIXTURES}/resource-server.mjs`] },
    ...extra,
  };
}

/** Write a config file (with `store: false`: nothing recorded) in a fresh folder; returns its path. */
export function configFile(config: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-gateway-"));
  const file = path.join(dir, "switchyard.config.json");
  writeFileSync(file, JSON.stringify({ store: false, ...config }));
  return file;
}

/** Client options for an era: the 2026-07-28 one pinned, else the plain 2025 handshake. */
export function clientOptions(era: Era, options: ClientOptions = {}): ClientOptions {
  return {
    capabilities: { elicitation: { form: {}, url: {} }, sampling: {} },
    ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    ...options,
  };
}

/** An SDK client that starts `switchyard --config <file> serve --stdio [...flags]`, as a host does. */
export async function stdioClient(
  file: string,
  era: Era,
  options: {
    flags?: string[];
    /** Global flags, before `serve`. */
    before?: string[];
    client?: ClientOptions;
    setup?: (client: Client) => void;
  } = {},
): Promise<{ client: Client; stderr: () => string }> {
  const client = new Client({ name: "gateway-test", version: "1" }, clientOptions(era, options.client));
  options.setup?.(client);
  const transport = new StdioClientTransport({
    command: NODE,
    args: [CLI, "--config", file, ...(options.before ?? []), "serve", "--stdio", ...(options.flags ?? [])],
    env: { ...(process.env as Record<string, string>), SWITCHYARD_DATA_DIR: DATA_DIR },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** An SDK client of a gateway's Streamable HTTP endpoint. */
export async function httpClient(
  url: string,
  era: Era,
  options: {
    client?: ClientOptions;
    headers?: Record<string, string>;
    setup?: (client: Client) => void;
  } = {},
): Promise<Client> {
  const client = new Client({ name: "gateway-test", version: "1" }, clientOptions(era, options.client));
  options.setup?.(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    }),
  );
  return client;
}

/** `switchyard serve --http 0` started from dist/; `url` is read from its "serving … at <url>" line. */
export async function startHttpGateway(
  file: string,
  flags: string[] = [],
): Promise<{ url: string; process: ChildProcess; stderr: () => string; close(): Promise<number | null> }> {
  const child = spawn(NODE, [CLI, "--config", file, "serve", "--http", "0", ...flags], {
    env: { ...process.env, SWITCHYARD_DATA_DIR: DATA_DIR },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const found = / at (http:\/\/\S+)/.exec(stderr)?.[1];
      if (found) resolve(found);
    });
    child.once("exit", (code) => reject(new Error(`serve --http exited (${code}): ${stderr}`)));
  });
  return {
    url,
    process: child,
    stderr: () => stderr,
    close: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** The first text of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.find((block) => block.type === "text")?.text ?? "";
}
