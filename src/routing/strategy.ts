import type { RoutingQuery } from "./query.js";
import type { ToolDescriptor } from "./tool-descriptor.js";

/** A tool in a ranking: its id and the strategy's score (higher is better; scales differ by strategy). */
export interface RankedTool {
  id: string;
  score: number;
}

/** Options of one {@link RoutingStrategy.rank} call. */
export interface RankOptions {
  /** Longest ranking wanted. */
  limit: number;
  /** Abandons the ranking (embedding requests are cancelled). */
  signal?: AbortSignal;
}

/**
 * One way of ranking tools for a query. Implementations live in `strategies/`: lexical (BM25F, the
 * default), embedding, hybrid (reciprocal-rank fusion of others) and two-stage (servers, then tools).
 * A strategy keeps its own index of the tools, updated one server at a time.
 */
export interface RoutingStrategy {
  /** Short name for logs and reports (`lexical`, `hybrid(lexical+embedding)`). */
  readonly name: string;
  /** Replace every tool of one server; an empty list removes the server. */
  setServerTools(server: string, tools: readonly ToolDescriptor[]): void;
  /** The best tools for a query, best first, at most `limit`; tools with nothing in common are left out. */
  rank(query: RoutingQuery, options: RankOptions): Promise<RankedTool[]>;
  /** The same ranking without waiting, for strategies that need no I/O (lexical, two-stage over lexical). */
  rankNow?(query: RoutingQuery, limit: number): RankedTool[];
}
