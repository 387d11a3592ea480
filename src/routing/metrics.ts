/** A labelled query: what was asked and which tools answer it. */
export interface LabelledQuery {
  id: string;
  query: string;
  /**
   * The tools the query needs, as groups: a group is satisfied when any of its ids is retrieved
   * (alternatives), and a query needs every group.
   */
  expectedGroups: string[][];
}

/** Routing quality over a set of queries. Recall and MRR are fractions in 0..1. */
export interface RoutingMetrics {
  /** Number of queries. */
  n: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  /** Mean reciprocal rank of the first relevant tool (0 for a query whose tools were not ranked). */
  mrr: number;
  /**
   * Share of a query's groups with a tool of theirs on one of the first 5 servers of the ranking (servers
   * in the order their first tool is ranked), averaged over queries; given when tools' servers are known.
   */
  serverRecallAt5?: number;
}

/** Share of a query's groups with at least one id among the first `k` of `ranked` (0..1). */
export function recallAt(ranked: readonly string[], groups: readonly string[][], k: number): number {
  if (groups.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return groups.filter((group) => group.some((id) => top.has(id))).length / groups.length;
}

/** 1 / the rank of the first relevant id in `ranked`, or 0 when none is there. */
export function reciprocalRank(ranked: readonly string[], groups: readonly string[][]): number {
  const relevant = new Set(groups.flat());
  const at = ranked.findIndex((id) => relevant.has(id));
  return at === -1 ? 0 : 1 / (at + 1);
}

/**
 * Share of `groups` with a tool on one of the first `k` servers of `ranked` (servers in the order their
 * first tool appears); `serverOf` gives a tool's server (unknown tools count for no server).
 */
export function serverRecallAt(
  ranked: readonly string[],
  groups: readonly string[][],
  k: number,
  serverOf: (id: string) => string | undefined,
): number {
  if (groups.length === 0) return 0;
  const servers = new Set<string>();
  for (const id of ranked) {
    if (servers.size === k) break;
    const server = serverOf(id);
    if (server !== undefined) servers.add(server);
  }
  return (
    groups.filter((group) =>
      group.some((id) => {
        const server = serverOf(id);
        return server !== undefined && servers.has(server);
      }),
    ).length / groups.length
  );
}

/**
 * R@1, R@5, R@10 and MRR averaged over queries, given each query's ranking (same order as `queries`);
 * with `serverOf`, server-level R@5 too.
 */
export function routingMetrics(
  queries: readonly LabelledQuery[],
  rankings: readonly (readonly string[])[],
  serverOf?: (id: string) => string | undefined,
): RoutingMetrics {
  const mean = (value: (ranked: readonly string[], query: LabelledQuery) => number) =>
    queries.length === 0
      ? 0
      : queries.reduce((sum, query, i) => sum + value(rankings[i] ?? [], query), 0) / queries.length;
  return {
    n: queries.length,
    recallAt1: mean((ranked, q) => recallAt(ranked, q.expectedGroups, 1)),
    recallAt5: mean((ranked, q) => recallAt(ranked, q.expectedGroups, 5)),
    recallAt10: mean((ranked, q) => recallAt(ranked, q.expectedGroups, 10)),
    mrr: mean((ranked, q) => reciprocalRank(ranked, q.expectedGroups)),
    ...(serverOf
      ? { serverRecallAt5: mean((ranked, q) => serverRecallAt(ranked, q.expectedGroups, 5, serverOf)) }
      : {}),
  };
}
