// Acronyms from the catalog itself: a request says "PR" where the tools' names say `pull_request`. Each
// run of two or three words in a tool's name gives its initials; an acronym of the request that the
// catalog never uses as a word, and that spells the initials of a run at least two names hold, asks for
// the run's words. No outside list: what the catalog's own names spell, often enough to be a name.

import type { QueryTerm } from "./bm25-index.js";
import { splitIdentifier } from "./identifiers.js";
import type { Tokenize } from "./tokenizer.js";

/** Lengths of the word runs whose initials count (2: "PR", 3: "MCP"). */
const RUN_LENGTHS = [2, 3] as const;
/** An acronym: two or three letters. */
const ACRONYM = /^[a-z]{2,3}$/;
/** Fewest tools' names that must hold a run for its initials to be read as it: one name is not a usage. */
const MIN_NAMES = 2;
/** A word of a name that may be part of a run: letters, more than one. */
const RUN_WORD = /^\p{L}{2,}$/u;

/**
 * The initials of the word runs of the catalog's tool names, counted tool by tool and kept up to date
 * as tools come and go.
 */
export class CatalogAcronyms {
  /** Plain words to terms (no families: "PR" asks for "pull", not for every pulling tool). */
  readonly #tokenize: Tokenize;
  /** Tool id → its runs (distinct), as `[initials, terms]` (the run's terms joined by spaces). */
  readonly #runs = new Map<string, ReadonlyArray<readonly [string, string]>>();
  /** Initials → the runs that spell them → how many tools' names hold each. */
  readonly #counts = new Map<string, Map<string, number>>();

  constructor(tokenize: Tokenize) {
    this.#tokenize = tokenize;
  }

  /** Add (or replace) a tool by its name. */
  add(id: string, name: string): void {
    this.remove(id);
    const words = splitIdentifier(name).map((word) => word.toLowerCase());
    const runs = new Map<string, readonly [string, string]>();
    for (const length of RUN_LENGTHS) {
      for (let start = 0; start + length <= words.length; start += 1) {
        const run = words.slice(start, start + length);
        if (!run.every((word) => RUN_WORD.test(word))) continue;
        // Keyed by the run's terms, so that `pull_request` and `pull_requests` count as one run; a run of
        // stop words alone ("is_an") has none to ask for.
        const terms = this.#tokenize(run.join(" "));
        if (terms.length === 0) continue;
        const initials = run.map((word) => word[0]).join("");
        runs.set(`${initials} ${terms.join(" ")}`, [initials, terms.join(" ")]);
      }
    }
    this.#runs.set(id, [...runs.values()]);
    for (const [initials, run] of runs.values()) {
      let spelled = this.#counts.get(initials);
      if (!spelled) {
        spelled = new Map();
        this.#counts.set(initials, spelled);
      }
      spelled.set(run, (spelled.get(run) ?? 0) + 1);
    }
  }

  /** Forget a tool. */
  remove(id: string): void {
    for (const [initials, run] of this.#runs.get(id) ?? []) {
      const spelled = this.#counts.get(initials);
      const count = (spelled?.get(run) ?? 0) - 1;
      if (count > 0) spelled!.set(run, count);
      else spelled?.delete(run);
      if (spelled?.size === 0) this.#counts.delete(initials);
    }
    this.#runs.delete(id);
  }

  /**
   * The terms of the run most names spell with each acronym (all of them on a tie), at the acronym's
   * weight; `acronyms` are lower-case (`pr`), and none for an acronym no run of {@link MIN_NAMES} names
   * spells.
   */
  expand(acronyms: readonly QueryTerm[]): QueryTerm[] {
    const added = new Map<string, number>();
    for (const { term, weight } of acronyms) {
      if (!ACRONYM.test(term)) continue;
      for (const run of this.#runsSpelling(term))
        for (const word of run.split(" ")) if (weight > (added.get(word) ?? 0)) added.set(word, weight);
    }
    return [...added].map(([term, weight]) => ({ term, weight }));
  }

  /** The word runs spelling `initials` that most names hold, if at least {@link MIN_NAMES} do. */
  #runsSpelling(initials: string): string[] {
    let best = MIN_NAMES;
    let runs: string[] = [];
    for (const [run, count] of this.#counts.get(initials) ?? []) {
      if (count < best) continue;
      if (count > best) runs = [];
      best = count;
      runs.push(run);
    }
    return runs;
  }
}
