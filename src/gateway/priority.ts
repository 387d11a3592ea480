import type { ServerContext } from "@modelcontextprotocol/server";
import type { CallPriority } from "../config/vocabulary.js";

/** The HTTP header a gateway client sets a call's priority with (`high`, `normal`, `low`). */
export const PRIORITY_HEADER = "x-switchyard-priority";
/** The `_meta` key of a `tools/call` request that sets its priority (any transport; the header wins). */
export const PRIORITY_META_KEY = "switchyard/priority";

/**
 * The priority a client asked for its call: the `X-Switchyard-Priority` header of its HTTP request, else
 * `_meta["switchyard/priority"]` of the request; undefined (`normal`) when neither says. A value that is
 * none of the three goes on as it is, for the call to be refused with `INVALID_INPUT` naming it.
 */
export function priorityOf(
  ctx: ServerContext,
  meta: Record<string, unknown> | undefined,
): CallPriority | undefined {
  const asked = ctx.http?.req?.headers.get(PRIORITY_HEADER) ?? meta?.[PRIORITY_META_KEY];
  if (asked === undefined || asked === null) return undefined;
  return (typeof asked === "string" ? asked.trim().toLowerCase() : asked) as CallPriority;
}
