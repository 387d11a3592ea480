// The sentence a phrase stands in: what an order or a prohibition must share with what it is about.

/** How far a sentence reaches either side of a phrase, in characters: text without full stops ends here. */
const SENTENCE_REACH_CHARS = 300;
const SENTENCE_END = /[.!?\u3002\uff01\uff1f\n]/;

/** The sentence around `[start, end)` of `text`, at most {@link SENTENCE_REACH_CHARS} either side. */
export function sentenceAround(text: string, start: number, end: number): string {
  let from = start;
  const fromLimit = Math.max(0, start - SENTENCE_REACH_CHARS);
  while (from > fromLimit && !SENTENCE_END.test(text[from - 1]!)) from -= 1;
  let to = end;
  const toLimit = Math.min(text.length, end + SENTENCE_REACH_CHARS);
  // A dot inside a name, a path or a URL does not end the sentence; one followed by a space does.
  while (to < toLimit && !(SENTENCE_END.test(text[to]!) && !/[\w/]/.test(text[to + 1] ?? " "))) to += 1;
  return text.slice(from, to);
}

/** The sentence around the first place `phrase` (a matched piece of `text`) stands in it. */
export function sentenceOf(text: string, phrase: string): string {
  const start = text.indexOf(phrase);
  return start < 0 ? phrase : sentenceAround(text, start, start + phrase.length);
}
