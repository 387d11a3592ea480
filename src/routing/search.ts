import type { Router } from "./router.js";
import type { RankedTool } from "./strategy.js";

/** The name of the tool a model (or an MCP client of the gateway) searches the catalog with. */
export const SEARCH_TOOLS_NAME = "search_tools";

/**
 * What `search_tools` is for and how to search, the opening of its description wherever it is offered
 * (the agent's and the gateway's; each adds a sentence on how the tools found are called). Searching by a
 * tool need — an action and its object — matches how tools are named and described, better than the
 * user's whole request; a request with several needs is several searches. Offered on every turn: short.
 */
export const SEARCH_TOOLS_GUIDE =
  "Search the tool catalog by a tool need: an action and its object, in English or Chinese " +
  '(e.g. "commit staged changes", "read file contents", "查询天气"). One need per search: a request ' +
  "with several needs takes several searches.";

/** The description of `search_tools`' `query` parameter (agent and gateway). */
export const SEARCH_QUERY_DESCRIPTION = 'One tool need: an action and its object, e.g. "read file contents".';

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
