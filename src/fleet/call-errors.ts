import {
  InsufficientScopeError,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import {
  type Delivery,
  type ErrorCode,
  findCause,
  httpStatusOf,
  messageOf,
  readableFailure,
  SwitchyardError,
  systemErrorCode,
} from "../errors.js";
import { RESULT_TOO_LARGE_RPC_CODE } from "./answer-size.js";
import { describeRequest, type ServerRequest } from "./requests.js";
import { RateLimitedAnswer } from "./retry-after.js";

/** JSON-RPC "invalid params": the server rejected the arguments. */
const INVALID_PARAMS = -32602;
/** JSON-RPC "method not found": the server does not serve that kind of request. */
const METHOD_NOT_FOUND = -32601;
/** JSON-RPC codes servers use for transient trouble (request timeout, session not found). */
const TRANSIENT_RPC = new Set([-32001]);
/** HTTP statuses that say "not now" rather than "no": the request did not run. */
const TRANSIENT_HTTP = new Set([429, 502, 503, 504]);
/** HTTP statuses that say the client is not allowed in. */
const AUTH_HTTP = new Set([401, 403]);

/**
 * Node's system error codes, in one place, by what they say about a request.
 * `NEVER_DELIVERED`: it never reached the server. `CONNECTION_DROPPED`: the connection broke, maybe mid-answer.
 */
export const NEVER_DELIVERED = new Set(["ECONNREFUSED", "EPIPE"]);
const CONNECTION_DROPPED = new Set(["ECONNRESET", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
const NETWORK_CODES = new Set([...NEVER_DELIVERED, ...CONNECTION_DROPPED]);

/** SDK errors that mean the connection is gone (or never was). */
const CONNECTION_LOST = new Set<string>([
  SdkErrorCode.ConnectionClosed,
  SdkErrorCode.NotConnected,
  SdkErrorCode.SendFailed,
]);

/** What a failed attempt was, and what the connection knows of its server. */
export interface FailureContext {
  server: string;
  request: ServerRequest;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** Why the server is unavailable, when it is. */
  unavailable: () => string | undefined;
  /** The life of the server the request went to: failures of one lost connection share it. */
  incident: string;
}

/**
 * Turn whatever an attempt threw into a {@link SwitchyardError} that names the server and what was asked
 * (the tool of a tool call; the method and its URI or prompt otherwise, with no `tool`) and says, once
 * and for everyone above, whether the request was sent, whether another try is safe (`delivery`),
 * whether it counts against the server (`serverFault`), and which incident it belongs to.
 */
export function classifyFailure(error: unknown, context: FailureContext): SwitchyardError {
  const { request, ...rest } = context;
  const failure = toCallError(error, { ...rest, tool: describeRequest(request) });
  if (request.method === "tools/call" || failure.tool === undefined) return failure;
  const { tool: _tool, ...details } = failure.details();
  const copy = new SwitchyardError(failure.code, failure.message, details);
  if (failure.stack !== undefined) copy.stack = failure.stack;
  return copy;
}

interface CallErrorContext extends Omit<FailureContext, "request"> {
  tool: string;
}

function toCallError(error: unknown, context: CallErrorContext): SwitchyardError {
  const { server, tool, timeoutMs, signal, incident } = context;
  const fail = (code: ErrorCode, message: string, delivery: Delivery, serverFault: boolean, more = {}) =>
    new SwitchyardError(code, message, { server, tool, cause: error, delivery, serverFault, ...more });
  if (error instanceof SwitchyardError) return error;
  if (signal?.aborted) {
    return fail(
      "CANCELLED",
      `call to ${tool} on server ${server} was cancelled by the caller`,
      "final",
      false,
    );
  }
  const limited = findCause(error, (cause): cause is RateLimitedAnswer => cause instanceof RateLimitedAnswer);
  if (limited) {
    // Not processed: safe to send again once the server says; never a sign that it is unwell.
    const { status, retryAfterMs } = limited;
    return fail(
      "RATE_LIMITED",
      `server ${server} refused the call to ${tool} for now (HTTP ${status})${retryAfterMs === undefined ? "; it did not say when to try again" : `: ${whenAgain(retryAfterMs)}`}`,
      "transient",
      false,
      { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
    );
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return fail(
        "TIMEOUT",
        `call to ${tool} on server ${server} got no answer within ${timeoutMs} ms; the server was asked to cancel (raise timeoutMs for slow tools)`,
        "final",
        true,
      );
    }
    const capability = missingCapability(error);
    if (capability) return capabilityMissing(error, capability, context);
    if (CONNECTION_LOST.has(error.code)) {
      const reason = context.unavailable() ?? messageOf(error);
      // A call in flight when its server went away may be what crashed it: retrying a poison pill
      // only burns restarts. One that never left is safe to send again.
      const delivery: Delivery =
        error.code === SdkErrorCode.NotConnected || systemErrorCode(error, NEVER_DELIVERED)
          ? "not_sent"
          : error.code === SdkErrorCode.SendFailed
            ? "maybe_ran"
            : "final";
      return fail(
        "SERVER_UNAVAILABLE",
        `server ${server} went away during the call to ${tool}: ${reason}`,
        delivery,
        true,
        { incident },
      );
    }
  }
  if (error instanceof ProtocolError) {
    const capability = missingCapability(error);
    if (capability) return capabilityMissing(error, capability, context);
    if (error.code === RESULT_TOO_LARGE_RPC_CODE) {
      return fail(
        "RESULT_TOO_LARGE",
        `call to ${tool} on server ${server} failed: ${error.message}; ask for less, or raise maxResultBytes`,
        "final",
        false,
      );
    }
    if (isOutputSchemaViolation(error)) {
      return fail(
        "INVALID_RESULT",
        `server ${server} answered the call to ${tool} with a result that breaks the tool's own output schema: ${error.message}. The tool misbehaved; the arguments were not the problem`,
        "final",
        false,
      );
    }
    if (error.code === METHOD_NOT_FOUND) {
      // "I do not do that": a limit of the server, not a sign that it is unwell.
      return fail(
        "CAPABILITY_MISSING",
        `server ${server} does not know the request for ${tool} (JSON-RPC ${error.code}: ${error.message})`,
        "final",
        false,
        { rpcCode: error.code },
      );
    }
    const invalidArguments = error.code === INVALID_PARAMS;
    return fail(
      invalidArguments ? "INVALID_ARGUMENTS" : "SERVER_ERROR",
      `server ${server} rejected the call to ${tool} (JSON-RPC ${error.code}): ${error.message}`,
      TRANSIENT_RPC.has(error.code) ? "transient" : "final",
      !invalidArguments,
      { rpcCode: error.code },
    );
  }
  if (error instanceof InsufficientScopeError || error instanceof UnauthorizedError) {
    // The SDK's OAuth flow gave up mid-session: the token expired with no refresh, or the server asks
    // for a wider scope (step-up) than the login granted. Either way only a new login helps.
    const scope = error instanceof InsufficientScopeError && error.requiredScope;
    return fail(
      "AUTH_REQUIRED",
      `server ${server} refused the call to ${tool}: ${scope ? `it needs the scope "${scope}", which the login did not grant` : "its authorization is missing or expired"}; run \`switchyard login ${server}\` (or authorizeServer) and reconnect`,
      "final",
      false,
    );
  }
  const status = httpStatusOf(error);
  if (status !== undefined && AUTH_HTTP.has(status)) {
    return fail(
      "AUTH_REQUIRED",
      `server ${server} refused the call to ${tool} with HTTP ${status}; give it credentials (an Authorization header in its "headers")`,
      "final",
      false,
      { status },
    );
  }
  if (status !== undefined) {
    return fail(
      "SERVER_ERROR",
      `server ${server} failed the call to ${tool} with HTTP ${status}: ${messageOf(error)}`,
      TRANSIENT_HTTP.has(status) ? "transient" : "final",
      true,
      { status },
    );
  }
  if (isNetworkFailure(error)) {
    return fail(
      "SERVER_UNAVAILABLE",
      `server ${server} could not be reached for ${tool}: ${readableFailure(error)}`,
      systemErrorCode(error, NEVER_DELIVERED) ? "not_sent" : "maybe_ran",
      true,
      { incident },
    );
  }
  return fail(
    "SERVER_ERROR",
    `call to ${tool} on server ${server} failed: ${messageOf(error)}`,
    "maybe_ran",
    true,
  );
}

/** When to try again, `retryAfterMs` from now: "try again in 30 s (after 2026-12-04T14:00:00.000Z)". */
export function whenAgain(retryAfterMs: number, now = Date.now()): string {
  return `try again in ${Math.ceil(retryAfterMs / 1000)} s (after ${new Date(now + retryAfterMs).toISOString()})`;
}

/** True when an error says the connection is gone: the SDK's closed/not connected/send failed. */
export function isConnectionLoss(error: unknown): boolean {
  return error instanceof SdkError && CONNECTION_LOST.has(error.code);
}

/** True when a request never reached a remote server because it refused the connection. */
export function isRefused(error: unknown): boolean {
  return systemErrorCode(error, REFUSED) !== undefined;
}
const REFUSED = new Set(["ECONNREFUSED"]);

function capabilityMissing(error: Error, capability: string, context: CallErrorContext): SwitchyardError {
  const { server, tool } = context;
  const theServers = /^Server does not support/.test(error.message);
  return new SwitchyardError(
    "CAPABILITY_MISSING",
    theServers
      ? `server ${server} does not offer ${capability}, which ${tool} needs (${error.message})`
      : `server ${server} needs ${capability} for ${tool}, which this client does not offer (${error.message}); the tool cannot be used from here`,
    { server, tool, cause: error, capability, delivery: "final", serverFault: false },
  );
}

/**
 * The capability a server asked for that this client lacks: an `input_required` answer (2026-07-28)
 * the client cannot fulfil, or a server→client request for elicitation, sampling or roots.
 */
function missingCapability(error: SdkError | ProtocolError): string | undefined {
  if (error instanceof SdkError) {
    if (
      error.code === SdkErrorCode.UnsupportedResultType ||
      error.code === SdkErrorCode.InputRequiredRoundsExceeded
    ) {
      return inputKinds(error.data) ?? "input from the user (elicitation, sampling or roots)";
    }
    // Every "not supported" is a limit of one side, never the server being unwell: the client's
    // ("Client does not support …", or an `input_required` it has no handler to fulfil: "Cannot fulfil
    // input request … no handler is registered for 'sampling/createMessage'"), or the server's ("Server
    // does not support completions …").
    if (error.code === SdkErrorCode.CapabilityNotSupported) {
      return (
        /(elicitation|sampling|roots)/.exec(error.message)?.[1] ??
        /^Server does not support ([\w. ]+?) \(/.exec(error.message)?.[1] ??
        "a capability"
      );
    }
    return undefined;
  }
  const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  if (required && typeof required === "object") return Object.keys(required).join(", ") || undefined;
  // A handler-less input request answered by the SDK on the client's behalf.
  if (
    /no handler|method not found/i.test(error.message) &&
    /elicitation|sampling|roots/.test(error.message)
  ) {
    return /(elicitation|sampling|roots)/.exec(error.message)?.[1];
  }
  return undefined;
}

/** The kinds of input an `input_required` payload asked for (`elicitation`, `sampling`, `roots`). */
function inputKinds(data: unknown): string | undefined {
  const requests = (data as { lastResult?: { inputRequests?: unknown }; inputRequests?: unknown } | undefined)
    ?.lastResult?.inputRequests;
  if (!requests || typeof requests !== "object") return undefined;
  const kinds = new Set<string>();
  for (const request of Object.values(requests as Record<string, { method?: unknown }>)) {
    const method = typeof request?.method === "string" ? request.method : "";
    const kind = /^(elicitation|sampling|roots)/.exec(method)?.[1];
    if (kind) kinds.add(kind);
  }
  return kinds.size ? [...kinds].join(", ") : undefined;
}

/** The SDK checks `structuredContent` against the tool's `outputSchema` itself and raises these. */
function isOutputSchemaViolation(error: ProtocolError): boolean {
  return /output schema|structured content/i.test(error.message);
}

function isNetworkFailure(error: unknown): boolean {
  return (
    systemErrorCode(error, NETWORK_CODES) !== undefined ||
    findCause(
      error,
      (cause): cause is TypeError =>
        cause instanceof TypeError && /fetch failed|terminated/.test(cause.message),
    ) !== undefined
  );
}
