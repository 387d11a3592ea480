import stringWidth from "string-width";

/** How a table is laid out: the widest a line may be, and what to print when there are no rows. */
export interface TableOptions {
  /** Display columns a line may take; longer lines are cut with "…". Default: the terminal's, else 120. */
  maxWidth?: number;
  /** The line printed instead of a table without rows. */
  empty?: string;
}

/** The line a table without rows prints when its caller says nothing better. */
export const EMPTY_TABLE = "(none)";

/**
 * Render rows as left-aligned columns separated by two spaces; the last column is not padded. Widths
 * are display widths: a CJK or fullwidth character takes 2 columns, a combining mark 0, an emoji 2.
 * A table without rows is one line saying so (`empty`), never a lone header.
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions | number = {},
): string {
  const { maxWidth = process.stdout.columns ?? 120, empty = EMPTY_TABLE } =
    typeof options === "number" ? { maxWidth: options } : options;
  if (rows.length === 0) return empty;
  const widths = header.map((title, column) =>
    Math.max(stringWidth(title), ...rows.map((row) => stringWidth(row[column] ?? ""))),
  );
  const line = (cells: readonly string[]) => {
    const text = cells
      .map((cell, column) => (column === cells.length - 1 ? cell : padEnd(cell, widths[column]!)))
      .join("  ")
      .trimEnd();
    return truncate(text, maxWidth);
  };
  return [line(header), ...rows.map(line)].join("\n");
}

/** Display width of a text in a terminal (East Asian wide characters count 2, combining marks 0). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** Pad a text with spaces to `width` display columns. */
export function padEnd(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - stringWidth(text)));
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Cut a text to at most `max` display columns, ending with "…" when something was cut. */
export function truncate(text: string, max: number): string {
  if (stringWidth(text) <= max) return text;
  let kept = "";
  let width = 0;
  for (const { segment } of graphemes.segment(text)) {
    const next = stringWidth(segment);
    if (width + next > max - 1) break;
    kept += segment;
    width += next;
  }
  return `${kept}…`;
}

/** "1 tool", "2 tools": a count with its noun, plural but for one. */
export function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** First line of a text, shortened to `max` display columns. */
export function firstLine(text: string, max = 80): string {
  const line = text.split("\n", 1)[0]?.trim() ?? "";
  return truncate(line, max);
}

/**
 * Wrap a text to lines of at most `width` display columns, at spaces where it can, inside a word
 * (between characters) where it must: CJK text has no spaces. Existing line breaks are kept.
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/(\s+)/)) {
      if (word === "") continue;
      if (stringWidth(line + word) <= width) {
        line += word;
        continue;
      }
      if (line.trim() !== "") lines.push(line.trimEnd());
      line = "";
      if (/^\s+$/.test(word)) continue;
      for (const { segment } of graphemes.segment(word)) {
        if (stringWidth(line + segment) > width && line !== "") {
          lines.push(line);
          line = "";
        }
        line += segment;
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}
