// What the gateway adds to `_meta` of what it sends: which server an entry or a result comes from, and
// how a call was served. One prefix for all of them, `switchyard/` (a valid `_meta` prefix: one label
// and a slash; the spec reserves only prefixes whose second label is `modelcontextprotocol` or `mcp`).

import type { ToolResult } from "../calls/normalize.js";

/** The server a listed tool, resource, template or prompt comes from. */
export const SERVER_META_KEY = "switchyard/server";
/** On a tool result: the fallback server that served the call while the tool's own server was down. */
export const SERVED_BY_META_KEY = "switchyard/servedBy";
/** On a tool result: `true` when it came from the server's result cache (nothing was sent). */
export const CACHED_META_KEY = "switchyard/cached";
/** On a `RATE_LIMITED` tool error: in how many ms the server (or its `rateLimit`) takes calls again. */
export const RETRY_AFTER_META_KEY = "switchyard/retryAfterMs";

/** `_meta` of an entry the gateway lists: where it comes from. */
export const serverMeta = (server: string): Record<string, unknown> => ({ [SERVER_META_KEY]: server });

/** `_meta` of a tool result served otherwise than by its own server answering now; undefined if not. */
export function servedMeta(result: ToolResult): Record<string, unknown> | undefined {
  if (result.servedBy === undefined && result.cached !== true) return undefined;
  return {
    ...(result.servedBy !== undefined ? { [SERVED_BY_META_KEY]: result.servedBy } : {}),
    ...(result.cached === true ? { [CACHED_META_KEY]: true } : {}),
  };
}
