import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { messageOf, SwitchyardError } from "../errors.js";
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
    if (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.NotConnected ||
      error.code === SdkErrorCode.SendFailed
    ) {
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

function isNetworkFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 8; depth += 1) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    if (current instanceof TypeError && /fetch failed|terminated/.test(String(message))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
