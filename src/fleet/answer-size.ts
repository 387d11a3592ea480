// What an answer too large to keep becomes, on every transport: an error for its request, in its place.
import type { JSONRPCMessage } from "@modelcontextprotocol/client";

/**
 * The JSON-RPC error code of the answer Switchyard makes up for a response it dropped for its size
 * (in the range JSON-RPC leaves to implementations).
 */
export const RESULT_TOO_LARGE_RPC_CODE = -32099;
/** How much of a dropped message's start and end is kept to find its request id. */
export const ID_WINDOW_CHARS = 256;

/** The error response that takes the place of an answer to request `id` that was too large. */
export function tooLargeAnswer(id: string | number, message: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code: RESULT_TOO_LARGE_RPC_CODE, message } };
}

/**
 * The `id` of a response from the start or the end of its text (servers put it at either end).
 * Undefined for a request (it has a `method`), whose id is the server's own, not one of ours.
 */
export function requestIdOf(head: string, tail: string): string | number | undefined {
  if (/(^|[^\\])"method"\s*:/.test(head)) return undefined;
  const match =
    /^\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(\d+|"[^"]*")/.exec(head) ??
    /^\{\s*"id"\s*:\s*(\d+|"[^"]*")/.exec(head) ??
    /"id"\s*:\s*(\d+|"[^"]*")\s*\}\s*$/.exec(tail);
  if (!match) return undefined;
  return JSON.parse(match[1]!) as string | number;
}
