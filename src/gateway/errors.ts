import type { CallToolResult } from "@modelcontextprotocol/server";
import { ProtocolError } from "@modelcontextprotocol/server";
import { isSwitchyardError, messageOf, type SwitchyardError } from "../errors.js";
import { RETRY_AFTER_META_KEY } from "./meta.js";

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
  "RATE_LIMITED",
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
 * tools), an error the server itself answered with keeps its code, anything else `-32603`. A
 * `RATE_LIMITED` result says when to try again in its text and, for programs, in
 * `_meta["switchyard/retryAfterMs"]`.
 */
export function callFailure(error: unknown, redact: Redact): CallToolResult {
  if (isSwitchyardError(error) && TOOL_ERROR_CODES.has(error.code) && error.rpcCode === undefined)
    return {
      isError: true,
      content: [{ type: "text", text: redact(`${error.code}: ${error.message}`) }],
      ...(error.retryAfterMs !== undefined ? { _meta: { [RETRY_AFTER_META_KEY]: error.retryAfterMs } } : {}),
    };
  throw protocolError(error, redact);
}

/**
 * Any other failure (resources, prompts, a call that cannot be mapped to a result) as a JSON-RPC error,
 * its message redacted (a server's own error, its stderr, may quote its secrets).
 */
export function protocolError(error: unknown, redact: Redact): ProtocolError {
  if (error instanceof ProtocolError) {
    const message = redact(error.message);
    return message === error.message ? error : new ProtocolError(error.code, message, error.data);
  }
  if (!isSwitchyardError(error)) return new ProtocolError(INTERNAL_ERROR, redact(messageOf(error)));
  return new ProtocolError(rpcCodeOf(error), redact(error.message), { code: error.code });
}

/**
 * A tool's error result as the client gets it: its texts redacted, like every error the gateway sends
 * (what a tool answered with `isError` is the server's error, not data the client asked for).
 */
export function toolErrorResult(result: CallToolResult, redact: Redact): CallToolResult {
  let changed = false;
  const content = result.content.map((block) => {
    if (block.type !== "text") return block;
    const text = redact(block.text);
    if (text === block.text) return block;
    changed = true;
    return { ...block, text };
  });
  return changed ? { ...result, content } : result;
}

/** Replaces the secrets in a text (the Switchyard's redactor). */
export type Redact = (text: string) => string;

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
