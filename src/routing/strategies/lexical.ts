import { DEFAULT_BM25_K1, DEFAULT_CLAUSE_WEIGHT, DEFAULT_FIELD_WEIGHTS } from "../../config/defaults.js";
import { Bm25Index, type FieldSetting, type QueryTerm } from "../bm25-index.js";
import { splitClauses } from "../clauses.js";
import { type QueryPart, queryTerms, type RoutingQuery } from "../query.js";
import { ServerGroups } from "../server-groups.js";
import type { RankedTool, RankOptions, RoutingStrategy } from "../strategy.js";
import { createTokenizer, type Tokenize, type TokenizerOptions } from "../tokenizer.js";
import type { ToolDescriptor } from "../tool-descriptor.js";
import { TOOL_FIELDS, type ToolField, toolText } from "../tool-text.js";

export { DEFAULT_CLAUSE_WEIGHT, DEFAULT_FIELD_WEIGHTS } from "../../config/defaults.js";

/** Fewest terms a sentence needs to be ranked on its own: "Thanks." is not a request. */
const MIN_CLAUSE_TERMS = 2;
/** How far down each sentence's own ranking is merged: its best few are what it adds. */
const MAX_CLAUSE_HITS = 20;

/** Options of a {@link LexicalStrategy}. */
export interface LexicalOptions {
  tokenizer?: TokenizerOptions;
  /** Weight of each field of a tool's text; defaults: {@link DEFAULT_FIELD_WEIGHTS}. */
  fieldWeights?: Partial<Record<ToolField, number>>;
  /** Length normalization, per field or for all; default `DEFAULT_BM25_B` (0.75). */
  b?: number | Partial<Record<ToolField, number>>;
  /** BM25 term-frequency saturation; default {@link DEFAULT_BM25_K1}. */
  k1?: number;
  /**
   * Rank each sentence of a several-sentence request on its own too, and score every tool by its best
   * normalized score, the sentences' scaled by this weight; 0 turns it off; default
   * {@link DEFAULT_CLAUSE_WEIGHT}.
   */
  clauseWeight?: number;
  /**
   * How a term repeated in the request counts: `once` (default; a long request that repeats a word is
   * not more about it) or `count` (classic BM25 query term frequency).
   */
  queryTermCounts?: "once" | "count";
}

/**
 * The embedded default: BM25F over a tool's fields (name, server, description, parameters, enums),
 * with English/Chinese tokenization and per-sentence ranking of multi-part requests. No model needed;
 * well under a millisecond per query on 4,000 tools.
 */
export class LexicalStrategy implements RoutingStrategy {
  readonly name = "lexical";
  readonly #index: Bm25Index<ToolField>;
  readonly #tokenize: Tokenize;
  readonly #clauseWeight: number;
  readonly #countRepeats: boolean;
  readonly #servers = new ServerGroups();

  constructor(options: LexicalOptions = {}) {
    // Typed: the defaults must name every field.
    const weights: Record<ToolField, number> = { ...DEFAULT_FIELD_WEIGHTS, ...options.fieldWeights };
    const b = options.b;
    const fields = Object.fromEntries(
      TOOL_FIELDS.map((field): [ToolField, FieldSetting] => [
        field,
        { weight: weights[field], ...(b === undefined ? {} : { b: typeof b === "number" ? b : b[field] }) },
      ]),
    ) as Record<ToolField, FieldSetting>;
    this.#index = new Bm25Index({ fields, k1: options.k1 ?? DEFAULT_BM25_K1 });
    this.#tokenize = createTokenizer(options.tokenizer);
    this.#clauseWeight = options.clauseWeight ?? DEFAULT_CLAUSE_WEIGHT;
    this.#countRepeats = options.queryTermCounts === "count";
  }

  setServerTools(server: string, tools: readonly ToolDescriptor[]): void {
    for (const id of this.#servers.replace(
      server,
      tools.map((tool) => tool.id),
    ))
      this.#index.remove(id);
    for (const tool of tools) {
      const text = toolText(tool);
      const terms = Object.fromEntries(TOOL_FIELDS.map((field) => [field, this.#tokenize(text[field])]));
      this.#index.add(tool.id, terms as Record<ToolField, string[]>);
    }
  }

  async rank(query: RoutingQuery, options: RankOptions): Promise<RankedTool[]> {
    return this.rankNow(query, options.limit);
  }

  /** {@link rank} without the promise, for callers that measure or cannot wait. */
  rankNow(query: RoutingQuery, limit: number): RankedTool[] {
    // Each sentence is tokenized once: the whole request's terms are the union of its sentences'.
    const clauses = (this.#clauseWeight > 0 ? splitClauses(query.text) : [query.text]).map((clause) =>
      this.#tokenize(clause),
    );
    const whole = this.#index.search(this.#wholeTerms(clauses, query.context ?? []), limit);
    const ranked = clauses.filter((terms) => new Set(terms).size >= MIN_CLAUSE_TERMS);
    if (ranked.length < 2 || whole.length === 0) return whole;
    return this.#mergeClauses(
      whole,
      ranked.map((terms) => [...new Set(terms)].map((term) => ({ term, weight: 1 }))),
      limit,
    );
  }

  #wholeTerms(clauses: readonly string[][], context: readonly QueryPart[]): QueryTerm[] {
    const request = new Map<string, number>();
    for (const clause of clauses)
      for (const term of clause) request.set(term, this.#countRepeats ? (request.get(term) ?? 0) + 1 : 1);
    const fromContext = queryTerms(context, this.#tokenize).filter((term) => !request.has(term.term));
    return [...[...request].map(([term, weight]) => ({ term, weight })), ...fromContext];
  }

  /**
   * Best score per tool: the whole request's, or a sentence's scaled so that the sentence's best tool
   * scores `clauseWeight` times the whole request's best (scores stay on the whole request's scale).
   */
  #mergeClauses(whole: RankedTool[], clauses: QueryTerm[][], limit: number): RankedTool[] {
    const scale = whole[0]!.score;
    const best = new Map<string, number>();
    const take = (hits: RankedTool[], weight: number) => {
      const top = hits[0]?.score ?? 0;
      if (top <= 0) return;
      for (const hit of hits) {
        const score = (weight * scale * hit.score) / top;
        if (score > (best.get(hit.id) ?? 0)) best.set(hit.id, score);
      }
    };
    take(whole, 1);
    for (const terms of clauses)
      take(this.#index.search(terms, Math.min(limit, MAX_CLAUSE_HITS)), this.#clauseWeight);
    return [...best]
      .map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
  }
}
