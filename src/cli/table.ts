/** Render rows as left-aligned columns separated by two spaces; the last column is not padded. */
export function formatTable(
  header: string[],
  rows: string[][],
  maxWidth = process.stdout.columns ?? 120,
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) => {
    const text = cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
    return text.length > maxWidth ? `${text.slice(0, maxWidth - 1)}…` : text;
  };
  return [line(header), ...rows.map(line)].join("\n");
}

/** First line of a text, shortened to `max` characters. */
export function firstLine(text: string, max = 80): string {
  const line = text.split("\n", 1)[0]?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
