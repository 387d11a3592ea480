import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { findCause, messageOf, SwitchyardError, systemErrorCode } from "../errors.js";
import { RESULT_TOO_LARGE_RPC_CODE } from "./stdio-transport.js";

/** JSON-RPC "invalid params": the server rejected the arguments. */
const INVALID_PARAMS = -32602;

export interface CallErrorContext {
  server: string;
  tool: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** Why the server is unavailable, when it is. */
  unavailable: () => string | undefined;
}

/** Turn whatever a tool call threw into a {@link SwitchyardError} that names the server and the tool. */
export function toCallError(error: unknown, context: CallErrorContext): SwitchyardError {
  const { server, tool, timeoutMs, signal } = context;
  const where = { server, tool, cause: error };
  if (error instanceof SwitchyardError) return error;
  if (signal?.aborted) {
    return new SwitchyardError(
      "CANCELLED",
      `call to ${tool} on server ${server} was cancelled by the caller`,
      where,
    );
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return new SwitchyardError(
        "TIMEOUT",
        `call to ${tool} on server ${server} got no answer within ${timeoutMs} ms; the server was asked to cancel (raise timeoutMs for slow tools)`,
        where,
      );
    }
    if (CONNECTION_LOST.has(error.code)) {
      const reason = context.unavailable() ?? messageOf(error);
      return new SwitchyardError(
        "SERVER_UNAVAILABLE",
        `server ${server} went away during the call to ${tool}: ${reason}`,
        where,
      );
    }
  }
  if (error instanceof ProtocolError && error.code === RESULT_TOO_LARGE_RPC_CODE) {
    return new SwitchyardError(
      "RESULT_TOO_LARGE",
      `call to ${tool} on server ${server} failed: ${error.message}; ask for less, or raise maxResultBytes`,
      where,
    );
  }
  if (error instanceof ProtocolError) {
    const code = error.code === INVALID_PARAMS ? "INVALID_ARGUMENTS" : "SERVER_ERROR";
    return new SwitchyardError(
      code,
      `server ${server} rejected the call to ${tool} (JSON-RPC ${error.code}): ${error.message}`,
      { ...where, rpcCode: error.code },
    );
  }
  if (isNetworkFailure(error)) {
    return new SwitchyardError(
      "SERVER_UNAVAILABLE",
      `server ${server} could not be reached for ${tool}: ${messageOf(error)}`,
      where,
    );
  }
  return new SwitchyardError(
    "SERVER_ERROR",
    `call to ${tool} on server ${server} failed: ${messageOf(error)}`,
    where,
  );
}

/** Node's fetch failing below HTTP: refused, reset, or cut off mid-answer. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
/** SDK errors that mean the connection is gone (or never was). */
const CONNECTION_LOST = new Set<string>([
  SdkErrorCode.ConnectionClosed,
  SdkErrorCode.NotConnected,
  SdkErrorCode.SendFailed,
]);

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

/** True when an error says the connection is gone: the SDK's closed/not connected/send failed. */
export function isConnectionLoss(error: unknown): boolean {
  return error instanceof SdkError && CONNECTION_LOST.has(error.code);
}
