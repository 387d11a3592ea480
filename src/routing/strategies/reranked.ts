import { DEFAULT_RERANK_DEPTH } from "../../config/defaults.js";
import type { RoutingQuery } from "../query.js";
import type { RankedTool, RankOptions, RoutingStrategy } from "../strategy.js";
import type { ToolDescriptor } from "../tool-descriptor.js";
import { ModelTexts } from "../tool-text.js";

export { DEFAULT_RERANK_DEPTH } from "../../config/defaults.js";

/** Scores (query, text) pairs, e.g. a local cross-encoder ({@link LocalReranker}). */
export interface Reranker {
  /** The model's name or path, for reports. */
  readonly model: string;
  /** One score per text, higher is more relevant to the query. */
  score(query: string, texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[]>;
}

/** Options of a {@link RerankedStrategy}. */
export interface RerankedOptions {
  /** The strategy whose best tools are reordered (`two-stage`, `hybrid`…). */
  strategy: RoutingStrategy;
  reranker: Reranker;
  /** Best tools reordered; the rest keep their order; default {@link DEFAULT_RERANK_DEPTH}. */
  depth?: number;
  /** Called when the reranker fails; the strategy's own order is returned. Without it, the ranking fails. */
  onError?: (error: unknown, strategy: string) => void;
}

/**
 * A strategy's best tools reordered by a cross-encoder, which reads the request and each tool's text
 * together (more exact than comparing two vectors, too slow for the whole catalog). The tools keep the
 * scores of the places they take, so the scale the router sees is the strategy's.
 */
export class RerankedStrategy implements RoutingStrategy {
  readonly name: string;
  readonly #options: RerankedOptions;
  readonly #texts = new ModelTexts();

  constructor(options: RerankedOptions) {
    this.#options = options;
    this.name = `${options.strategy.name}+rerank`;
  }

  setServerTools(server: string, tools: readonly ToolDescriptor[]): void {
    this.#options.strategy.setServerTools(server, tools);
    this.#texts.setServerTools(server, tools);
  }

  /** @throws the reranker's error when it fails and no `onError` is given. */
  async rank(query: RoutingQuery, options: RankOptions): Promise<RankedTool[]> {
    const { strategy, reranker, onError } = this.#options;
    const depth = this.#options.depth ?? DEFAULT_RERANK_DEPTH;
    const ranked = await strategy.rank(query, { ...options, limit: Math.max(options.limit, depth) });
    const top = ranked.slice(0, depth);
    let scores: number[];
    try {
      scores = await reranker.score(
        query.text,
        top.map((tool) => this.#texts.get(tool.id) ?? tool.id),
        options.signal ? { signal: options.signal } : {},
      );
    } catch (error) {
      if (!onError) throw error;
      onError(error, `rerank(${reranker.model})`);
      return ranked.slice(0, options.limit);
    }
    const order = top.map((tool, i) => ({ tool, i, score: scores[i] ?? Number.NEGATIVE_INFINITY }));
    order.sort((a, b) => b.score - a.score || a.i - b.i);
    const reordered = order.map(({ tool }, place) => ({ ...tool, score: top[place]!.score }));
    return [...reordered, ...ranked.slice(depth)].slice(0, options.limit);
  }
}
