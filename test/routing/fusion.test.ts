import { describe, expect, it } from "vitest";
import { reciprocalRankFusion } from "../../src/routing/fusion.js";

const ranking = (...ids: string[]) => ids.map((id, i) => ({ id, score: 100 - i }));

describe("reciprocal-rank fusion", () => {
  it("sums 1 / (k + rank) over rankings, whatever the original scores", () => {
    const fused = reciprocalRankFusion([ranking("a", "b", "c"), ranking("c", "a")], { k: 60 });
    expect(fused.map((tool) => tool.id)).toEqual(["a", "c", "b"]);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62);
    expect(fused[1]!.score).toBeCloseTo(1 / 63 + 1 / 61);
    expect(fused[2]!.score).toBeCloseTo(1 / 62);
  });

  it("weights rankings, breaks ties by id and cuts at the limit", () => {
    expect(reciprocalRankFusion([ranking("b"), ranking("a")]).map((tool) => tool.id)).toEqual(["a", "b"]);
    const weighted = reciprocalRankFusion([ranking("b"), ranking("a")], { weights: [1, 0.5], limit: 1 });
    expect(weighted.map((tool) => tool.id)).toEqual(["b"]);
  });
});
