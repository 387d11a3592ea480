import { type JSONRPCMessage, SdkError, SdkErrorCode, type Transport } from "@modelcontextprotocol/client";
import { DEFAULT_MAX_RESULT_BYTES } from "../config/defaults.js";
import { ServerProcess, type ServerProcessOptions } from "./server-process.js";

/**
 * The JSON-RPC error code of the answer Switchyard makes up for a response it dropped for its size
 * (in the range JSON-RPC leaves to implementations).
 */
export const RESULT_TOO_LARGE_RPC_CODE = -32099;
/** How much of a dropped message's start and end is kept to find its request id. */
const ID_WINDOW_CHARS = 256;

export interface StdioTransportOptions
  extends Pick<ServerProcessOptions, "command" | "args" | "env" | "cwd" | "shutdownGraceMs" | "onExit"> {
  /** Largest single message accepted (one stdout line, bytes); default {@link DEFAULT_MAX_RESULT_BYTES}. */
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
  /** Set while the server's stdin is full: every send waits for the same drain. */
  #drained: Promise<void> | undefined;
  /** While a too-large message is being skipped: its first characters, its last ones, and its size. */
  #dropping: { head: string; tail: string; size: number } | undefined;

  constructor(options: StdioTransportOptions) {
    const { maxMessageBytes, onNoise, onStderr, ...spawnOptions } = options;
    this.#maxMessageBytes = maxMessageBytes ?? DEFAULT_MAX_RESULT_BYTES;
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

  /**
   * Write one message. When the pipe is full, resolves once it drains, shared by every waiting send;
   * rejects with `NotConnected` if the process goes away first, so no send waits forever.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process.stdin;
    if (!stdin) throw new SdkError(SdkErrorCode.NotConnected, "the server process is not running");
    if (this.#drained) await this.#drained;
    if (stdin.write(`${JSON.stringify(message)}\n`)) return;
    this.#drained ??= new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        stdin.off("drain", onDrain);
        stdin.off("close", onClose);
        this.#drained = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => settle(new SdkError(SdkErrorCode.NotConnected, "the server process went away"));
      stdin.once("drain", onDrain);
      stdin.once("close", onClose);
    });
    await this.#drained;
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
      if (this.#dropping) {
        this.#finishDropping(piece);
        continue;
      }
      const line = this.#buffer + piece;
      this.#buffer = "";
      if (line.length > this.#maxMessageBytes) {
        this.#dropping = { head: line.slice(0, ID_WINDOW_CHARS), tail: "", size: 0 };
        this.#finishDropping(line.slice(ID_WINDOW_CHARS));
      } else this.#readLine(line);
    }
    const rest = chunk.slice(start);
    if (this.#dropping) {
      this.#dropping.size += rest.length;
      this.#dropping.tail = (this.#dropping.tail + rest).slice(-ID_WINDOW_CHARS);
      return;
    }
    this.#buffer += rest;
    if (this.#buffer.length > this.#maxMessageBytes) {
      const buffered = this.#buffer;
      this.#buffer = "";
      this.#dropping = {
        head: buffered.slice(0, ID_WINDOW_CHARS),
        tail: buffered.slice(-ID_WINDOW_CHARS),
        size: buffered.length,
      };
    }
  }

  /**
   * The end of a message too large to keep: answer its request with an error in its place, so that
   * one call fails clearly and the connection lives on.
   */
  #finishDropping(lastPiece: string): void {
    const dropped = this.#dropping!;
    this.#dropping = undefined;
    const size = dropped.head.length + dropped.size + lastPiece.length;
    const tail = (dropped.tail + lastPiece).slice(-ID_WINDOW_CHARS);
    const id = requestIdOf(dropped.head, tail);
    const message = `the server's answer was ${size} bytes, over the ${this.#maxMessageBytes}-byte limit (maxResultBytes); it was dropped`;
    if (id === undefined) {
      this.onerror?.(new Error(`${message}, and its request id could not be found`));
      return;
    }
    this.onmessage?.({ jsonrpc: "2.0", id, error: { code: RESULT_TOO_LARGE_RPC_CODE, message } });
  }

  #readLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    const message = parseJsonRpc(line);
    if (message) this.onmessage?.(message);
    else this.#onNoise?.(line);
  }
}

/** The `id` of a response from the start or the end of its text (servers put it at either end). */
function requestIdOf(head: string, tail: string): string | number | undefined {
  const match =
    /^\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(\d+|"[^"]*")/.exec(head) ??
    /^\{\s*"id"\s*:\s*(\d+|"[^"]*")/.exec(head) ??
    /"id"\s*:\s*(\d+|"[^"]*")\s*\}\s*$/.exec(tail);
  if (!match) return undefined;
  return JSON.parse(match[1]!) as string | number;
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
