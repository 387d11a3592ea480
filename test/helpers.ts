import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createLogger, isSwitchyardError, type Logger, type SwitchyardError } from "../src/index.js";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const NODE = process.execPath;
export const CLI = `${ROOT}dist/cli/main.js`;
export const RAW_SERVER = `${ROOT}test/fixtures/raw-server.mjs`;
export const SDK_SERVER = `${ROOT}test/fixtures/sdk-server.mjs`;
export const SSE_SERVER = `${ROOT}test/fixtures/sse-server.mjs`;
export const EVERYTHING = `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;

/** A config entry that starts the hand-written fixture server with the given flags. */
export function raw(...flags: string[]) {
  return { command: NODE, args: [RAW_SERVER, ...flags] };
}

/** A config entry that starts the SDK fixture server over stdio. */
export function sdk(...flags: string[]) {
  return { command: NODE, args: [SDK_SERVER, ...flags] };
}

/** A logger that keeps every entry, for assertions. */
export function memoryLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const logger = createLogger({ level: "trace", format: "json", write: (line) => lines.push(line) });
  return { logger, lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** An HTTP server process started for a test; `url` is read from its "listening <url>" line. */
export interface HttpServer {
  url: string;
  process: ChildProcess;
  close(): Promise<void>;
}

/** Reads the URL from a server's "listening …" line. */
const LISTENING_URL = (output: string) => /listening (https?:\/\/\S+)/.exec(output)?.[1];

/**
 * Start an HTTP server process and wait until its output (stdout or stderr) names its URL;
 * by default it looks for `listening <url>`.
 */
export function startHttpServer(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; urlFrom?: (output: string) => string | undefined } = {},
): Promise<HttpServer> {
  const urlFrom = options.urlFrom ?? LISTENING_URL;
  const child = spawn(command, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`${args.join(" ")} did not say "listening" within 15 s: ${seen}`));
    }, 15_000);
    const read = (chunk: string) => {
      seen += chunk;
      const url = urlFrom(seen);
      if (url) {
        clearTimeout(timer);
        resolve({ url, process: child, close });
      }
    };
    child.stdout!.setEncoding("utf8").on("data", read);
    child.stderr!.setEncoding("utf8").on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited with ${code}: ${seen}`));
    });
  });
}

/** True while a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Poll until `check` is true, or fail after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Pids of live processes whose command line (or, with `"environ"`, environment) contains `marker`. */
export function processesWith(marker: string, where: "cmdline" | "environ" = "cmdline"): number[] {
  const pids: number[] = [];
  for (const entry of readdirSafe("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/${where}`, "utf8");
      if (text.includes(marker) && isAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Run the built CLI to completion; resolves with its exit code and output. */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [CLI, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The SwitchyardError a promise rejects with; fails the test when it resolves or throws anything else. */
export async function failureOf(promise: Promise<unknown>): Promise<SwitchyardError> {
  try {
    await promise;
  } catch (error) {
    if (isSwitchyardError(error)) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}
