import { describe, expect, it } from "vitest";
import { recallAt, reciprocalRank, routingMetrics } from "../../src/routing/metrics.js";
import { parseQueriesJsonl, parseToolsJson } from "../../src/routing/routing-data.js";

describe("routing metrics", () => {
  it("count a group as found when any of its alternatives is in the top k", () => {
    const groups = [["a", "a2"], ["b"], ["c"]];
    expect(recallAt(["x", "a2", "b"], groups, 1)).toBe(0);
    expect(recallAt(["x", "a2", "b"], groups, 2)).toBeCloseTo(1 / 3);
    expect(recallAt(["x", "a2", "b"], groups, 10)).toBeCloseTo(2 / 3);
  });

  it("take the reciprocal rank of the first relevant tool, 0 when none was ranked", () => {
    expect(reciprocalRank(["x", "y", "b"], [["a"], ["b"]])).toBeCloseTo(1 / 3);
    expect(reciprocalRank(["x"], [["a"]])).toBe(0);
  });

  it("average over queries", () => {
    const queries = [
      { id: "1", query: "q", expectedGroups: [["a"]] },
      { id: "2", query: "q", expectedGroups: [["b"], ["c"]] },
    ];
    expect(routingMetrics(queries, [["a"], ["c", "x", "y", "z", "w", "b"]])).toEqual({
      n: 2,
      recallAt1: (1 + 0.5) / 2,
      recallAt5: (1 + 0.5) / 2,
      recallAt10: 1,
      mrr: 1,
    });
  });
});

describe("routing data files", () => {
  it("read tools.json, with server titles and descriptions when present", () => {
    const parsed = parseToolsJson(
      JSON.stringify([
        { id: "t1", server: "s", name: "getX", description: "d", inputSchema: { type: "object" } },
        { id: "t2", server_title: "Maps", server_description: "Places and routes" },
      ]),
    );
    expect(parsed).toEqual({
      ok: true,
      value: [
        { id: "t1", server: "s", name: "getX", description: "d", inputSchema: { type: "object" } },
        { id: "t2", server: "", name: "t2", serverTitle: "Maps", serverDescription: "Places and routes" },
      ],
    });
  });

  it("say what is wrong with a bad tools.json", () => {
    expect(parseToolsJson("{")).toMatchObject({
      ok: false,
      problem: expect.stringContaining("not valid JSON"),
    });
    expect(parseToolsJson("{}")).toEqual({
      ok: false,
      problem: 'expected a JSON array of tools, or { "tools": [...] }',
    });
    expect(parseToolsJson('[{"id":"a"},{"name":"b"}]')).toEqual({
      ok: false,
      problem: 'tool #2: "id" must be a non-empty string',
    });
    expect(parseToolsJson('[{"id":"a"},{"id":"a"}]')).toEqual({
      ok: false,
      problem: 'tool #2: duplicate id "a" (first seen at tool #1)',
    });
    expect(parseToolsJson('[{"id":"a","inputSchema":"x"}]')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('"inputSchema" must be an object'),
    });
  });

  it("read query lines, skipping blank ones and taking `expected` when there are no groups", () => {
    const parsed = parseQueriesJsonl(
      '{"id":"q1","query":"a","expected_groups":[["x","y"],["z"]]}\n\n{"id":7,"query":"b","expected":["x","z"]}\n',
    );
    expect(parsed).toEqual({
      ok: true,
      value: [
        { id: "q1", query: "a", expectedGroups: [["x", "y"], ["z"]] },
        { id: "7", query: "b", expectedGroups: [["x"], ["z"]] },
      ],
    });
  });

  it("name the line of a bad query", () => {
    expect(parseQueriesJsonl('{"query":"a","expected":["x"]}\nnot json')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^line 2: not valid JSON/),
    });
    expect(parseQueriesJsonl('{"query":"a","expected_groups":[[]]}')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^line 1: "expected_groups" must be/),
    });
    expect(parseQueriesJsonl('{"query":"","expected":["x"]}')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/"query"/),
    });
    expect(parseQueriesJsonl("\n")).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/no queries/),
    });
  });
});
