/** The names closest to `word`, best first, for "did you mean" hints; none when nothing is close. */
export function closestNames(word: string, candidates: readonly string[], limit = 3): string[] {
  const wanted = word.toLowerCase();
  const scored = [...new Set(candidates)]
    .map((name) => ({ name, score: similarity(wanted, name.toLowerCase()) }))
    .sort((a, b) => b.score - a.score);
  // Only names about as close as the closest one: a shared prefix alone is not a suggestion.
  const floor = Math.max(0.5, (scored[0]?.score ?? 0) * 0.8);
  return scored
    .filter((candidate) => candidate.score >= floor)
    .slice(0, limit)
    .map((candidate) => candidate.name);
}

/** Dice coefficient over character bigrams: cheap and good enough for typos. */
function similarity(a: string, b: string): number {
  const grams = (s: string) =>
    new Set(Array.from({ length: Math.max(s.length - 1, 0) }, (_, i) => s.slice(i, i + 2)));
  const left = grams(a);
  const right = grams(b);
  if (left.size === 0 || right.size === 0) return a === b ? 1 : 0;
  let shared = 0;
  for (const gram of left) if (right.has(gram)) shared += 1;
  return (2 * shared) / (left.size + right.size);
}
