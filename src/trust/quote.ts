// How a finding's detail quotes the text it found.

/** Longest quote in a detail, in characters. */
const MAX_QUOTE_CHARS = 80;

/** A piece of text as a detail quotes it: on one line, cut to a readable length, in double quotes. */
export function quote(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return `"${line.length > MAX_QUOTE_CHARS ? `${line.slice(0, MAX_QUOTE_CHARS - 1)}…` : line}"`;
}
