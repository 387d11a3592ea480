// Small statistics for the bench: nearest-rank percentiles over a copy of the samples.

/** The p-th percentile (0–1) by nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** The list rotated left by `by`: round r of an interleaved run starts with a different client. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const start = by % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

/** How many rounds to run: at least `min`, at most `max`, and no new round once `budgetMs` is spent. */
export interface RoundPolicy {
  min: number;
  max: number;
  budgetMs: number;
}

/** Run `round(r)` for r = 0, 1, … as the policy allows; returns the number of rounds run. */
export async function runRounds(
  policy: RoundPolicy,
  round: (index: number) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  let index = 0;
  while (index < policy.max && (index < policy.min || performance.now() - started < policy.budgetMs)) {
    await round(index);
    index += 1;
  }
  return index;
}
