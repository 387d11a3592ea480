import { type ChildProcess, spawn } from "node:child_process";
import { Socket } from "node:net";
import { DEFAULT_SHUTDOWN_GRACE_MS } from "../config/defaults.js";
import { Descendants, newServerTag, SERVER_TAG_VAR } from "./descendants.js";
import { trackProcessGroup, untrackProcessGroup } from "./process-groups.js";
import { pythonDefaults } from "./python-server.js";

export { DEFAULT_SHUTDOWN_GRACE_MS } from "../config/defaults.js";
/** Lines of output kept for error reports. */
export const OUTPUT_TAIL_LINES = 40;

const MAX_TAIL_LINE_CHARS = 1_000;
/** After the process exits, how long to wait for its pipes to drain before declaring it closed. */
const PIPE_DRAIN_MS = 200;
/**
 * Variables a server inherits from Switchyard's environment; a Python server's defaults
 * (`PYTHONUNBUFFERED=1`, python-server.ts) come next, the config's `env` adds to them or overrides them,
 * and `SWITCHYARD_SERVER_TAG` (descendants.ts) comes last.
 */
const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ"];

export interface ServerProcessOptions {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  shutdownGraceMs?: number;
  /**
   * Whether the running process — the child and its pipes — keeps this process's event loop alive,
   * as a child process does in Node (default true). Change it with {@link ServerProcess.holdEventLoop}.
   */
  holdsEventLoop?: boolean;
  /** Receives stdout as text; when absent, stdout lines are treated like stderr lines. */
  onStdout?: (chunk: string) => void;
  /** Receives each line of diagnostic output (stderr, and stdout when it is not the protocol channel). */
  onOutputLine?: (line: string) => void;
  /** Called once as soon as the process exits (its pipes may still hold its last output). */
  onExit?: () => void;
  /**
   * Called once when stdout (read through `onStdout`) closes while the process runs on: nothing it says
   * can arrive any more. Not called when the process exits, nor while it is being stopped.
   */
  onStdoutClosed?: () => void;
  /** Called once when the process is gone and its pipes are closed. */
  onClose?: () => void;
}

/** How a server process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A server's child process, owned from spawn to reaping. It runs in its own process group, and the
 * whole group is ended on stop or when this process ends, however it ends (see process-groups.ts),
 * so wrappers such as `npx` or `uv run` leave no grandchildren behind; on Linux so are its
 * descendants that left the group (descendants.ts). Stopping follows the MCP spec: close stdin, then
 * SIGTERM, then SIGKILL.
 */
export class ServerProcess {
  readonly #options: ServerProcessOptions;
  readonly #tail: string[] = [];
  #child: ChildProcess | undefined;
  /** What the process started that left its group (Linux). */
  #descendants: Descendants | undefined;
  #exit: ExitInfo | undefined;
  #closed: Promise<void> | undefined;
  #markClosed: (() => void) | undefined;
  #holding: boolean;
  #stopping = false;

