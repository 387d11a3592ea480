import { type JSONRPCMessage, SdkError, SdkErrorCode, type Transport } from "@modelcontextprotocol/client";
import { DEFAULT_MAX_RESULT_BYTES } from "../config/defaults.js";
import { ID_WINDOW_CHARS, requestIdOf, tooLargeAnswer } from "./answer-size.js";
import { ServerProcess, type ServerProcessOptions } from "./server-process.js";

/** A request that opens a subscription for the connection's lifetime: it is not work in flight. */
const LISTEN_METHOD = "subscriptions/listen";
/** The version probe, never cancelled: once `initialize` goes out, it awaits nothing more. */
const PROBE_METHOD = "server/discover";

export interface StdioTransportOptions
  extends Pick<
    ServerProcessOptions,
    "command" | "args" | "env" | "cwd" | "shutdownGraceMs" | "onExit" | "onStdoutClosed"
  > {
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
 *
 * The server process holds this process's event loop only while work is outstanding — from spawn to
 * the first answer, then while a request awaits its answer — just as an HTTP client's idle keep-alive
 * sockets do not hold it: a script that forgets to close its connections still exits, and the
 * process-group hooks end the servers when it does.
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
  /** Requests sent and neither answered nor cancelled yet: id → method. */
  readonly #outstanding = new Map<string | number, string>();

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

  /** True while the version probe (`server/discover`) awaits its answer. */
  get probing(): boolean {
    for (const method of this.#outstanding.values()) if (method === PROBE_METHOD) return true;
    return false;
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
    this.#noteSent(message);
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

  /** Count the requests that await an answer, and hold the event loop while there are any. */
  #noteSent(message: JSONRPCMessage): void {
    const sent = message as { id?: string | number; method?: string; params?: { requestId?: unknown } };
    const { id, method } = sent;
    if (method === undefined || method === LISTEN_METHOD) return; // an answer; a lasting subscription
    if (id !== undefined) {
      // The SDK gave up on an unanswered probe and moved on: that probe will never be answered.
      if (method === "initialize") this.#forget(PROBE_METHOD);
      this.#outstanding.set(id, method);
    } else if (method === "notifications/cancelled") {
      this.#outstanding.delete(sent.params?.requestId as string | number);
    }
    this.#process.holdEventLoop(this.#outstanding.size > 0);
  }

  #forget(method: string): void {
    for (const [id, sentMethod] of this.#outstanding) if (sentMethod === method) this.#outstanding.delete(id);
  }

  /** Hand a message on; an answer settles its request. */
  #deliver(message: JSONRPCMessage): void {
    const received = message as { id?: string | number; method?: string };
    if (received.method === undefined && received.id !== undefined && this.#outstanding.delete(received.id)) {
      this.#process.holdEventLoop(this.#outstanding.size > 0);
    }
    this.onmessage?.(message);
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
    this.#deliver(tooLargeAnswer(id, message));
  }

  #readLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    const message = parseJsonRpc(line);
    if (message) this.#deliver(message);
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
