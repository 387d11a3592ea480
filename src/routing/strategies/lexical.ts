import {
  DEFAULT_BM25_K1,
  DEFAULT_CATALOG_SYNONYMS,
  DEFAULT_CLAUSE_WEIGHT,
  DEFAULT_DETAIL_WORD_WEIGHT,
  DEFAULT_FIELD_WEIGHTS,
  DEFAULT_PATH_WORD_WEIGHT,
  DEFAULT_REQUIRED_PARAM_PENALTY,
  DEFAULT_SERVER_WEIGHT,
  DEFAULT_VERB_WORD_WEIGHT,
} from "../../config/defaults.js";
import { Bm25Index, type FieldSetting, type QueryTerm } from "../bm25-index.js";
import { CatalogAcronyms } from "../catalog-acronyms.js";
import { type CatalogSynonymOptions, CatalogSynonyms } from "../catalog-synonyms.js";
import { splitClauses, splitDetails, splitParts } from "../clauses.js";
import { parseLexicalOptions } from "../lexical-options.js";
import { type QueryPart, queryTerms, type RoutingQuery } from "../query.js";
import { allWords, QueryExpansion, type RequestWords } from "../query-expansion.js";
import { RequiredParams } from "../required-params.js";
import { ServerEvidence } from "../server-evidence.js";
import { ServerGroups } from "../server-groups.js";
import type { RankedTool, RankOptions, RoutingStrategy } from "../strategy.js";
import { createTokenizer, type Tokenize, type TokenizerOptions } from "../tokenizer.js";
import type { ToolDescriptor } from "../tool-descriptor.js";
import { TOOL_FIELDS, type ToolField, toolText } from "../tool-text.js";
import { withImpliedAction } from "../used-as-verb.js";
import { pathWords } from "../value-forms.js";
import { isEnglishFamilyVerb, withVerbFamilies } from "../verb-families.js";

export {
  DEFAULT_CATALOG_SYNONYMS,
  DEFAULT_CLAUSE_WEIGHT,
  DEFAULT_DETAIL_WORD_WEIGHT,
  DEFAULT_FIELD_WEIGHTS,
  DEFAULT_PATH_WORD_WEIGHT,
  DEFAULT_REQUIRED_PARAM_PENALTY,
  DEFAULT_SERVER_WEIGHT,
  DEFAULT_VERB_WORD_WEIGHT,
} from "../../config/defaults.js";

/**
 * Fewest terms a sentence needs to be ranked on its own. One: "What time is it?" is a request of its own
 * with one term, while "Thanks." or "Hello!" has none left after stop words.
 */
