// What the routing tests share: tools made in a line, and the rankings they get.
import { Router } from "../../src/routing/router.js";
import type { ToolDescriptor } from "../../src/routing/tool-descriptor.js";

/** A tool of a server, its id the two joined as the catalog joins them. */
export const toolOf = (server: string, name: string, description: string): ToolDescriptor => ({
  id: `${server}_${name}`,
  server,
  name,
  description,
});

/** The id of the tool a router ranks first for a request, if any. */
export const top = (router: Router, request: string) => router.rankNow(request, { topK: 1 })[0]?.id;

/** How long `work` takes, in milliseconds: a guard against a quadratic search, bounded far above its need. */
export const msFor = (work: () => unknown) => {
  const started = performance.now();
  work();
  return performance.now() - started;
};

/** The ids of the first `k` tools a router over `tools` (none offered whole) ranks for a request. */
export const offeredBy = (tools: ToolDescriptor[], request: string, k: number) =>
  new Router(tools, { offerAllUpTo: 0 }).rankNow(request, { topK: k }).map((tool) => tool.id);
