import { DETERMINERS, opensWithWordAsVerb } from "./used-as-verb.js";
import { leadingActionVerb, opensWithVerb } from "./verb-families.js";

/** Sentence ends in English and Chinese, semicolons and line breaks; a period only before a space. */
const CLAUSE_END = /[。！？!?；;\n]+|\.(?=\s|$)/gu;

/**
 * Words that always start a new request inside a sentence ("…, then save it", "…，然后提醒我"), with the
 * Chinese comma after one ("然后，提醒我"). A join that opens with spaces starts after a character that is
 * not one (here and below), so that a run of spaces is no quadratic search.
 */
const STRONG_JOIN =
  /(?<=\S),?\s+(?:and\s+then|then|after\s+that|afterwards)\s+|(?<!\s)[，,]?\s*(?:然后|另外|此外|接着|随后|顺便)[，,：:]?\s*/giu;
/**
 * Words that join either two requests or two nouns ("temperature and humidity"): they start a new
 * request only when an action verb follows ("what time is it and save a note"). "next" is one only so
 * ("…, next plot the results"; not "today and next week", "a garage, next to the stadium").
 */
const WEAK_JOIN =
  /(?<=\S)(?:,\s+|\s+and\s+)next,?\s+|(?<=\S)\s+next,\s+|(?<=\S),?\s+(?:and|also|plus|as\s+well\s+as)\s+|,\s+|[，、]\s*|(?:还有|并且|同时|以及|并|再)/giu;
/**
 * The word that opens a part only to say where in a sequence it comes ("First, …", "Next, …", "首先，…"),
 * with its comma: it asks for nothing, and would meet tools such as `predictNextPurchase`. Without a
 * comma only when it is the whole part ("Last week's sales" keeps its "last"). The Chinese words that
 * join two requests (然后, 另外…) never open a part: {@link STRONG_JOIN} takes them.
 */
const SEQUENCE_WORD = new RegExp(
  `^(?:${[
    "first(?:ly)?|second(?:ly)?|third(?:ly)?|next|then|finally|lastly|last",
    "additionally|also|moreover|furthermore|besides|afterwards?|after\\s+that|in\\s+addition",
    "to\\s+(?:begin|start)(?:\\s+with)?",
    "首先|其次|再次|最后",
  ].join("|")})(?:\\s*[,:，：]\\s*|[\\s.。]*$)`,
  "iu",
);

/**
 * The words that go on to name details of a thing ("…, including its size", "such as …"): both where a
 * part's details begin ({@link DETAILS}) and where a list item opens a list of the last thing's
 * attributes (`ATTRIBUTES`, which takes "like", "namely" and the like too: within a list they cannot be
 * "I'd like" or a new request; as details, "specifically" and "especially" cost seal-tools R@5 0.1).
 */
const DETAIL_WORDS = "including|such\\s+as";
/** Where a part goes on to name details of what it asks for: "…, including its size", "such as …". */
const DETAILS = new RegExp(`\\b(?:${DETAIL_WORDS})\\b`, "iu");

/** A part cut where it starts to name details ({@link DETAILS}): what it asks for, and the details ("" when none). */
export function splitDetails(part: string): [asked: string, details: string] {
  const at = DETAILS.exec(part)?.index;
  return at === undefined ? [part, ""] : [part.slice(0, at), part.slice(at)];
}

/**
 * Split a request into its sentences, for requests that ask for several things at once ("Detect the
 * language of this text. Then get the gene expression of BRCA1."). A sentence's end inside a quotation
 * is the quoted text's ("translate 'Hello, how are you?' into French" is one). Blank pieces are dropped.
 */
export function splitClauses(text: string): string[] {
  return splitAt(text, CLAUSE_END, () => true);
}

/**
 * The parts of a request: its sentences, each split again where a conjunction starts another request —
 * always after "then" / 然后 / 另外 and the like, and after "and" / a comma / 以及 when an action verb
 * follows ("what time is it and save a note" → "what time is it", "save a note"); and a list of things
 * asked for with one verb is a part per thing (see {@link distributeVerb}). A word of sequence opening
 * a part ("First, …", "Next, …") is left out, and so is a part of nothing else, unless the request is.
 */
export function splitParts(text: string): string[] {
  const parts = splitClauses(text).flatMap(splitSentence);
  const asking = parts.map((part) => part.replace(SEQUENCE_WORD, "")).filter((part) => part.length > 0);
  return asking.length > 0 ? asking : parts;
}

/** One sentence's parts (see {@link splitParts}); a sentence with nothing to split is one part. */
export function splitSentence(sentence: string): string[] {
  return splitAt(sentence, STRONG_JOIN, () => true)
    .flatMap((piece) =>
      splitAt(piece, WEAK_JOIN, (rest, before) => !isLoneVerb(before) && opensRequest(rest)),
    )
    .flatMap(distributeVerb);
}

/**
 * True when the text is only a verb of a family, with what may come before it ("Find", "I need to
 * download"): it shares the object of the verb after it ("Find and hire a journalist", "download and
 * install the update"), so a weak join after it starts no request of its own.
 */
function isLoneVerb(text: string): boolean {
  const verb = leadingActionVerb(text);
  return verb !== undefined && /^[\s\p{P}]*$/u.test(text.slice(verb.length));
}

/**
 * True when what follows a weak join starts a request of its own: an action verb of a family, a question
 * or "tell me" ({@link opensWithVerb}), or a word used as a verb ({@link opensWithWordAsVerb}).
 */
