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

/**
 * With tool needs, the request's own best tool (`own`, ranked without them) keeps a place in the first
 * `limit`: second, after the best of the fused ranking, when the needs pushed it further down — a need
 * that misses loses nothing the request alone finds first.
 */
export function withRequestsBest(
  fused: RankedTool[],
  own: RankedTool | undefined,
  limit: number,
): RankedTool[] {
  if (own === undefined || fused.slice(0, limit).some((tool) => tool.id === own.id)) return fused;
  const rest = fused.filter((tool) => tool.id !== own.id);
  if (rest.length === 0 || limit < 2) return rest.length === 0 ? [own] : fused;
  return [rest[0]!, { id: own.id, score: rest[1]?.score ?? rest[0]!.score }, ...rest.slice(1)].slice(
    0,
    Math.max(fused.length, 2),
  );
}
