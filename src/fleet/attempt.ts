import type { Tool } from "@modelcontextprotocol/client";
import { abortable } from "../abort.js";
import { httpStatusOf, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import { recordOperation } from "../telemetry/operation-metrics.js";
import { endSpan, failSpan, inSpan, type Span, SpanKind, startSpan } from "../telemetry/tracer.js";
import { classifyFailure, isRefused } from "./call-errors.js";
import {
  type AttemptOptions,
  describeRequest,
  type RequestMethod,
  type ServerAnswers,
  type ServerRequest,
  sendRequest,
} from "./requests.js";
import type { ServerSession } from "./session.js";
import type { ServerSubscriptions } from "./subscriptions.js";

/** What one attempt needs of its server's connection. */
export interface AttemptTarget {
  readonly name: string;
  /** Whether the server is ready now. */
  isReady(): boolean;
  /** Why the server is not ready, when it is not and the reason is known (for failures' messages). */
  unavailable(): string | undefined;
  /** The server's live session, once it can take a request (through a lazy start or a restart). */
  ready(what: string, signal?: AbortSignal): Promise<ServerSession>;
  /** The incident a failure in the server's current life belongs to. */
  incident(): string;
  /** The session was found gone: the connection restarts the server (or renews its session). */
  lost(session: ServerSession): void;
  /** The tools the server listed in this life. */
  tools(): readonly Tool[];
  readonly subscriptions: ServerSubscriptions;
  readonly log: Logger;
}

/**
 * One attempt of one request on a server: wait until it can take it, send it, and turn any failure
 * into a classified `SwitchyardError` (once, here). Its span (MCP client span) is a child of the
 * request's. An expired Streamable HTTP session is renewed, and its request reported as not sent.
 */
export async function attemptOn<M extends RequestMethod>(
  target: AttemptTarget,
  request: Extract<ServerRequest, { method: M }>,
  options: AttemptOptions,
): Promise<ServerAnswers[M]> {
  const span = startSpan(spanName(request), {
    kind: SpanKind.CLIENT,
    attributes: () => spanAttributes(request, target.name),
  });
  const started = performance.now();
  // `mcp.client.operation.duration`, when a meter provider is registered: by the span's attributes
  // (the resource's URI left out: one series per URI is too many) and the error's type.
  const measured = (extra: Record<string, string>) =>
    recordOperation("client", (performance.now() - started) / 1000, () => {
      const { "mcp.resource.uri": _uri, ...attributes } = spanAttributes(request, target.name);
      return { ...attributes, ...extra };
    });
  try {
    const answer = (await inSpan(span, () => attempt(target, request, options, span))) as ServerAnswers[M];
    const toolError = request.method === "tools/call" && (answer as ServerAnswers["tools/call"]).isError;
    if (toolError) failSpan(span, "the tool answered with an error", "tool_error");
    span.end();
    measured(toolError ? { "error.type": "tool_error" } : {});
    return answer;
  } catch (error) {
    const rpcCode = (error as { rpcCode?: unknown }).rpcCode;
    const status: Record<string, string> =
      typeof rpcCode === "number" ? { "rpc.response.status_code": String(rpcCode) } : {};
    endSpan(span, error, () => status);
    measured({ ...status, "error.type": errorTypeOf(error) });
    throw error;
  }
}

/** A failure's `error.type`: its code (`TIMEOUT`, …), else its class's name. */
function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.name : "_OTHER";
}

