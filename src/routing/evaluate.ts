import { DEFAULT_EVAL_DEPTH } from "../config/defaults.js";
import { queryFromText } from "./conversation.js";
import { type LabelledQuery, type RoutingMetrics, routingMetrics } from "./metrics.js";
import type { Router } from "./router.js";

export { DEFAULT_EVAL_DEPTH } from "../config/defaults.js";

/** Options of {@link evaluateRouter}. */
export interface EvaluateOptions {
  /** Ranking depth for the metrics; default {@link DEFAULT_EVAL_DEPTH}. */
  depth?: number;
  /** Read `user: …` / `system: …` transcripts as conversations; default `true`. */
  transcripts?: boolean;
  /**
   * The tool needs of a request (a query's latest user turn), ranked beside it as parts of it — a
   * model's rewrite (`route eval --rewrite`); awaited before each query's timing starts.
   */
  rewrite?: (request: string) => Promise<readonly string[]>;
  signal?: AbortSignal;
}

/** The metrics of a labelled set, each query's ranking, and the mean time to rank one query. */
export interface Evaluation extends RoutingMetrics {
  /** Mean wall time of one `rank` call, in milliseconds (the index is built before timing starts). */
  msPerQuery: number;
  /** Each query's ranking (tool ids, best first, up to `depth`), in the order of the queries. */
  rankings: Array<{ id: string; ranked: string[] }>;
}

/**
 * Rank every labelled query with the router and measure R@1, R@5, R@10, MRR and server-level R@5. A query written as a
 * transcript (`user: …` / `system: …` lines) is routed as a conversation: its latest user turn weighs
 * most, as in the agent.
 */
export async function evaluateRouter(
  router: Router,
  queries: readonly LabelledQuery[],
  options: EvaluateOptions = {},
): Promise<Evaluation> {
  const depth = options.depth ?? DEFAULT_EVAL_DEPTH;
  const rankings: Evaluation["rankings"] = [];
  let elapsedMs = 0;
  for (const query of queries) {
    options.signal?.throwIfAborted();
    const asked = options.transcripts === false ? { text: query.query } : queryFromText(query.query);
    const needs = options.rewrite ? await options.rewrite(asked.text) : [];
    const routed = needs.length ? { ...asked, needs } : asked;
    const started = performance.now();
    const ranked = await router.rank(routed, {
      topK: depth,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    elapsedMs += performance.now() - started;
    rankings.push({ id: query.id, ranked: ranked.map((tool) => tool.id) });
  }
  const metrics = routingMetrics(
    queries,
    rankings.map((ranking) => ranking.ranked),
    (id) => router.tool(id)?.server,
  );
  return { ...metrics, msPerQuery: queries.length ? elapsedMs / queries.length : 0, rankings };
}