const MIN_CLAUSE_TERMS = 1;
/** No terms: a request without paths or details. */
const NO_TERMS: ReadonlySet<string> = new Set();
/** How far down each sentence's own ranking is merged: its best few are what it adds. */
const MAX_CLAUSE_HITS = 20;
/** Least score of a part's best tool, relative to the whole request's best, for it to be put up front. */
const MIN_PART_SCORE = 0.3;
/** How much deeper than asked the ranking goes before the required-parameter penalty reorders it. */
const PENALTY_EXTRA_DEPTH = 20;

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
  /** Add a verb family's term after each of its words ("retrieve" → `^get`; see verb-families.ts); default `true`. */
  verbFamilies?: boolean;
  /**
   * Weight in the request of an English word of a verb family ("save", "find"), beside its family's
   * term (1), so that tools named with the word (`save_as_pdf`, `mongodb_find`) do not outrank the ones
   * the rest of the request names; 1 counts it as any word; default {@link DEFAULT_VERB_WORD_WEIGHT}.
   * Only with `verbFamilies`.
   */
  verbWordWeight?: number;
  /**
   * Weight in the request of a word only its paths hold ("notes" in `~/notes/standup.md`): the user's
   * names for their files, not what a tool does; 1 counts it as any word; default
   * {@link DEFAULT_PATH_WORD_WEIGHT}. A file's extension keeps its weight.
   */
  pathWordWeight?: number;
  /**
   * Weight in the request of a word only the details it goes on to name hold ("…about the database,
   * including its size and the number of tables": "size", "tables"; see `splitDetails` in clauses.ts):
   * what is asked of the thing, not the thing a tool is for; 1 counts it as any word; default
   * {@link DEFAULT_DETAIL_WORD_WEIGHT}.
   */
  detailWordWeight?: number;
  /**
   * Let a request's word that few tools hold also ask for the other words of its object family ("folder"
   * → "directory", 截图 → "screenshot"; see object-families.ts); default `true`.
   */
  objectFamilies?: boolean;
  /**
   * Read a request's word of two or three capitals that the catalog never uses ("PR") as the words of
   * a run of tool names it is the initials of, when at least two names hold that run (`pull_request`;
   * see catalog-acronyms.ts); default `true`.
   */
  catalogAcronyms?: boolean;
  /**
   * Expand a request's words with the name terms the catalog's own tools link them to (see
   * catalog-synonyms.ts); `false` turns it off; default {@link DEFAULT_CATALOG_SYNONYMS}.
   */
  catalogSynonyms?: boolean | CatalogSynonymOptions;
  /**
   * How much a tool gains from its server's evidence (the server's own text and its best tool; see
   * server-evidence.ts), relative to the best tool's score; 0 turns it off; default
   * {@link DEFAULT_SERVER_WEIGHT}.
   */
  serverWeight?: number;
  /**
   * Share of its score a tool loses when the request can fill none of its required parameters (in
   * proportion for some; see required-params.ts); default {@link DEFAULT_REQUIRED_PARAM_PENALTY} (off:
   * it cost recall on every set measured).
   */
  requiredParamPenalty?: number;
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
  readonly #synonyms: CatalogSynonyms | undefined;
  readonly #required: RequiredParams | undefined;
  readonly #serverEvidence: ServerEvidence;
  readonly #serverWeight: number;
  readonly #acronyms: CatalogAcronyms | undefined;
  readonly #expansion: QueryExpansion;
  readonly #verbWordWeight: number;
  readonly #pathWordWeight: number;
  readonly #detailWordWeight: number;

  /**
   * @throws SwitchyardError `CONFIG_INVALID` for an unknown option (with the one it most likely meant)
   *   or a value of the wrong type or range ({@link parseLexicalOptions}); checked here, once.
   */
  constructor(given: LexicalOptions = {}) {
    const options = parseLexicalOptions(given);
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
    const tokenize = createTokenizer(options.tokenizer);
    this.#tokenize = options.verbFamilies === false ? tokenize : withVerbFamilies(tokenize);
    this.#verbWordWeight =
      options.verbFamilies === false ? 1 : (options.verbWordWeight ?? DEFAULT_VERB_WORD_WEIGHT);
    this.#pathWordWeight = options.pathWordWeight ?? DEFAULT_PATH_WORD_WEIGHT;
    this.#detailWordWeight = options.detailWordWeight ?? DEFAULT_DETAIL_WORD_WEIGHT;
    this.#clauseWeight = options.clauseWeight ?? DEFAULT_CLAUSE_WEIGHT;
    this.#countRepeats = options.queryTermCounts === "count";
    this.#serverEvidence = new ServerEvidence(this.#tokenize);
    this.#serverWeight = options.serverWeight ?? DEFAULT_SERVER_WEIGHT;
    this.#acronyms = options.catalogAcronyms === false ? undefined : new CatalogAcronyms(tokenize);
    const penalty = options.requiredParamPenalty ?? DEFAULT_REQUIRED_PARAM_PENALTY;
    this.#required = penalty > 0 ? new RequiredParams(this.#tokenize, penalty) : undefined;
    const synonyms = options.catalogSynonyms ?? DEFAULT_CATALOG_SYNONYMS;
    this.#synonyms =
      synonyms === false
        ? undefined
        : new CatalogSynonyms(synonyms === true ? DEFAULT_CATALOG_SYNONYMS : synonyms);
    this.#expansion = new QueryExpansion({
      documentFrequency: (term) => this.#index.documentFrequency(term),
      synonyms: this.#synonyms,
      acronyms: this.#acronyms,
      objects: options.objectFamilies !== false,
    });
  }

  setServerTools(server: string, tools: readonly ToolDescriptor[]): void {
    this.#serverEvidence.setServer(server, tools);
    for (const id of this.#servers.replace(
      server,
      tools.map((tool) => tool.id),
    )) {
      this.#index.remove(id);
      this.#synonyms?.remove(id);
      this.#acronyms?.remove(id);
      this.#required?.remove(id);
    }
    for (const tool of tools) {
      const text = toolText(tool);
      const terms = Object.fromEntries(
        TOOL_FIELDS.map((field) => [field, this.#tokenize(text[field])]),
      ) as Record<ToolField, string[]>;
      this.#index.add(tool.id, terms);
      this.#synonyms?.add(tool.id, terms.name, [...terms.description, ...terms.params]);
      this.#acronyms?.add(tool.id, tool.name);
      this.#required?.add(tool);
    }
  }

  async rank(query: RoutingQuery, options: RankOptions): Promise<RankedTool[]> {
    return this.rankNow(query, options.limit);
  }

  /** {@link rank} without the promise, for callers that measure or cannot wait. */
  rankNow(query: RoutingQuery, limit: number): RankedTool[] {
    // Each part is tokenized once: the whole request's terms are the union of its parts'. A part is
    // ranked on its own when a term is left after stop words ("What time is it?" → "time"; "Thanks." → none).
    const parts = this.#clauseWeight > 0 ? splitParts(query.text) : undefined;
    const weigh = this.#weigher(query.text, parts);
    const clauses: Array<{ terms: string[]; words: RequestWords }> = [];
    for (const said of parts ?? [query.text]) {
      const piece = withImpliedAction(said);
      const terms = this.#tokenize(piece);
      clauses.push({ terms, words: this.#expansion.wordsOf(piece, terms) });
    }
    const wholeTerms = this.#wholeTerms(
      clauses.map((clause) => clause.terms),
      query.context ?? [],
      weigh,
    );
    const expanded = this.#expansion.expand(wholeTerms, allWords(clauses.map((clause) => clause.words)));
    const reorders =
      this.#required !== undefined || (this.#serverWeight > 0 && this.#serverEvidence.servers > 1);
    const depth = reorders ? limit + PENALTY_EXTRA_DEPTH : limit;
    const whole = this.#index.search(expanded, depth);
    const ranked = clauses.filter((clause) => new Set(clause.terms).size >= MIN_CLAUSE_TERMS);
    const merged =
      ranked.length < 2 || whole.length === 0
        ? whole
        : this.#mergeClauses(
            whole,
            ranked.map(({ terms, words }) =>
              this.#expansion.expand(
                [...new Set(terms)].map((term) => ({ term, weight: weigh(term) })),
                words,
              ),
            ),
            depth,
          );
    const penalized = this.#required ? this.#penalize(merged, wholeTerms, query, depth) : merged;
    return this.#serverEvidence.fuse(penalized, expanded, this.#serverWeight, limit);
  }

  /** Tools whose required parameters the request leaves unfilled score a little less (required-params.ts). */
  #penalize(
    ranked: RankedTool[],
    terms: readonly QueryTerm[],
    query: RoutingQuery,
    limit: number,
  ): RankedTool[] {
    const required = this.#required!;
    const present = new Set(terms.map((term) => term.term));
    const digit =
      RequiredParams.hasDigit(query.text) ||
      (query.context ?? []).some((part) => RequiredParams.hasDigit(part.text));
    return ranked
      .map((hit) => ({ id: hit.id, score: hit.score * required.factor(hit.id, present, digit) }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
  }

  #wholeTerms(
    clauses: readonly string[][],
    context: readonly QueryPart[],
    weigh: (term: string) => number,
  ): QueryTerm[] {
    const request = new Map<string, number>();
    for (const clause of clauses)
      for (const term of clause) request.set(term, this.#countRepeats ? (request.get(term) ?? 0) + 1 : 1);
    const fromContext = queryTerms(context, this.#tokenize)
      .filter((term) => !request.has(term.term))
      .map(({ term, weight }) => ({ term, weight: weight * this.#verbWeight(term) }));
    return [...[...request].map(([term, count]) => ({ term, weight: count * weigh(term) })), ...fromContext];
  }

  /**
   * A term's share of its weight in the request: its {@link #verbWeight}, times
   * {@link LexicalOptions.pathWordWeight} for a word only the request's paths hold and
   * {@link LexicalOptions.detailWordWeight} for one only the details its parts name hold.
   */
  #weigher(text: string, parts: readonly string[] | undefined): (term: string) => number {
    const inPaths = this.#pathWordWeight === 1 ? NO_TERMS : pathWords(text, this.#tokenize);
    // Not ranked by parts: the details run to the end of a sentence.
    const inDetails =
      this.#detailWordWeight === 1 ? NO_TERMS : this.#detailWords(parts ?? splitClauses(text));
    if (inPaths.size === 0 && inDetails.size === 0) return (term) => this.#verbWeight(term);
    return (term) =>
      this.#verbWeight(term) *
      (inPaths.has(term) ? this.#pathWordWeight : 1) *
      (inDetails.has(term) ? this.#detailWordWeight : 1);
  }

  /** Terms that only the details the parts go on to name hold ({@link splitDetails}). */
  #detailWords(parts: readonly string[]): ReadonlySet<string> {
    const cut = parts.map(splitDetails);
    if (cut.every(([, details]) => details === "")) return NO_TERMS;
    const asked = new Set(cut.flatMap(([before]) => this.#tokenize(before)));
    return new Set(cut.flatMap(([, details]) => this.#tokenize(details)).filter((term) => !asked.has(term)));
  }

  /**
   * A term's share of its weight in a request or its context: 1, or {@link LexicalOptions.verbWordWeight}
   * for an English word of a verb family.
   */
  #verbWeight(term: string): number {
    return this.#verbWordWeight !== 1 && isEnglishFamilyVerb(term) ? this.#verbWordWeight : 1;
  }

  /**
   * Best score per tool: the whole request's, or a part's scaled so that the part's best tool scores
   * `clauseWeight` times the whole request's best (scores stay on the whole request's scale); then each
   * part's best tool is raised to right after the whole request's best, the clearest parts first.
   */
  #mergeClauses(whole: RankedTool[], clauses: QueryTerm[][], limit: number): RankedTool[] {
    const scale = whole[0]!.score;
    const bestScores = new Map<string, number>();
    const take = (hits: RankedTool[], weight: number) => {
      const top = hits[0]?.score ?? 0;
      if (top <= 0) return;
      for (const hit of hits) {
        const score = (weight * scale * hit.score) / top;
        if (score > (bestScores.get(hit.id) ?? 0)) bestScores.set(hit.id, score);
      }
    };
    take(whole, 1);
    const searched = clauses.map((terms) => this.#index.search(terms, Math.min(limit, MAX_CLAUSE_HITS)));
    for (const hits of searched) take(hits, this.#clauseWeight);
    // Each part's share of the offer: its best tool comes right after the whole request's best, ahead
    // of the whole request's runners-up — for a part that matches well enough (its best scores at least
    // MIN_PART_SCORE of the whole's best), not for "I need help with this". Parts that point at one
    // tool most clearly (their best's lead over their runner-up) go first: a request of more parts than
    // the offer has places keeps its clearest ones rather than its first ones.
    const first = whole[0]!.id;
    const below = Math.max(whole[1]?.score ?? 0, this.#clauseWeight * scale);
    const steps = searched.length + 1;
    const lead = (hits: RankedTool[]) => (hits[0]?.score ?? 0) - (hits[1]?.score ?? 0);
    const clearest = searched
      .map((hits, part) => ({ hits, part }))
      .sort((a, b) => lead(b.hits) - lead(a.hits) || a.part - b.part);
    clearest.forEach(({ hits }, place) => {
      const best = hits[0];
      if (!best || best.id === first || best.score < MIN_PART_SCORE * scale) return;
      const score = below + ((scale - below) * (steps - 1 - place)) / steps;
      if (score > (bestScores.get(best.id) ?? 0)) bestScores.set(best.id, score);
    });
    return [...bestScores]
      .map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
  }
}
