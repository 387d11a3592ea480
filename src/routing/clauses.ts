import { opensWithVerb } from "./verb-families.js";

/** Sentence ends in English and Chinese, semicolons and line breaks; a period only before a space. */
const CLAUSE_END = /[。！？!?；;\n]+|\.(?=\s|$)/u;

/**
 * Words that always start a new request inside a sentence ("…, then save it", "…，然后提醒我").
 */
const STRONG_JOIN =
  /,?\s+(?:and\s+then|then|after\s+that|afterwards|next)\s+|[，,]?\s*(?:然后|另外|此外|接着|随后|顺便)/giu;
/**
 * Words that join either two requests or two nouns ("temperature and humidity"): they start a new
 * request only when an action verb follows ("what time is it and save a note").
 */
const WEAK_JOIN = /,?\s+(?:and|also|plus|as\s+well\s+as)\s+|,\s+|[，、]\s*|(?:还有|并且|同时|以及|并|再)/giu;

/**
 * Split a request into its sentences, for requests that ask for several things at once ("Detect the
 * language of this text. Then get the gene expression of BRCA1."). Blank pieces are dropped.
 */
export function splitClauses(text: string): string[] {
  return text
    .split(CLAUSE_END)
    .map((clause) => clause.trim())
    .filter((clause) => clause.length > 0);
}

/**
 * The parts of a request: its sentences, each split again where a conjunction starts another request —
 * always after "then" / 然后 / 另外 and the like, and after "and" / a comma / 以及 when an action verb
 * follows ("what time is it and save a note" → "what time is it", "save a note").
 */
export function splitParts(text: string): string[] {
  return splitClauses(text).flatMap(splitSentence);
}

/** One sentence's parts (see {@link splitParts}); a sentence with nothing to split is one part. */
export function splitSentence(sentence: string): string[] {
  return splitAt(sentence, STRONG_JOIN, () => true).flatMap((piece) =>
    splitAt(piece, WEAK_JOIN, opensWithVerb),
  );
}

function splitAt(text: string, join: RegExp, starts: (rest: string) => boolean): string[] {
  const parts: string[] = [];
  let from = 0;
  join.lastIndex = 0;
  for (let match = join.exec(text); match; match = join.exec(text)) {
    if (match[0].length === 0) {
      join.lastIndex += 1;
      continue;
    }
    const end = match.index + match[0].length;
    if (!starts(text.slice(end))) continue;
    parts.push(text.slice(from, match.index));
    from = end;
  }
  parts.push(text.slice(from));
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}
