// Synonyms mined from the catalog itself: a word that tools' descriptions use where their names say
// something else ("更新用户资料" beside `updateProfile`, "look up" beside `get_…`) leads a request that uses
// the word to the names' terms too. No outside word list: what a catalog says about its own tools.

import { DEFAULT_CATALOG_SYNONYMS } from "../config/defaults.js";
import type { QueryTerm } from "./bm25-index.js";

/** Most names a term may be in to be added: a term in half the names tells little and costs a long walk. */
const MAX_NAME_SHARE = 0.25;

/** Options of {@link CatalogSynonyms}. */
export interface CatalogSynonymOptions {
  /** Fewest tools a word and a name term must share to be linked. */
  minShared?: number;
  /** Least share of the word's tools whose names hold the term. */
  minShare?: number;
  /** Most tools a word may occur in to be expanded (common words need no help), as a share of all tools. */
  maxWordShare?: number;
  /** Name terms added per word, at most. */
  perWord?: number;
  /** Weight of an added term, times its share. */
  weight?: number;
}

/**
 * Links between the words of tools' descriptions and parameters and the terms of their names, counted
 * over the catalog and kept up to date one tool at a time. `expand` gives, for a request's terms, the
 * name terms the catalog links them to, weighted by how often the link holds.
 */
export class CatalogSynonyms {
  readonly #options: Required<CatalogSynonymOptions>;
  /** Tool id → its name terms (distinct). */
  readonly #names = new Map<string, readonly string[]>();
  /** Tool id → its other terms (distinct). */
  readonly #words = new Map<string, readonly string[]>();
  /** Name term → how many tools' names hold it. */
  readonly #nameCounts = new Map<string, number>();
  /** Word → the tools whose other text holds it. */
  readonly #toolsOf = new Map<string, Set<string>>();
  /** Word → its links, valid until the catalog changes. */
  #cache = new Map<string, readonly QueryTerm[]>();

  constructor(options: CatalogSynonymOptions = {}) {
    this.#options = { ...DEFAULT_CATALOG_SYNONYMS, ...options };
  }

  /** Add (or replace) a tool: the terms of its name, and those of the rest of its text. */
  add(id: string, nameTerms: readonly string[], otherTerms: readonly string[]): void {
    this.remove(id);
    const names = [...new Set(nameTerms)];
    const words = [...new Set(otherTerms)].filter((word) => !names.includes(word));
    this.#names.set(id, names);
    this.#words.set(id, words);
    for (const name of names) this.#nameCounts.set(name, (this.#nameCounts.get(name) ?? 0) + 1);
    for (const word of words) {
      let tools = this.#toolsOf.get(word);
      if (!tools) {
        tools = new Set();
        this.#toolsOf.set(word, tools);
      }
      tools.add(id);
    }
    this.#cache = new Map();
  }

  remove(id: string): void {
    const words = this.#words.get(id);
    if (!words) return;
    for (const word of words) {
      const tools = this.#toolsOf.get(word)!;
      tools.delete(id);
      if (tools.size === 0) this.#toolsOf.delete(word);
    }
    for (const name of this.#names.get(id) ?? []) {
      const count = (this.#nameCounts.get(name) ?? 1) - 1;
      if (count === 0) this.#nameCounts.delete(name);
      else this.#nameCounts.set(name, count);
    }
    this.#names.delete(id);
    this.#words.delete(id);
    this.#cache = new Map();
  }

  /**
   * The name terms linked to the given query terms, each at `weight × share` times the query term's
   * weight (the highest when several lead to it); terms already in the query are not added.
   */
  expand(query: readonly QueryTerm[]): QueryTerm[] {
    const present = new Set(query.map((term) => term.term));
    const added = new Map<string, number>();
    for (const { term, weight } of query) {
      for (const link of this.#links(term)) {
        if (present.has(link.term)) continue;
        const value = weight * link.weight;
        if (value > (added.get(link.term) ?? 0)) added.set(link.term, value);
      }
    }
    return [...added].map(([term, weight]) => ({ term, weight }));
  }

  #links(word: string): readonly QueryTerm[] {
    const cached = this.#cache.get(word);
    if (cached) return cached;
    const { minShared, minShare, maxWordShare, perWord, weight } = this.#options;
    const tools = this.#toolsOf.get(word);
    let links: QueryTerm[] = [];
    const most = Math.max(minShared, maxWordShare * this.#names.size);
    if (tools && tools.size >= minShared && tools.size <= most) {
      const counts = new Map<string, number>();
      for (const id of tools)
        for (const name of this.#names.get(id) ?? []) counts.set(name, (counts.get(name) ?? 0) + 1);
      links = [...counts]
        .filter(
          ([name, count]) =>
            count >= minShared &&
            count / tools.size >= minShare &&
            (this.#nameCounts.get(name) ?? 0) <= MAX_NAME_SHARE * this.#names.size,
        )
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, perWord)
        .map(([term, count]) => ({ term, weight: (weight * count) / tools.size }));
    }
    this.#cache.set(word, links);
    return links;
  }
}
