// The transport of one 2025-11-25 HTTP session: the SDK's web-standard transport for every request it
// is given (initialize, GET streams, DELETE, replays, anything unusual), and beside it a lean exchange
// on Node's own request and response for the common case, a single JSON-RPC message POSTed in a session
// held here (http.ts and gateway.ts decide which). A lean request is answered `application/json` when
// its answer is the first thing the server sends for it, and turns into an SSE stream as soon as
// anything comes before the answer (progress, a log message, an elicitation or sampling request), or
// when the call outlasts the keep-alive interval (a proxy then sees bytes). The spec lets the server
// choose either; the SDK's 2026-07-28 path chooses the same way.
import type { ServerResponse } from "node:http";
import {
  type AuthInfo,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/** Options of {@link SessionTransport}: the SDK transport's, and the keep-alive interval of lean streams. */
export type SessionTransportOptions = ConstructorParameters<
  typeof WebStandardStreamableHTTPServerTransport
>[0] & {
  /** A lean call unanswered this long becomes an SSE stream with a keep-alive comment, then one every as long. */
  keepAliveMs?: number;
};

/** The SDK's default SSE keep-alive interval, kept for lean streams. */
const KEEP_ALIVE_MS = 15_000;

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** One lean request waiting for its answer: its response, untouched until the server first sends for it. */
class LeanExchange {
  #streaming = false;
  #done = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    readonly res: ServerResponse,
    readonly sessionId: string | undefined,
    keepAliveMs: number,
  ) {
    if (keepAliveMs > 0) {
      this.#timer = setTimeout(() => {
        this.#comment();
        this.#timer = setInterval(() => this.#comment(), keepAliveMs).unref();
      }, keepAliveMs).unref();
    }
  }

  /** Whether the client is gone or the answer was sent. */
  get over(): boolean {
    return this.#done || this.res.destroyed;
  }

  /** Send one message for this request: the answer ends it (JSON when nothing came before it). */
  send(message: JSONRPCMessage, answer: boolean): void {
    if (this.over) {
      this.end();
      return;
    }
    const body = JSON.stringify(message);
    if (answer && !this.#streaming) {
      this.res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        ...(this.sessionId === undefined ? {} : { "mcp-session-id": this.sessionId }),
      });
      this.res.end(body);
      this.end();
      return;
    }
    this.#stream();
    this.res.write(`event: message\ndata: ${body}\n\n`);
    if (answer) {
      this.res.end();
      this.end();
    }
  }

  /**
   * The session ended before the answer: the response ends with none, as the SDK's stream of a request
   * does when its session closes (an empty SSE stream when nothing was sent yet; the client's call fails).
   */
  abandon(): void {
    if (!this.over) this.#stream();
    this.end();
  }

  /** Stop: no more keep-alives; the response is ended if it was streaming. */
  end(): void {
    this.#done = true;
    clearInterval(this.#timer);
    if (this.#streaming && !this.res.writableEnded) this.res.end();
  }

  #stream(): void {
    if (this.#streaming) return;
    this.#streaming = true;
    this.res.writeHead(200, {
      ...SSE_HEADERS,
      ...(this.sessionId === undefined ? {} : { "mcp-session-id": this.sessionId }),
    });
    this.res.flushHeaders();
  }

  #comment(): void {
    if (this.over) {
      this.end();
      return;
    }
    this.#stream();
    this.res.write(": keepalive\n\n");
  }
}

/**
 * A 2025-11-25 session's transport: the SDK's `WebStandardStreamableHTTPServerTransport` (`web`) for
 * web requests, and {@link SessionTransport.serveLean} for a single message on Node's request and
 * response. Messages for a lean request go to its response; every other message to `web`.
 */
export class SessionTransport implements Transport {
  readonly web: WebStandardStreamableHTTPServerTransport;
  readonly #keepAliveMs: number;
  /** Lean requests not yet answered, by their JSON-RPC id. */
  readonly #lean = new Map<RequestId, LeanExchange>();
  #closed = false;
  /** The protocol versions the server supports (told at connect), for the header check. */
  #versions: string[] | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport["onmessage"];

  constructor({ keepAliveMs, ...options }: SessionTransportOptions = {}) {
    this.#keepAliveMs = keepAliveMs ?? KEEP_ALIVE_MS;
    this.web = new WebStandardStreamableHTTPServerTransport(options);
    this.web.onmessage = (message, extra) => this.onmessage?.(message, extra);
    this.web.onerror = (error) => this.onerror?.(error);
    this.web.onclose = () => {
      this.#closed = true;
      for (const exchange of this.#lean.values()) exchange.abandon();
      this.#lean.clear();
      this.onclose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.web.sessionId;
  }

  /** Whether the session ended (its requests are answered 404 by `web`). */
  get closed(): boolean {
    return this.#closed;
  }

  start(): Promise<void> {
    return this.web.start();
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.#versions = versions;
    this.web.setSupportedProtocolVersions(versions);
  }

  /** Whether a request with this `MCP-Protocol-Version` (none: the negotiated one) may be served here. */
  accepts(protocolVersion: string | undefined): boolean {
    return (
      !this.#closed && (protocolVersion === undefined || (this.#versions?.includes(protocolVersion) ?? false))
    );
  }

  /** A web request of this session (any method), as the SDK's transport answers it. */
  handleRequest(
    request: Request,
    options?: { authInfo?: AuthInfo; parsedBody?: unknown },
  ): Promise<Response> {
    return this.web.handleRequest(request, options);
  }

  /**
   * Serve one JSON-RPC message of this session on `res`: a request is answered when the server answers
   * it (JSON, or SSE when something comes first); a notification or a client's answer gets 202.
   * `message` must have been checked to be one (see `isSingleMessage`).
   */
  serveLean(message: JSONRPCMessage, res: ServerResponse, extra: MessageExtraInfo): void {
    if ("method" in message && "id" in message) {
      const exchange = new LeanExchange(res, this.sessionId, this.#keepAliveMs);
      this.#lean.set(message.id, exchange);
      res.once("close", () => {
        // The client went away before its answer: the call goes on (the client cancels it with
        // notifications/cancelled, as over the SDK's stream); what it sends later is dropped.
        if (!exchange.over) exchange.end();
      });
    } else {
      res.writeHead(202).end();
    }
    this.onmessage?.(message, extra);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answer = !("method" in message);
    const id = answer ? (message as { id?: RequestId }).id : options?.relatedRequestId;
    const exchange = id === undefined ? undefined : this.#lean.get(id);
    // The SDK declares its options without `undefined` (exactOptionalPropertyTypes); the same object.
    if (!exchange) return this.web.send(message, options as Parameters<typeof this.web.send>[1]);
    if (answer) this.#lean.delete(id as RequestId);
    exchange.send(message, answer);
  }

  close(): Promise<void> {
    return this.web.close();
  }
}

/**
 * Whether a parsed body is one JSON-RPC message a lean exchange may take (the shapes the SDK's transport
 * accepts; anything else goes to it, to be answered as it does): a request or notification (`method`, an
 * optional string or number `id`, object `params` if any), or an answer (`id` and `result` or `error`).
 */
export function isSingleMessage(body: unknown): body is JSONRPCMessage {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const message = body as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return false;
  const id = message.id;
  const validId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
  if (typeof message.method === "string") {
    const params = message.params;
    return (id === undefined || validId) && (params === undefined || isObject(params));
  }
  return validId && (isObject(message.result) || isObject(message.error));
}

const isObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