function opensRequest(rest: string): boolean {
  return opensWithVerb(rest) || opensWithWordAsVerb(rest);
}

/**
 * The joins of a list of things, kept by the split: ", ", ", and ", " and " — not a comma before a number
 * (a date's, a count's). The space before "and" follows a word, so that a run of spaces is no quadratic
 * search.
 */
const LIST_JOIN = /(,\s+(?!(?:and\s+)?\d)(?:and\s+)?|(?<=\S)\s+and\s+)/iu;
/** A list item that opens a list of the last thing's attributes: it and all after it belong to that thing. */
const ATTRIBUTES = new RegExp(`^(?:${DETAIL_WORDS}|like|namely|specifically|especially)\\b`, "iu");
/** A list item that goes on describing the thing before it (a phrase, a number) rather than naming another. */
const CONTINUES =
  /^(?:\d|(?:with|without|for|on|in|at|from|to|by|of|into|using|which|that|where|when|while|if|or|but|so|as|etc)\b)/iu;
/** Fewest things a list must name for each to be a request of its own: "the temperature and humidity" is one. */
const MIN_LIST_ITEMS = 3;
/** Most: past it a list is data (ids, columns, names), not requests. */
const MAX_LIST_ITEMS = 8;

/**
 * A part that asks for a list of things with one action verb, as a part per thing, each with that verb:
 * "retrieve the political history of the US, information about a subscriber, and details about a legal
 * case" → "retrieve the political history of the US", "retrieve information about a subscriber",
 * "retrieve details about a legal case". Only for a list of MIN_LIST_ITEMS to MAX_LIST_ITEMS things
 * joined by commas and closed by "and", each thing of at least two words besides determiners — not
 * "the weather in Paris, London and Tokyo", whose names are one thing's places, nor "id, name and email".
 * A thing's attributes ("…, including its boiling point, mass and density") and the phrases describing
 * it stay with it; a list with quotes or alternatives ("or") is left whole, as is a question. English
 * only: a Chinese list (、) is cut where a verb follows (WEAK_JOIN).
 */
function distributeVerb(part: string): string[] {
  const verb = leadingActionVerb(part);
  if (verb === undefined || /["“”]/u.test(part)) return [part];
  const pieces = part.slice(verb.length).trim().split(LIST_JOIN);
  const joins = pieces.filter((_, i) => i % 2 === 1).map((join) => /and/iu.test(join));
  // Commas, then "and" before the last thing: "A, B, and C".
  if (joins.length < MIN_LIST_ITEMS - 1 || !joins.at(-1) || joins.slice(0, -1).some(Boolean)) return [part];
  const things: string[] = [];
  let attributes = false;
  for (const piece of pieces.filter((_, i) => i % 2 === 0)) {
    const text = piece.trim();
    attributes ||= ATTRIBUTES.test(text);
    if (things.length > 0 && (attributes || CONTINUES.test(text))) things[things.length - 1] += `, ${text}`;
    else things.push(text);
  }
  const standsAlone = (thing: string) =>
    !/\bor\b/iu.test(thing) &&
    (thing.match(/\p{L}{2,}/gu) ?? []).filter((word) => !DETERMINERS.has(word.toLowerCase())).length >= 2;
  return things.length >= MIN_LIST_ITEMS && things.length <= MAX_LIST_ITEMS && things.every(standsAlone)
    ? things.map((thing) => `${verb} ${thing}`)
    : [part];
}

/**
 * The pieces of a text cut at each match of `join` (a global pattern) that lies outside every quotation
 * and after which `starts` sees a new part begin (given what follows the join, and the piece before it).
 */
function splitAt(text: string, join: RegExp, starts: (rest: string, before: string) => boolean): string[] {
  const parts: string[] = [];
  const quoted = quotedSpans(text);
  let quote = 0;
  let from = 0;
  join.lastIndex = 0;
  for (let match = join.exec(text); match; match = join.exec(text)) {
    if (match[0].length === 0) {
      join.lastIndex += 1;
      continue;
    }
    const end = match.index + match[0].length;
    // Joins come in order, and so do the quotations: the first not closed before this join may hold it.
    while (quote < quoted.length && quoted[quote]![1] < match.index) quote += 1;
    if (quote < quoted.length && quoted[quote]![0] < match.index) continue;
    if (!starts(text.slice(end), text.slice(from, match.index))) continue;
    parts.push(text.slice(from, match.index));
    from = end;
  }
  parts.push(text.slice(from));
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

/**
 * A quotation's opening and closing marks: "…", “…”, ‘…’, and '…' around words — not an apostrophe,
 * nor the inch mark of 27" or the year of '90s. An opening mark left unclosed is passed over at the next
 * opening mark, so that a run of them is no quadratic search.
 */
const QUOTATION = /(?<!\d)"[^"\n]*"|“[^“”\n]*”|‘[^‘’\n]*’|(?<![\p{L}\p{N}])'(?!\d)[^'\n]*'(?![\p{L}\p{N}])/gu;

/**
 * Where the text quotes something, as [opening, closing] offsets: a join inside a quotation is the quoted
 * text's ("post 'lunch is here, grab the pizza' in #random", `commit with message "fix the typos, then
 * deploy"` are one request each). A mark left open quotes nothing.
 */
function quotedSpans(text: string): Array<[number, number]> {
  return [...text.matchAll(QUOTATION)].map((match) => [match.index, match.index + match[0].length - 1]);
}
