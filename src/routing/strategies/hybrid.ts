import { DEFAULT_FUSION_DEPTH, DEFAULT_RRF_K } from "../../config/defaults.js";
import { reciprocalRankFusion } from "../fusion.js";
import type { RoutingQuery } from "../query.js";
import type { RankedTool, RankOptions, RoutingStrategy } from "../strategy.js";
import type { ToolDescriptor } from "../tool-descriptor.js";

export { DEFAULT_FUSION_DEPTH } from "../../config/defaults.js";

/** Options of a {@link HybridStrategy}. */
export interface HybridOptions {
  /** The strategies fused, e.g. `[lexical, embedding]`. */
  strategies: readonly RoutingStrategy[];
  /** Weight of each strategy's ranking in the fusion; default 1 each. */
  weights?: readonly number[];
  /** Reciprocal-rank fusion constant; default {@link DEFAULT_RRF_K}. */
  k?: number;
  /** Each strategy ranks at least this deep; default {@link DEFAULT_FUSION_DEPTH}. */
  depth?: number;
  /**
   * Called when a strategy fails (an embeddings endpoint down); the others' fusion is returned. When
   * this is not given, a failure rejects the ranking.
   */
  onError?: (error: unknown, strategy: string) => void;
}

/**
 * Fuses several strategies by reciprocal rank (the usual lexical + embedding hybrid): robust to their
 * different score scales, and each catches what the other misses (exact identifiers vs paraphrases).
 */
export class HybridStrategy implements RoutingStrategy {
  readonly name: string;
  readonly #options: HybridOptions;

  constructor(options: HybridOptions) {
    this.#options = options;
    this.name = `hybrid(${options.strategies.map((strategy) => strategy.name).join("+")})`;
  }

  setServerTools(server: string, tools: readonly ToolDescriptor[]): void {
    for (const strategy of this.#options.strategies) strategy.setServerTools(server, tools);
  }

  /** @throws the first strategy's error when every strategy failed, or any error without `onError`. */
  async rank(query: RoutingQuery, options: RankOptions): Promise<RankedTool[]> {
    const depth = Math.max(options.limit, this.#options.depth ?? DEFAULT_FUSION_DEPTH);
    const { strategies, onError } = this.#options;
    const results = await Promise.allSettled(
      strategies.map((strategy) => strategy.rank(query, { ...options, limit: depth })),
    );
    const rankings: RankedTool[][] = [];
    const weights: number[] = [];
    results.forEach((result, i) => {
      if (result.status === "fulfilled") {
        rankings.push(result.value);
        weights.push(this.#options.weights?.[i] ?? 1);
      } else if (onError) onError(result.reason, strategies[i]!.name);
    });
    const failed = results.find((result) => result.status === "rejected");
    if (failed && (!onError || rankings.length === 0)) throw failed.reason;
    return reciprocalRankFusion(rankings, {
      k: this.#options.k ?? DEFAULT_RRF_K,
      weights,
      limit: options.limit,
    });
  }
}
