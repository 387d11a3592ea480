import type { CallToolResult } from "@modelcontextprotocol/server";
import { ProtocolError } from "@modelcontextprotocol/server";
import { isSwitchyardError, messageOf, type SwitchyardError } from "../errors.js";

/** JSON-RPC codes the gateway answers with. */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** MCP's "resource not found". */
const RESOURCE_NOT_FOUND = -32002;

/**
 * Failures of a call that the model (through the client) can act on: the call was made, or refused for
 * its arguments, and the answer is "fix the arguments", "not now" or "not allowed". They go back as tool
 * results with `isError: true` and the message (bad arguments: what was wrong and what the tool takes),
 * as the 2025-11-25 spec says for input validation (SEP-1303: so models can correct themselves), and
 * because hosts show tool errors to the model while a JSON-RPC error usually ends the host's turn.
 */
const TOOL_ERROR_CODES = new Set([
  "INVALID_ARGUMENTS",
  "TIMEOUT",
  "SERVER_UNAVAILABLE",
  "SERVER_ERROR",
  "CIRCUIT_OPEN",
  "QUEUE_FULL",
  "RESULT_TOO_LARGE",
  "INVALID_RESULT",
  "POLICY_DENIED",
  "CAPABILITY_MISSING",
  "AUTH_REQUIRED",
  "TOOL_QUARANTINED",
]);

/**
 * A failed `tools/call` as the client gets it: a tool error result (see {@link TOOL_ERROR_CODES}), or a
 * JSON-RPC error — an unknown tool is `-32602` (Invalid params: the spec's protocol error for unknown
 * tools), an error the server itself answered with keeps its code, anything else `-32603`.
 */
export function callFailure(error: unknown): CallToolResult {
  if (isSwitchyardError(error) && TOOL_ERROR_CODES.has(error.code) && error.rpcCode === undefined)
    return { isError: true, content: [{ type: "text", text: `${error.code}: ${error.message}` }] };
  throw protocolError(error);
}

/** Any other failure (resources, prompts, a call that cannot be mapped to a result) as a JSON-RPC error. */
export function protocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (!isSwitchyardError(error)) return new ProtocolError(INTERNAL_ERROR, messageOf(error));
  return new ProtocolError(rpcCodeOf(error), error.message, { code: error.code });
}

function rpcCodeOf(error: SwitchyardError): number {
  if (error.rpcCode !== undefined) return error.rpcCode;
  switch (error.code) {
    case "TOOL_NOT_FOUND":
    case "INVALID_ARGUMENTS":
    case "INVALID_INPUT":
    case "PROMPT_NOT_FOUND":
    case "RESOURCE_AMBIGUOUS":
      return INVALID_PARAMS;
    case "RESOURCE_NOT_FOUND":
      return RESOURCE_NOT_FOUND;
    default:
      return INTERNAL_ERROR;
  }
}
