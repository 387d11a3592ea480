import { type ChildProcess, spawn } from "node:child_process";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { trackProcessGroup, untrackProcessGroup } from "./process-groups.js";

/** Largest single message accepted from a server before it is dropped (stdout line, bytes). */
export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How long a server gets to exit after its stdin is closed, then again after SIGTERM. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 1_000;
/** Lines of stderr kept for error reports. */
export const STDERR_TAIL_LINES = 40;

const MAX_STDERR_LINE_CHARS = 1_000;
/** After the process exits, how long to wait for its pipes to drain before declaring it closed. */
const PIPE_DRAIN_MS = 200;

/** Variables a server inherits from Switchyard's environment; the config's `env` adds to them. */
const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ"];

export interface StdioTransportOptions {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  maxMessageBytes?: number;
  shutdownGraceMs?: number;
  /** Called with every stdout line that is not a JSON-RPC message. */
  onNoise?: (line: string) => void;
  /** Called with every stderr line. */
  onStderr?: (line: string) => void;
}

/** How a server process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * MCP over a child process's stdin/stdout, newline-delimited, written for a fleet:
 * - the server runs in its own process group, and the whole group is ended on close or when
 *   this process exits, so wrappers such as `npx` or `uv run` leave no grandchildren behind;
 * - stdout lines that are not JSON-RPC are skipped and handed to `onNoise`, never fatal;
 * - stderr is captured: a bounded tail for error reports, each line to `onStderr`;
 * - shutdown follows the spec: close stdin, then SIGTERM, then SIGKILL.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #options: StdioTransportOptions;
  readonly #stderrTail: string[] = [];
  #child: ChildProcess | undefined;
  #exit: ExitInfo | undefined;
  #closed: Promise<void> | undefined;
  #markClosed: (() => void) | undefined;
  #stdoutBuffer = "";
  #discarding = false;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
  }

  /** The server's process id once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The server's stderr stream (captured by this transport; read it through `onStderr` or `stderrTail`). */
  get stderr(): NodeJS.ReadableStream | null {
    return this.#child?.stderr ?? null;
  }

  /** The last lines the server wrote to stderr. */
  get stderrTail(): readonly string[] {
    return this.#stderrTail;
  }

  /** How the process ended, once it has. */
  get exitInfo(): ExitInfo | undefined {
    return this.#exit;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error("StdioTransport already started");
    const { command, args = [], env = {}, cwd } = this.#options;
    const child = spawn(command, args, {
      cwd,
      env: { ...inheritedEnv(), ...env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      windowsHide: true,
    });
    this.#child = child;
    this.#closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });

    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => this.#readStdout(chunk));
    child.stderr!.setEncoding("utf8");
    forEachLine(child.stderr!, (line) => this.#readStderr(line));
    child.stdin!.on("error", (error) => this.onerror?.(error));

    let drainTimer: NodeJS.Timeout | undefined;
    child.once("exit", (code, signal) => {
      this.#exit = { code, signal };
      // A grandchild may hold the pipes open; do not wait for it forever.
      drainTimer = setTimeout(() => this.#finish(), PIPE_DRAIN_MS);
      drainTimer.unref();
    });
    child.once("close", () => {
      clearTimeout(drainTimer);
      this.#finish();
    });

    return new Promise((resolve, reject) => {
      child.once("spawn", () => {
        if (child.pid !== undefined) trackProcessGroup(child.pid);
        resolve();
      });
      child.once("error", (error: NodeJS.ErrnoException) => {
        reject(describeSpawnError(error, command, cwd));
        this.#finish();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#exit || stdin.destroyed) {
      return Promise.reject(new Error("the server process is not running"));
    }
    return new Promise((resolve, reject) => {
      const ok = stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : undefined));
      if (ok) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** End the server: close stdin, then SIGTERM, then SIGKILL, each after a grace period. Idempotent. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#closed) return;
    const grace = this.#options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    const closed = this.#closed;
    if (!this.#exit) {
      child.stdin?.end();
      if (!(await settlesWithin(closed, grace))) {
        signalGroup(child, "SIGTERM");
        if (!(await settlesWithin(closed, grace))) signalGroup(child, "SIGKILL");
      }
    }
    // The leader is gone or going; make sure nothing it started outlives it.
    signalGroup(child, "SIGKILL");
    await closed;
  }

  #finish(): void {
    if (!this.#markClosed) return;
    const markClosed = this.#markClosed;
    this.#markClosed = undefined;
    const child = this.#child;
    if (child?.pid !== undefined) {
      signalGroup(child, "SIGKILL");
      untrackProcessGroup(child.pid);
    }
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    child?.stdin?.destroy();
    markClosed();
    this.onclose?.();
  }

  #readStdout(chunk: string): void {
    const max = this.#options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    let start = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
      const piece = chunk.slice(start, end);
      start = end + 1;
      if (this.#discarding) {
        this.#discarding = false;
        this.#stdoutBuffer = "";
        continue;
      }
      const line = this.#stdoutBuffer + piece;
      this.#stdoutBuffer = "";
      this.#readLine(line);
    }
    if (this.#discarding) return;
    this.#stdoutBuffer += chunk.slice(start);
    if (this.#stdoutBuffer.length > max) {
      this.#discarding = true;
      this.#stdoutBuffer = "";
      this.onerror?.(new Error(`the server sent a message over ${max} bytes; it was dropped`));
    }
  }

  #readLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    const message = parseJsonRpc(line);
    if (message) this.onmessage?.(message);
    else this.#options.onNoise?.(line);
  }

  #readStderr(line: string): void {
    const kept = line.length > MAX_STDERR_LINE_CHARS ? `${line.slice(0, MAX_STDERR_LINE_CHARS)}…` : line;
    this.#stderrTail.push(kept);
    if (this.#stderrTail.length > STDERR_TAIL_LINES) this.#stderrTail.shift();
    this.#options.onStderr?.(kept);
  }
}

function parseJsonRpc(line: string): JSONRPCMessage | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    const isMessage =
      value !== null &&
      typeof value === "object" &&
      value.jsonrpc === "2.0" &&
      ("method" in value || "id" in value);
    return isMessage ? (value as JSONRPCMessage) : undefined;
  } catch {
    return undefined;
  }
}

function forEachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let pending = "";
  stream.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  });
  stream.on("end", () => {
    if (pending) onLine(pending);
    pending = "";
  });
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return env;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function describeSpawnError(error: NodeJS.ErrnoException, command: string, cwd: string | undefined): Error {
  if (error.code === "ENOENT") {
    return new Error(
      `command not found: ${command}${cwd ? ` (cwd ${cwd})` : ""}; check the "command" in the config and that it is on PATH`,
      { cause: error },
    );
  }
  if (error.code === "EACCES") {
    return new Error(`command is not executable: ${command}; check its permissions`, { cause: error });
  }
  return new Error(`could not start ${command}: ${error.message}`, { cause: error });
}