async function attempt(
  target: AttemptTarget,
  request: ServerRequest,
  options: AttemptOptions,
  span: Span,
): Promise<unknown> {
  let incident = target.incident();
  let session: ServerSession | undefined;
  try {
    session = await target.ready(describeRequest(request), options.signal);
    // A tool list the server said changed is listed, and judged, before a call goes out.
    if (request.method === "tools/call") await abortable(session.toolsSettled(), options.signal);
    const refused = options.beforeSend?.();
    if (refused) throw refused;
    const client = session.client!;
    incident = target.incident();
    if (span.isRecording()) {
      const sessionId = (client.transport as { sessionId?: unknown } | undefined)?.sessionId;
      const version = client.getNegotiatedProtocolVersion();
      span.setAttributes({
        "network.transport": session.transportKind === "stdio" ? "pipe" : "tcp",
        ...(version ? { "mcp.protocol.version": version } : {}),
        ...(typeof sessionId === "string" ? { "mcp.session.id": sessionId } : {}),
      });
    }
    // The server may ask the client things (elicitation, sampling, roots) while this request is in flight.
    const answered = session.serverRequests.open();
    try {
      return await sendRequest(
        request,
        { server: target.name, client, session, tools: target.tools(), subscriptions: target.subscriptions },
        options,
      );
    } finally {
      answered();
    }
  } catch (error) {
    throw failureOf(target, { error, request, options, incident, session });
  }
}

/**
 * Ask a server whether it is alive — the breaker's probe and the health check, never a user's request:
 * a `ping`, or `server/discover` on the 2026-07-28 revision (which has no `ping`).
 * @throws SwitchyardError `SERVER_UNAVAILABLE` or `TIMEOUT`.
 */
export async function pingOn(target: AttemptTarget, timeoutMs: number): Promise<void> {
  const session = await target.ready("ping");
  const incident = target.incident();
  const client = session.client!;
  try {
    if (client.getDiscoverResult() !== undefined) await client.discover({ timeout: timeoutMs });
    else await client.ping({ timeout: timeoutMs });
  } catch (error) {
    const request: ServerRequest = { method: "tools/call", tool: "ping", args: {} };
    throw failureOf(target, { error, request, options: { timeoutMs }, incident, session });
  }
}

/** A failed attempt, classified once; a server found gone is restarted (or its session renewed). */
function failureOf(
  target: AttemptTarget,
  failed: {
    error: unknown;
    request: ServerRequest;
    options: AttemptOptions;
    incident: string;
    session: ServerSession | undefined;
  },
): SwitchyardError {
  const { error, request, incident, session } = failed;
  // An expired Streamable HTTP session: the request never ran. A new session starts now, and the
  // guard's retry (the request was not sent) waits for it.
  if (session?.transportKind === "http" && httpStatusOf(error) === 404 && target.isReady()) {
    target.log.info({}, "the server no longer knows the session (HTTP 404); starting a new one");
    target.lost(session);
    return new SwitchyardError(
      "SERVER_UNAVAILABLE",
      `server ${target.name} no longer knows its session; a new one is being started for ${describeRequest(request)}`,
      {
        server: target.name,
        ...(request.method === "tools/call" ? { tool: request.tool } : {}),
        cause: error,
        delivery: "not_sent",
        serverFault: false,
        incident,
      },
    );
  }
  const failure = classifyFailure(error, {
    server: target.name,
    request,
    timeoutMs: failed.options.timeoutMs,
    signal: failed.options.signal,
    incident,
    unavailable: () => target.unavailable(),
  });
  // A remote HTTP server has no process to watch: a server that refuses connections is lost.
  if (failure.code === "SERVER_UNAVAILABLE" && session && isRefused(error)) target.lost(session);
  return failure;
}

/** `tools/call orders_lookup`, `prompts/get summary`, `resources/read`: an attempt's span name. */
function spanName(request: ServerRequest): string {
  if (request.method === "tools/call") return `tools/call ${request.tool}`;
  if (request.method === "prompts/get") return `prompts/get ${request.prompt}`;
  return request.method;
}

function spanAttributes(request: ServerRequest, server: string): Record<string, string> {
  const attributes: Record<string, string> = {
    "mcp.method.name": request.method,
    "switchyard.server": server,
  };
  if (request.method === "tools/call") {
    attributes["gen_ai.operation.name"] = "execute_tool";
    attributes["gen_ai.tool.name"] = request.tool;
  } else if (request.method === "prompts/get") attributes["gen_ai.prompt.name"] = request.prompt;
  else if ("uri" in request) attributes["mcp.resource.uri"] = request.uri;
  return attributes;
}
