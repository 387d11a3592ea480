// Secrets a server was started with never leave Switchyard in what the server says back: a JSON-RPC error
// echoing its API key, a crash that prints it, an error text with a database password and an
// Authorization header. Each is checked where it could leave: the gateway's HTTP client, the CLI's
// stderr, the spans, the stored records and the audit rows.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfigFile, openStore, Switchyard } from "../../src/index.js";
import { openSqlite } from "../../src/store/sqlite-engine.js";
import { httpClient, startHttpGateway, textOf } from "../gateway/fleet.js";
import { NODE, ROOT, runCli } from "../helpers.js";

const LEAKY = `${ROOT}test/fixtures/leaky-server.mjs`;
/** The server's API key: under a secret-looking name in its env, no telltale shape of its own. */
const KEY = "up7f3c9e2a41d8b6c0";
/** Filled into the server's env from `${LEAKY_UPSTREAM_HANDLE}`, under a name that looks like nothing. */
const HANDLE = "hdl5e4d3c2b1a0f9e8";
/** What must never be seen: both values, the URL's password, the Authorization header's token. */
const FORBIDDEN = [KEY, HANDLE, ":pass@", "Bearer xyz"];

function leaks(text: string): string[] {
  return FORBIDDEN.filter((secret) => text.includes(secret));
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let dir: string;
let file: string;
const previousHandle = process.env.LEAKY_UPSTREAM_HANDLE;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  process.env.LEAKY_UPSTREAM_HANDLE = HANDLE;
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-upstream-secrets-"));
  file = path.join(dir, "switchyard.config.json");
  const env = { API_KEY_UPSTREAM: KEY, UPSTREAM_HANDLE: "${LEAKY_UPSTREAM_HANDLE}" };
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        leaky: { command: NODE, args: [LEAKY], env },
        broken: { command: NODE, args: [LEAKY, "--crash-on-start"], env, restart: { maxRestarts: 0 } },
      },
      store: { path: path.join(dir, "runs.db") },
    }),
  );
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  if (previousHandle === undefined) delete process.env.LEAKY_UPSTREAM_HANDLE;
  else process.env.LEAKY_UPSTREAM_HANDLE = previousHandle;
});

/** Every row of every table of a SQLite file, as one text. */
function dumpSqlite(file: string): string {
  const db = openSqlite(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
      name: string;
    }>;
    return JSON.stringify(
      tables.map(({ name }) => ({ name, rows: db.prepare(`SELECT * FROM "${name}"`).all() })),
    );
  } finally {
    db.close();
  }
}

describe("secrets from upstream", () => {
  it("stay out of spans, stored records and audit rows (and the errors a caller gets)", async () => {
    exporter.reset();
    const config = loadConfigFile(file, process.env);
    const store = await openStore(config);
    const errors: string[] = [];
    await using yard = await Switchyard.connect(config, { store, audit: store });
    try {
      for (const tool of ["leaky_echo_error", "leaky_crash", "leaky_leak_text"]) {
        const outcome = await yard.request({ kind: "tool", name: tool, arguments: {} });
        if (!outcome.ok) errors.push(`${outcome.error.message} ${outcome.error.stack}`);
      }
      const broken = yard.servers().find((server) => server.name === "broken");
      errors.push(JSON.stringify(broken));
      await yard.close();
    } finally {
      await store.close();
    }
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(0);
    const spanText = JSON.stringify(
      spans.map((span) => ({
        name: span.name,
        status: span.status,
        attributes: span.attributes,
        events: span.events,
      })),
    );
    // The spans say the call failed and why, without the secrets.
    expect(spanText).toContain("upstream refused");
    expect.soft(leaks(spanText), "spans").toEqual([]);
    const rows = dumpSqlite(path.join(dir, "runs.db"));
    expect(rows).toContain("upstream refused");
    expect(rows).toContain("postgres://app_user:");
    expect.soft(leaks(rows), "records and audit rows").toEqual([]);
    expect.soft(leaks(errors.join("\n")), "errors").toEqual([]);
  });

  it("stay out of what the gateway answers its HTTP client, and of its stderr", async () => {
    const gateway = await startHttpGateway(file);
    try {
      const logs: unknown[] = [];
      const client = await httpClient(gateway.url, "legacy", {
        setup: (c) => c.setNotificationHandler("notifications/message", (n) => void logs.push(n.params)),
      });
      const seen: string[] = [];
      const call = async (name: string) => {
        try {
          seen.push(JSON.stringify(await client.callTool({ name, arguments: {} })));
        } catch (error) {
          seen.push(`${(error as Error).message} ${JSON.stringify(error)}`);
        }
      };
      await call("leaky_echo_error");
      await call("leaky_crash");
      await call("leaky_leak_text");
      await call("leaky_log_leak");
      await client.close();
      const answered = seen.join("\n");
      expect(answered).toContain("upstream refused");
      expect(textOf(JSON.parse(seen[2]!))).toContain("postgres://app_user:");
      expect.soft(leaks(answered), "answers").toEqual([]);
      expect.soft(leaks(JSON.stringify(logs)), "relayed logs").toEqual([]);
    } finally {
      await gateway.close();
    }
    expect(leaks(gateway.stderr()), "gateway stderr").toEqual([]);
  }, 60_000);

  it("stay out of the CLI's stderr and its --json error", async () => {
    for (const tool of ["leaky_echo_error", "leaky_crash", "leaky_leak_text", "broken_echo_error"]) {
      const run = await runCli(["--config", file, "call", tool, "{}"]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/^switchyard: |returned an error/m);
      expect.soft(leaks(run.stderr), `${tool}: stderr`).toEqual([]);
    }
    // With --json the error goes to stdout too; and the servers' table says why a server failed.
    const json = await runCli(["--config", file, "--json", "call", "leaky_echo_error", "{}"]);
    expect(json.stdout).toContain('"code": "SERVER_ERROR"');
    expect.soft(leaks(json.stdout + json.stderr), "--json").toEqual([]);
    const toolError = await runCli(["--config", file, "--json", "call", "leaky_leak_text", "{}"]);
    expect(toolError.stdout).toContain('"isError": true');
    expect.soft(leaks(toolError.stdout + toolError.stderr), "--json tool error").toEqual([]);
    const servers = await runCli(["--config", file, "servers"]);
    expect(servers.stdout).toContain("broken");
    expect.soft(leaks(servers.stdout + servers.stderr), "servers").toEqual([]);
  }, 90_000);
});