  constructor(options: ServerProcessOptions) {
    this.#options = options;
    this.#holding = options.holdsEventLoop ?? true;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The process's stdin, while it runs. */
  get stdin(): NodeJS.WritableStream | undefined {
    const stdin = this.#child?.stdin;
    return stdin && !stdin.destroyed && !this.#exit ? stdin : undefined;
  }

  /** The stderr stream, for code that inspects it; output is best read through `onOutputLine`. */
  get stderr(): NodeJS.ReadableStream | null {
    return this.#child?.stderr ?? null;
  }

  /** The last lines of diagnostic output. */
  get outputTail(): readonly string[] {
    return this.#tail;
  }

  /** How the process ended, once it has. */
  get exitInfo(): ExitInfo | undefined {
    return this.#exit;
  }

  /**
   * Spawn the process; resolves once it runs.
   * @throws Error saying the command was not found or not executable, naming it.
   */
  start(): Promise<void> {
    if (this.#child) throw new Error("ServerProcess already started");
    const { command, args = [], env = {}, cwd, onStdout } = this.#options;
    const tag = newServerTag();
    const child = spawn(command, args, {
      cwd,
      env: { ...inheritedEnv(), ...pythonDefaults(command), ...env, [SERVER_TAG_VAR]: tag },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      windowsHide: true,
    });
    this.#child = child;
    // Known as soon as spawn returns (and the child already leads its own group): watched from now.
    if (child.pid !== undefined) {
      this.#descendants = new Descendants(tag, child.pid);
      trackProcessGroup(child.pid, this.#descendants);
    }
    this.#applyHold();
    this.#closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });

    child.stdout!.setEncoding("utf8");
    if (onStdout) {
      child.stdout!.on("data", onStdout);
      child.stdout!.once("close", () => this.#stdoutClosed());
    } else forEachLine(child.stdout!, (line) => this.#output(line));
    child.stderr!.setEncoding("utf8");
    forEachLine(child.stderr!, (line) => this.#output(line));
    child.stdin!.on("error", () => {
      // EPIPE when the server is gone; the exit is reported through onClose.
    });

    let drainTimer: NodeJS.Timeout | undefined;
    child.once("exit", (code, signal) => {
      this.#exit = { code, signal };
      this.#options.onExit?.();
      // A grandchild may hold the pipes open; do not wait for it forever.
      drainTimer = setTimeout(() => this.#finish(), PIPE_DRAIN_MS);
      drainTimer.unref();
    });
    child.once("close", () => {
      clearTimeout(drainTimer);
      this.#finish();
    });

    return new Promise((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (error: NodeJS.ErrnoException) => {
        reject(describeSpawnError(error, command, cwd));
        this.#finish();
      });
    });
  }

  /** End the process and its group: stdin, then SIGTERM, then SIGKILL, each after a grace period. Idempotent. */
  async stop(): Promise<void> {
    const child = this.#child;
    const closed = this.#closed;
    if (!child || !closed) return;
    const grace = this.#options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    // Whoever awaits the stop is kept alive until the process is gone, idle or not.
    this.#stopping = true;
    this.#applyHold();
    const descendants = this.#descendants;
    // While the group is there, its members link to what they started outside it.
    descendants?.record();
    if (!this.#exit) {
      child.stdin?.end();
      if (!(await settlesWithin(closed, grace))) {
        descendants?.record();
        signalGroup(child, "SIGTERM");
        if (!(await settlesWithin(closed, grace))) signalGroup(child, "SIGKILL");
      }
    }
    // The leader is gone or going; make sure nothing it started outlives it.
    signalGroup(child, "SIGKILL");
    await closed;
    // What left the group (a grandchild that called setsid): SIGTERM, then SIGKILL after the grace period.
    await descendants?.end(grace);
  }

  /**
   * Hold this process's event loop with the child and its pipes (`true`, while work is outstanding),
   * or let it exit while the server sits idle (`false`); the process-group hooks and the reaper end
   * the server when it does. A stopping process always holds it.
   */
  holdEventLoop(hold: boolean): void {
    if (this.#holding === hold) return;
    this.#holding = hold;
    this.#applyHold();
  }

  /** "exit code 3" or "killed by SIGKILL", once the process has ended. */
  describeExit(): string | undefined {
    const exit = this.#exit;
    if (!exit) return undefined;
    return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
  }

  /** Stdout closed: unless the process exits meanwhile (its pipes close as it goes), it lives on without it. */
  #stdoutClosed(): void {
    if (this.#exit || this.#stopping || !this.#markClosed) return;
    const timer = setTimeout(() => {
      if (!this.#exit && !this.#stopping && this.#markClosed) this.#options.onStdoutClosed?.();
    }, PIPE_DRAIN_MS);
    timer.unref();
  }

  #finish(): void {
    const markClosed = this.#markClosed;
    if (!markClosed) return;
    this.#markClosed = undefined;
    const child = this.#child;
    if (child?.pid !== undefined) {
      // Not stopped but gone (a crash): what it started outside its group goes with it, as its group does.
      if (!this.#stopping) this.#descendants?.signal("SIGKILL");
      signalGroup(child, "SIGKILL");
      untrackProcessGroup(child.pid);
    }
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    child?.stdin?.destroy();
    markClosed();
    this.#options.onClose?.();
  }

  #applyHold(): void {
    const child = this.#child;
    if (!child) return;
    const hold = this.#holding || this.#stopping;
    if (hold) child.ref();
    else child.unref();
    for (const pipe of [child.stdin, child.stdout, child.stderr]) {
      if (!(pipe instanceof Socket) || pipe.destroyed) continue;
      if (hold) pipe.ref();
      else pipe.unref();
    }
  }

  #output(line: string): void {
    const kept = line.length > MAX_TAIL_LINE_CHARS ? `${line.slice(0, MAX_TAIL_LINE_CHARS)}…` : line;
    this.#tail.push(kept);
    if (this.#tail.length > OUTPUT_TAIL_LINES) this.#tail.shift();
    this.#options.onOutputLine?.(kept);
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
