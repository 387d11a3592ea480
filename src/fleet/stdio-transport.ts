import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { ServerProcess, type ServerProcessOptions } from "./server-process.js";

/** Largest single message accepted from a server before it is dropped (stdout line, bytes). */
export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export interface StdioTransportOptions
  extends Pick<ServerProcessOptions, "command" | "args" | "env" | "cwd" | "shutdownGraceMs"> {
  maxMessageBytes?: number;
  /** Called with every stdout line that is not a JSON-RPC message. */
  onNoise?: (line: string) => void;
  /** Called with every stderr line. */
  onStderr?: (line: string) => void;
}

/**
 * MCP over a child process's stdin/stdout, newline-delimited, written for a fleet: the process is a
 * {@link ServerProcess} (own process group, spec shutdown, stderr tail), and stdout lines that are
 * not JSON-RPC are skipped and handed to `onNoise`, never fatal.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #process: ServerProcess;
  readonly #maxMessageBytes: number;
  readonly #onNoise: ((line: string) => void) | undefined;
  #buffer = "";
  #discarding = false;

  constructor(options: StdioTransportOptions) {
    const { maxMessageBytes, onNoise, onStderr, ...spawnOptions } = options;
    this.#maxMessageBytes = maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#onNoise = onNoise;
    this.#process = new ServerProcess({
      ...spawnOptions,
      onStdout: (chunk) => this.#readStdout(chunk),
      ...(onStderr ? { onOutputLine: onStderr } : {}),
      onClose: () => this.onclose?.(),
    });
  }

  /** The server's process id once started (the SDK recognizes stdio transports by `pid` and `stderr`). */
  get pid(): number | undefined {
    return this.#process.pid;
  }

  get stderr(): NodeJS.ReadableStream | null {
    return this.#process.stderr;
  }

  /** The server process: exit status and the last lines it wrote to stderr. */
  get process(): ServerProcess {
    return this.#process;
  }

  start(): Promise<void> {
    return this.#process.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process.stdin;
    if (!stdin) return Promise.reject(new Error("the server process is not running"));
    return new Promise((resolve, reject) => {
      const ok = stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : undefined));
      if (ok) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** End the server: close stdin, then SIGTERM, then SIGKILL, each after a grace period. Idempotent. */
  close(): Promise<void> {
    return this.#process.stop();
  }

  #readStdout(chunk: string): void {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
      const piece = chunk.slice(start, end);
      start = end + 1;
      if (this.#discarding) {
        this.#discarding = false;
        this.#buffer = "";
        continue;
      }
      const line = this.#buffer + piece;
      this.#buffer = "";
      this.#readLine(line);
    }
    if (this.#discarding) return;
    this.#buffer += chunk.slice(start);
    if (this.#buffer.length > this.#maxMessageBytes) {
      this.#discarding = true;
      this.#buffer = "";
      this.onerror?.(
        new Error(`the server sent a message over ${this.#maxMessageBytes} bytes; it was dropped`),
      );
    }
  }

  #readLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    const message = parseJsonRpc(line);
    if (message) this.onmessage?.(message);
    else this.#onNoise?.(line);
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
