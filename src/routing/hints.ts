// Routing hints (`routing.hints`): requests that match a hint's `when` get the tools matching its globs
// first, ahead of what the strategy ranked, in hint order.

import { globMatcher } from "../catalog/glob.js";
import { hintRegExp, hintRegExpProblem } from "../config/sections/routing.js";
import { didYouMean, SwitchyardError } from "../errors.js";
import { escapeRegExp } from "../escape-regexp.js";
import type { RoutedTool } from "./router.js";
import { shown } from "./router-input.js";
import type { ToolDescriptor } from "./tool-descriptor.js";

/** A routing hint as configured. */
export interface RoutingHint {
  /**
   * Words (split on spaces, commas and `|`; any of them matches, case-insensitively: a word in a script
   * written with spaces matches where a word of the request starts with it, one in Chinese, Japanese or
   * Korean matches anywhere), or a regular expression written `/pattern/flags`.
   */
  when: string;
  /** Tool ids or globs (`shop_returns_*`), put first in this order. */
  tools: readonly string[];
}

/** A hint ready to match. */
interface CompiledHint {
  when: string;
  /** Where it was given (`routing.hints[0]`), for messages. */
  path: string;
  test: (text: string) => boolean;
  /** Its tools as written, beside their matchers. */
  tools: readonly string[];
  globs: Array<(id: string) => boolean>;
}

/** Letters and digits of scripts written without spaces between words (CJK). */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** How much deeper than asked a request that matches a hint is ranked (see {@link MatchedHints.depth}). */
const HINT_EXTRA_DEPTH = 20;

/**
 * The hints of a router, compiled once.
 * @throws SwitchyardError `CONFIG_INVALID` naming the hint (`routing.hints[i].when`) whose regular
 *   expression does not compile, that has no words or no tools, or that is not `{ when, tools }`.
 */
export class RoutingHints {
  readonly #hints: CompiledHint[];

  constructor(hints: readonly RoutingHint[]) {
    if (!Array.isArray(hints))
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `routing.hints: expected an array of { when, tools } (got ${shown(hints)})`,
        { path: "routing.hints" },
      );
    this.#hints = hints.map((hint, i) => compile(hint, `routing.hints[${i}]`));
  }

  /**
   * A message for each hint's tool name or glob that matches none of `ids` (a catalog's), naming it
   * (`routing.hints[0].tools[1]`) and the closest ids: the hint can only put what the catalog has first.
   */
  unmatched(ids: readonly string[]): string[] {
    const messages: string[] = [];
    for (const hint of this.#hints)
      hint.globs.forEach((glob, i) => {
        if (ids.some(glob)) return;
        const written = hint.tools[i]!;
        const near = /[*?]/.test(written) ? "" : didYouMean(written, ids, 1);
        messages.push(
          `${hint.path}.tools[${i}]: "${written}" matches no tool of the catalog${near ? ` (${near})` : ""}`,
        );
      });
    return messages;
  }

  /** The hints `text` matches, in the order of the list; `undefined` when it matches none. */
  matching(text: string): MatchedHints | undefined {
    const matching = this.#hints.filter((hint) => hint.test(text));
    return matching.length === 0 ? undefined : new MatchedHints(matching);
  }
}

/** The hints a request matches: how deep to rank it, and the ranking with their tools first. */
export class MatchedHints {
  readonly #hints: readonly CompiledHint[];

  constructor(hints: readonly CompiledHint[]) {
    this.#hints = hints;
  }

  /**
   * How deep to rank the request: {@link HINT_EXTRA_DEPTH} deeper than `limit`, so that the hinted tools
   * the strategy ranks within that depth come in its order whatever the `limit` (past it, in catalog order).
   */
  depth(limit: number): number {
    return limit + HINT_EXTRA_DEPTH;
  }

  /**
   * The ranking with the hinted tools first (in hint order, then glob order; within a glob, as ranked,
   * then in catalog order), each marked with its hint's `when`; cut to `limit`.
   */
  apply(ranked: readonly RoutedTool[], limit: number, tools: () => Iterable<ToolDescriptor>): RoutedTool[] {
    const first = new Map<string, RoutedTool>();
    let catalog: ToolDescriptor[] | undefined;
    for (const hint of this.#hints) {
      for (const glob of hint.globs) {
        for (const hit of ranked)
          if (!first.has(hit.id) && glob(hit.id)) first.set(hit.id, { ...hit, hint: hint.when });
        catalog ??= [...tools()];
        for (const tool of catalog) {
          if (first.has(tool.id) || !glob(tool.id)) continue;
          first.set(tool.id, {
            id: tool.id,
            score: 0,
            server: tool.server,
            name: tool.name,
            hint: hint.when,
          });
        }
      }
    }
    return [...first.values(), ...ranked.filter((hit) => !first.has(hit.id))].slice(0, limit);
  }
}

function compile(hint: RoutingHint, path: string): CompiledHint {
  const given = (typeof hint === "object" && hint !== null ? hint : {}) as Partial<Record<string, unknown>>;
  if (typeof given.when !== "string")
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `${path}.when: expected words ("return refund 退货") or a /regular expression/ (got ${shown(given.when)})`,
      { path: `${path}.when` },
    );
  if (!Array.isArray(given.tools) || !given.tools.every((tool) => typeof tool === "string"))
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `${path}.tools: expected an array of tool names or globs (got ${shown(given.tools)})`,
      { path: `${path}.tools` },
    );
  const problem = hintRegExpProblem(hint.when);
  if (problem)
    throw new SwitchyardError("CONFIG_INVALID", `${path}.when: ${problem}`, { path: `${path}.when` });
  if (hint.tools.length === 0)
    throw new SwitchyardError("CONFIG_INVALID", `${path}.tools: give at least one tool name or glob`, {
      path: `${path}.tools`,
    });
  const regex = hintRegExp(hint.when);
  const pattern = regex ? new RegExp(regex.source, regex.flags) : wordsPattern(hint.when, path);
  return {
    when: hint.when,
    path,
    tools: [...hint.tools],
    test: (text) => {
      pattern.lastIndex = 0;
      return pattern.test(text);
    },
    globs: hint.tools.map((glob) => globMatcher([glob])),
  };
}

/** Any of the words, case-insensitively: at the start of a word, or anywhere for a CJK word. */
function wordsPattern(when: string, path: string): RegExp {
  const words = when.split(/[\s,|]+/u).filter(Boolean);
  if (words.length === 0)
    throw new SwitchyardError("CONFIG_INVALID", `${path}.when: give words or a /regular expression/`, {
      path: `${path}.when`,
    });
  const parts = words.map((word) => {
    const escaped = escapeRegExp(word);
    return NO_SPACES.test(word[0]!) ? escaped : `(?<![\\p{L}\\p{N}])${escaped}`;
  });
  return new RegExp(parts.join("|"), "iu");
}
