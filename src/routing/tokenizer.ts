import { DEFAULT_TOKENIZER } from "../config/defaults.js";
import { splitIdentifier } from "./identifiers.js";
import { stem } from "./stem.js";
import { CHINESE_STOP_WORDS, ENGLISH_STOP_WORDS } from "./stop-words.js";

/** How text becomes index terms. Every option defaults to the router's tuned setting ({@link DEFAULT_TOKENIZER}). */
export interface TokenizerOptions {
  /** Fold English word forms with the light stemmer; default `true`. */
  stem?: boolean;
  /** Drop English and Chinese stop words; default `true`. */
  stopWords?: boolean;
  /** Add every pair of adjacent Han characters as a term, beside the segmenter's words; default `true`. */
  cjkBigrams?: boolean;
  /**
   * Also index a multi-word identifier whole (`getUserInfo` → `getuserinfo` beside `get`, `user`,
   * `info`), so a query naming a tool exactly finds it; default `true`.
   */
  compounds?: boolean;
}

/** A function from text to its terms, in order, repeats kept (they are term frequencies). */
export type Tokenize = (text: string) => string[];

/** Runs of Chinese (Han) characters, with the kana that Japanese mixes in. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/u;
/** A Latin (or other spaced-script) word, identifier punctuation included so identifiers stay whole. */
const WORD = /[\p{L}\p{M}\p{N}]+(?:[_.-][\p{L}\p{M}\p{N}]+)*/gu;
const DIGIT = /\p{N}/u;
/** Distinct words whose terms a tokenizer remembers; past this the memo starts afresh. */
const MAX_MEMO_WORDS = 50_000;
/** Prefix that keeps bigrams apart from segmenter words of the same two characters. */
export const BIGRAM_PREFIX = "~";
/** A Chinese (Han) character: what the segmenter cuts and the bigrams pair. */
export const HAN = /\p{Script=Han}/u;

/**
 * Make a tokenizer for English, Chinese and mixed text.
 *
 * - Latin text: identifiers split into words (camelCase, snake_case, kebab-case), lower-cased,
 *   stop words dropped, light stemming; numbers kept as terms.
 * - Han text: `Intl.Segmenter("zh")` words (stop words dropped) plus character bigrams, so a query
 *   that the segmenter cuts differently from the tool text still meets it.
 */
export function createTokenizer(options: TokenizerOptions = {}): Tokenize {
  const useStem = options.stem ?? DEFAULT_TOKENIZER.stem;
  const useStopWords = options.stopWords ?? DEFAULT_TOKENIZER.stopWords;
  const useBigrams = options.cjkBigrams ?? DEFAULT_TOKENIZER.cjkBigrams;
  const useCompounds = options.compounds ?? DEFAULT_TOKENIZER.compounds;
  // Made on the first Han text: the segmenter's dictionaries cost ~2 MB, and most processes that import
  // the router (every `import "switchyard"`) never tokenize Chinese.
  let segmenter: Intl.Segmenter | undefined;

  /** One word's terms; words repeat a lot across tools, so they are memoized. */
  const wordTerms = (word: string): readonly string[] => {
    const parts = splitIdentifier(word).map((part) => part.toLowerCase());
    const terms: string[] = [];
    for (const part of parts) {
      // A lone letter is a possessive "s" or an initial, not a clue; a lone digit may be one.
      if (part.length === 1 && !DIGIT.test(part)) continue;
      if (useStopWords && ENGLISH_STOP_WORDS.has(part)) continue;
      terms.push(useStem ? stem(part) : part);
    }
    if (useCompounds && terms.length > 1) terms.push(parts.join(""));
    return terms;
  };
  const memo = new Map<string, readonly string[]>();

  const latin = (text: string, terms: string[]) => {
    for (const match of text.matchAll(WORD)) {
      let found = memo.get(match[0]);
      if (!found) {
        if (memo.size >= MAX_MEMO_WORDS) memo.clear();
        found = wordTerms(match[0]);
        memo.set(match[0], found);
      }
      for (const term of found) terms.push(term);
    }
  };

  const han = (run: string, terms: string[]) => {
    segmenter ??= new Intl.Segmenter("zh", { granularity: "word" });
    for (const { segment, isWordLike } of segmenter.segment(run)) {
      if (!isWordLike || (useStopWords && CHINESE_STOP_WORDS.has(segment))) continue;
      terms.push(segment);
    }
    if (!useBigrams) return;
    const chars = Array.from(run);
    for (let i = 0; i + 1 < chars.length; i += 1) terms.push(`${BIGRAM_PREFIX}${chars[i]}${chars[i + 1]}`);
  };

  return (text) => {
    const terms: string[] = [];
    let rest = text.normalize("NFKC");
    for (let match = CJK_RUN.exec(rest); match; match = CJK_RUN.exec(rest)) {
      latin(rest.slice(0, match.index), terms);
      han(match[0], terms);
      rest = rest.slice(match.index + match[0].length);
    }
    latin(rest, terms);
    return terms;
  };
}

/** Tokenize with the default options; see {@link createTokenizer}. */
export const tokenize: Tokenize = createTokenizer();
