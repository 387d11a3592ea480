import { DEFAULT_RRF_K } from "../config/defaults.js";
import type { RankedTool } from "./strategy.js";

export { DEFAULT_RRF_K } from "../config/defaults.js";

/**
 * Fuse rankings by reciprocal rank: each tool scores the sum over rankings of `weight / (k + rank)`
 * (rank from 1). Scales of the original scores do not matter, only positions. Ties go to the smaller id.
 */
export function reciprocalRankFusion(
  rankings: ReadonlyArray<readonly RankedTool[]>,
  options: { k?: number; weights?: readonly number[]; limit?: number } = {},
): RankedTool[] {
  const k = options.k ?? DEFAULT_RRF_K;
  const scores = new Map<string, number>();
  for (const [r, ranking] of rankings.entries()) {
    const weight = options.weights?.[r] ?? 1;
    for (const [i, tool] of ranking.entries())
      scores.set(tool.id, (scores.get(tool.id) ?? 0) + weight / (k + i + 1));
  }
  const fused = [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return options.limit === undefined ? fused : fused.slice(0, options.limit);
}
