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
 * follows ("what time is it and save a note" → "what time is it", "save a note"); and a list of things
 * asked for with one verb is a part per thing (see {@link distributeVerb}).
 */
export function splitParts(text: string): string[] {
  return splitClauses(text).flatMap(splitSentence);
}

/** One sentence's parts (see {@link splitParts}); a sentence with nothing to split is one part. */
export function splitSentence(sentence: string): string[] {
  return splitAt(sentence, STRONG_JOIN, () => true)
    .flatMap((piece) => splitAt(piece, WEAK_JOIN, opensWithVerb))
    .flatMap(distributeVerb);
}

/** The joins of a list of things: ", ", ", and ", " and " (a comma before a number is a date's or a count's). */
const LIST_JOIN = /,\s+(?:and\s+)?(?!\d)|\s+and\s+/iu;
/** A part's leading verb, with its "please": what each thing of a list it names is asked for with. */
const LEADING_VERB = /^((?:please\s+)?\p{Script=Latin}+)\s+/iu;
/** A list item that opens a list of the last thing's attributes: it and all after it belong to that thing. */
const ATTRIBUTES = /^(?:including|such\s+as|like|namely|specifically|especially|e\.g\.)\b/iu;
/** A list item that goes on describing the thing before it (a phrase, a number) rather than naming another. */
const CONTINUES =
  /^(?:\d|(?:with|without|for|on|in|at|from|to|by|of|into|using|which|that|where|when|while|if|or|but|so|as|etc)\b)/iu;
/** Fewest things a list must name for each to be a request of its own: "the temperature and humidity" is one. */
const MIN_LIST_ITEMS = 3;

/**
 * A part that asks for a list of things with one verb, as a part per thing, each with that verb:
 * "retrieve the political history of the US, a subscriber's details, and a legal case" → "retrieve the
 * political history of the US", "retrieve a subscriber's details", "retrieve a legal case". Only for
 * lists of at least MIN_LIST_ITEMS things closed by "and"; a thing's attributes ("…, including its
 * melting point, boiling point and mass") and the phrases describing it stay with it. English only:
 * a Chinese list (、) is cut where a verb follows (WEAK_JOIN).
 */
function distributeVerb(part: string): string[] {
  const verb = opensWithVerb(part) ? LEADING_VERB.exec(part) : null;
  if (!verb || !/\sand\s/iu.test(part)) return [part];
  const things: string[] = [];
  let attributes = false;
  for (const item of part.slice(verb[0].length).split(LIST_JOIN)) {
    const text = item.trim();
    if (text.length === 0) continue;
    attributes ||= ATTRIBUTES.test(text);
    if (things.length > 0 && (attributes || CONTINUES.test(text))) things[things.length - 1] += `, ${text}`;
    else things.push(text);
  }
  return things.length < MIN_LIST_ITEMS ? [part] : things.map((thing) => `${verb[1]} ${thing}`);
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
