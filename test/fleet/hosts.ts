import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isAlive, NODE, processesWith, RAW_SERVER, ROOT, SDK_SERVER } from "../helpers.js";

/** Helpers for tests that run a host process (a script or the CLI) and look for what it leaves behind. */

export const CALL_HOST = `${ROOT}test/fixtures/call-host.mjs`;
export const BUSY_SERVER = `${ROOT}test/fixtures/busy-server.mjs`;
export const QUIET_HTTP_SERVER = `${ROOT}test/fixtures/quiet-http-server.mjs`;
export const HASHER = `${ROOT}examples/servers/hasher.mjs`;
/** The environment variable every server of a marked fleet carries (and passes on to its children). */
export const MARKER_VAR = "SWITCHYARD_TEST_MARKER";

export function newMarker(what: string): string {
  return `${what}-${process.pid}-${Math.random().toString(36).slice(2)}`;
}

/** Write a fleet config to a temporary file; returns its path. */
export function fleetFile(mcpServers: Record<string, unknown>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-hosts-"));
  const file = path.join(dir, "fleet.json");
  writeFileSync(file, JSON.stringify({ mcpServers }));
  return file;
}

/** Config entries for each kind of server process, every one carrying `marker` in its environment. */
export function markedServers(marker: string) {
  const env = { [MARKER_VAR]: marker };
  const launched = (script: string, ...args: string[]) => ({
    url: "http://127.0.0.1:{{port}}/mcp",
    command: NODE,
    args: [script, ...args],
    env,
  });
  return {
    /** A stdio server that blocks its event loop while it works (it reads nothing meanwhile). */
    busy: { command: NODE, args: [BUSY_SERVER], env },
    /** A stdio server that starts a grandchild and never ends it, like an `npx` wrapper. */
    wrapper: { command: NODE, args: [RAW_SERVER, "--spawn-child"], env },
    /** A stdio server that ignores SIGTERM and the end of stdin: only SIGKILL ends it. */
    stubborn: { command: NODE, args: [RAW_SERVER, "--ignore-sigterm"], env },
    /** The example hasher, launched by the fleet on a free port. */
    hasher: launched(HASHER, "--port", "{{port}}"),
    /** The SDK fixture over Streamable HTTP, launched by the fleet. */
    http: launched(SDK_SERVER, "--http", "{{port}}"),
    /** A launched HTTP server with no stream for server-initiated messages, spoken to in the 2025 era. */
    quiet: { ...launched(QUIET_HTTP_SERVER, "--port", "{{port}}"), versionNegotiation: "legacy" },
    /** The SDK fixture over stdio (it negotiates the newest protocol, with a `subscriptions/listen`). */
    sdk: { command: NODE, args: [SDK_SERVER], env },
  };
}

/** Live processes carrying the marker: the servers and everything they started. */
export function marked(marker: string): number[] {
  return processesWith(marker, "environ");
}

/** Pids of the reaper processes a host started: "switchyard-reaper <host pid>" (its title, or its argv). */
export function reapersOf(hostPid: number): number[] {
  const pids = [`switchyard-reaper ${hostPid}\0`, `switchyard-reaper\0${hostPid}\0`].flatMap((name) =>
    processesWith(name),
  );
  return [...new Set(pids)];
}

export interface Host {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Run a host process (node with these arguments) with its stdout and stderr collected. */
export function startHost(args: string[], env: Record<string, string> = {}): Host {
  const child = spawn(NODE, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** The `{ pid, servers, protocols }` line call-host.mjs prints once connected. */
export function connectedLine(
  host: Host,
): { pid: number; servers: Record<string, number>; protocols: Record<string, string> } | undefined {
  const line = host.stdout().split("\n")[0];
  return line && host.stdout().includes("\n") ? JSON.parse(line) : undefined;
}

/**
 * Poll until every pid is gone or `timeoutMs` passes; returns how long after `since` (a
 * `performance.now()` time) each one was first seen gone, or `undefined` for those still alive.
 */
export async function deathTimes(
  pids: Record<string, number>,
  since: number,
  timeoutMs = 5_000,
): Promise<Record<string, number | undefined>> {
  const times: Record<string, number | undefined> = {};
  const deadline = since + timeoutMs;
  for (;;) {
    for (const [name, pid] of Object.entries(pids)) {
      if (times[name] === undefined && !isAlive(pid)) times[name] = Math.round(performance.now() - since);
    }
    const left = Object.keys(pids).filter((name) => times[name] === undefined);
    if (left.length === 0 || performance.now() > deadline) return times;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The grandchildren that raw-server --spawn-child reports on stderr (in the host's debug log). */
export function grandchildrenIn(text: string): number[] {
  return [...text.matchAll(/child pid (\d+)/g)].map((match) => Number(match[1]));
}
