import type { Router } from "./router.js";
import type { RankedTool } from "./strategy.js";

/** The name of the tool a model (or an MCP client of the gateway) searches the catalog with. */
export const SEARCH_TOOLS_NAME = "search_tools";

/** Characters of a tool's description a search answer keeps: its first line, cut here. */
const DESCRIPTION_CHARS = 160;

/**
 * The best catalog tools for a query, of those `allowed` (what an identity may call): the router's
 * ranking, taken deeper when some are filtered out, at most `limit`. What tool search answers with — the
 * agent's `search_tools` and the gateway's alike.
 */
export async function searchCatalog(
  router: Router,
  query: string,
  options: { limit: number; allowed?: ((id: string) => boolean) | undefined },
): Promise<RankedTool[]> {
  const { limit, allowed } = options;
  const ranked = await router.rank(query, { topK: allowed ? limit * 4 : limit });
  return (allowed ? ranked.filter((hit) => allowed(hit.id)) : ranked).slice(0, limit);
}

/** A description's first line, cut to what a search answer shows of it. */
export function descriptionLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > DESCRIPTION_CHARS ? `${line.slice(0, DESCRIPTION_CHARS - 1)}…` : line;
}
