// More terms for a request than it says, each from what the catalog or the request's own text tells:
// the name terms the catalog links its words to (catalog-synonyms.ts), the other words of the things it
// names where the catalog barely uses its word (object-families.ts), and the words an acronym in capitals
// spells in the catalog's names (catalog-acronyms.ts). One place merges them, so a term is asked for
// once, at the highest weight any of them gives it, and never beside itself.

import type { QueryTerm } from "./bm25-index.js";
import type { CatalogAcronyms } from "./catalog-acronyms.js";
import type { CatalogSynonyms } from "./catalog-synonyms.js";
import { type ObjectMention, objectsIn } from "./object-families.js";
import { ENGLISH_STOP_WORDS } from "./stop-words.js";
import { valuesIn } from "./value-forms.js";

/**
 * Most tools that may hold a request's word for it to ask for its object family's other words too: a
 * word the catalog uses ("ticket" among ticketing tools) is evidence enough, and its family would only
 * blur it; one it barely uses ("folder" beside `list_directory`, 目录 beside English tools) needs them.
 */
const MAX_OBJECT_DF = 2;

/**
 * A word of two or three capitals standing alone ("PR", "MRs", 合并这个PR), not part of an id such as
 * "DEF456" or "PRX9".
 */
const CAPITALIZED = /(?<![\p{Script=Latin}\p{N}_-])(\p{Lu}{2,3})s?(?![\p{Script=Latin}\p{N}_-])/gu;

/** What a piece of a request says beyond its terms, read from its text. */
export interface RequestWords {
  /** The things it names, by a word (object-families.ts) or by a value's form (value-forms.ts). */
  objects: readonly ObjectMention[];
  /** Its words in capitals, lower-cased: acronyms, maybe ("PR #318" → `pr`). */
  capitals: readonly string[];
}

/** The expansions a lexical strategy uses, over its index's document frequencies. */
export interface QueryExpansionParts {
  documentFrequency: (term: string) => number;
  synonyms?: CatalogSynonyms | undefined;
  acronyms?: CatalogAcronyms | undefined;
  objects: boolean;
}

/** A request's added terms: what the catalog and the request's own words say beyond its terms. */
export class QueryExpansion {
  readonly #parts: QueryExpansionParts;

  constructor(parts: QueryExpansionParts) {
    this.#parts = parts;
  }

  /** What a piece of a request says beyond its terms (`terms`: its tokens). */
  wordsOf(text: string, terms: readonly string[]): RequestWords {
    return {
      objects: this.#parts.objects ? [...objectsIn(text, terms), ...valuesIn(text)] : [],
      capitals: this.#parts.acronyms ? capitalized(text) : [],
    };
  }

  /**
   * The terms with what the catalog and the request's words add, each term once at its highest weight
   * (a value's family words raise the request's own terms too).
   */
  expand(terms: readonly QueryTerm[], words: RequestWords): QueryTerm[] {
    const { documentFrequency, synonyms, acronyms } = this.#parts;
    const present = new Set(terms.map((term) => term.term));
    const added = new Map<string, number>();
    // A value's family words count at its weight even where the request holds them for less: the file
    // family for "~/files/report.md", whose "files" counts little as a path's word.
    const raised = new Map<string, number>();
    const add = (more: readonly QueryTerm[]) => {
      for (const { term, weight } of more)
        if (!present.has(term) && weight > (added.get(term) ?? 0)) added.set(term, weight);
    };
    if (synonyms) add(synonyms.expand(terms));
    for (const object of words.objects) {
      // A Chinese word is held where all its bigrams are: at most as many tools as hold the rarest. A
      // thing named by a value's form (a path, a URL) has no word: its family's words always count.
      const held = object.fromValue ? 0 : Math.min(...object.heldAs.map(documentFrequency));
      if (held > MAX_OBJECT_DF) continue;
      const weight = object.weight ?? 1;
      add(object.others.map((term) => ({ term, weight })));
      if (object.fromValue)
        for (const term of object.others)
          if (present.has(term) && weight > (raised.get(term) ?? 0)) raised.set(term, weight);
    }
    if (acronyms && words.capitals.length > 0) {
      const unused = words.capitals.filter((acronym) => documentFrequency(acronym) === 0);
      add(acronyms.expand(unused.map((term) => ({ term, weight: 1 }))));
    }
    const own =
      raised.size === 0
        ? terms
        : terms.map((term) => {
            const weight = raised.get(term.term) ?? 0;
            return weight > term.weight ? { ...term, weight } : term;
          });
    return [...own, ...[...added].map(([term, weight]) => ({ term, weight }))];
  }
}

/** The words of two or more pieces together, each once (a word's mention is one object). */
export function allWords(pieces: readonly RequestWords[]): RequestWords {
  return {
    objects: [...new Set(pieces.flatMap((piece) => piece.objects))],
    capitals: [...new Set(pieces.flatMap((piece) => piece.capitals))],
  };
}

/** The lower-cased words of a text written in capitals, stop words ("THE", "ALL") left out. */
function capitalized(text: string): string[] {
  const words = [...text.matchAll(CAPITALIZED)].map((match) => match[1]!.toLowerCase());
  return [...new Set(words)].filter((word) => !ENGLISH_STOP_WORDS.has(word));
}
