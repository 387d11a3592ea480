// Routing: ms per query of the Router on the 4,076-tool Seal-Tools catalog (shared/data/routing,
// beside the repository) — the index built once, then every labelled query of the dev set ranked
// (topK = the router's default), several passes — beside MiniSearch, the JavaScript full-text index a
// user would reach for instead (BM25+ over the tools' names and descriptions, names split into words
// as ours are, name ×2 as ours), on the same queries. Each row also says its R@5 on those queries: a
// faster ranking that finds less is no bargain. Skipped, with the reason, when the router or the data
// cannot be loaded.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../paths.js";
import type { Row, ScenarioResult } from "../report.js";
import { median, percentile, type RoundPolicy, runRounds, sum } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

/** A tool as MiniSearch indexes it: its id, and its name split into words, beside its description. */
interface IndexedTool {
  id: string;
  name: string;
  description: string;
}

const DATA = join(REPO, "..", "shared", "data", "routing", "seal-tools");

export async function routing(
  context: ScenarioContext,
  options: { id: string; title: string; policy: RoundPolicy },
): Promise<ScenarioResult> {
  const base = { id: options.id, title: options.title, unit: "ms" as const, method: "", rows: [] };
  let modules: [
    typeof import("../../src/routing/router.js"),
    typeof import("../../src/routing/routing-data.js"),
    typeof import("../../src/routing/metrics.js"),
    typeof import("../../src/routing/identifiers.js"),
  ];
  try {
    modules = await Promise.all([
      import("../../src/routing/router.js"),
      import("../../src/routing/routing-data.js"),
      import("../../src/routing/metrics.js"),
      import("../../src/routing/identifiers.js"),
    ]);
  } catch (error) {
    return { ...base, skipped: `src/routing did not load: ${(error as Error).message}` };
  }
  const [{ Router }, { parseQueriesJsonl, parseToolsJson }, { recallAt }, { splitIdentifier }] = modules;
  let texts: [string, string];
  try {
    texts = [
      readFileSync(join(DATA, "tools.json"), "utf8"),
      readFileSync(join(DATA, "routing.dev.jsonl"), "utf8"),
    ];
  } catch (error) {
    return { ...base, skipped: `no routing data: ${(error as Error).message}` };
  }
  const tools = parseToolsJson(texts[0]);
  const labelled = parseQueriesJsonl(texts[1]);
  if (!tools.ok || !labelled.ok) return { ...base, skipped: "the Seal-Tools files did not parse" };
  const queries = labelled.value.map((query) => query.query);
  /** Mean R@5 of a ranker over the labelled queries, in percent. */
  const recallAt5 = async (rank: (query: string) => Promise<string[]> | string[]) => {
    let total = 0;
    for (const query of labelled.value) total += recallAt(await rank(query.query), query.expectedGroups, 5);
    return (100 * total) / labelled.value.length;
  };

  const timed = await timeRanker(
    () => new Router(tools.value),
    (router, query) => router.rank(query),
    queries,
    context,
    options.policy,
  );
  const { index: router, builds, perQuery, count } = timed;
  const routerRecall = await recallAt5(async (query) =>
    (await router.rank(query, { topK: 5 })).map((hit) => hit.id),
  );
  const rows = rankerRows(
    { id: "routing", label: `Router.rank (${router.strategy})`, index: "new Router" },
    router.size,
    { perQuery, builds, recall: routerRecall },
  );
  rows.push(
    ...(await miniSearchRows(tools.value, queries, recallAt5, splitIdentifier, context, options.policy)),
  );
  return {
    ...base,
    method: `${queries.length} dev queries × ${count} passes, each pass on a freshly built index; calls/s = queries per second; R@5 over the same queries`,
    rows,
  };
}

/** MiniSearch's rows: ms per query and its index build, on the same tools and queries. */
async function miniSearchRows(
  tools: ReadonlyArray<{ id: string; name: string; description?: string }>,
  queries: readonly string[],
  recallAt5: (rank: (query: string) => string[]) => Promise<number>,
  splitIdentifier: (identifier: string) => string[],
  context: ScenarioContext,
  policy: RoundPolicy,
): Promise<Row[]> {
  let MiniSearch: typeof import("minisearch").default;
  try {
    MiniSearch = (await import("minisearch")).default;
  } catch (error) {
    const reason = `minisearch did not load: ${(error as Error).message}`;
    return [{ id: "minisearch-rank", label: "MiniSearch", median: Number.NaN, samples: 0, error: reason }];
  }
  const version = (
    JSON.parse(readFileSync(join(REPO, "node_modules", "minisearch", "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  const documents: IndexedTool[] = tools.map((tool) => ({
    id: tool.id,
    name: splitIdentifier(tool.name).join(" "),
    description: tool.description ?? "",
  }));
  const build = () => {
    const index = new MiniSearch<IndexedTool>({
      fields: ["name", "description"],
      searchOptions: { boost: { name: 2 }, combineWith: "OR" },
    });
    index.addAll(documents);
    return index;
  };
  const top5 = (index: ReturnType<typeof build>, query: string) =>
    index
      .search(query)
      .slice(0, 5)
      .map((hit) => String(hit.id));
  const { index, builds, perQuery } = await timeRanker(build, top5, queries, context, policy);
  const recall = await recallAt5((query) => top5(index, query));
  return rankerRows(
    { id: "minisearch", label: `MiniSearch ${version} search`, index: "new MiniSearch" },
    tools.length,
    { perQuery, builds, recall },
  );
}

/**
 * A ranker timed: after a warm-up (100 queries), each pass builds a fresh index (timed) and ranks every
 * query on it (each timed). The last index is returned, to measure recall on.
 */
async function timeRanker<I>(
  build: () => I,
  rank: (index: I, query: string) => unknown,
  queries: readonly string[],
  context: ScenarioContext,
  policy: RoundPolicy,
): Promise<{ index: I; builds: number[]; perQuery: number[]; count: number }> {
  let index = build();
  for (const query of queries.slice(0, 100)) await rank(index, query);
  const builds: number[] = [];
  const perQuery: number[] = [];
  const count = await runRounds(rounds(context, policy), async () => {
    const started = performance.now();
    index = build();
    builds.push(performance.now() - started);
    for (const query of queries) {
      const queryStarted = performance.now();
      await rank(index, query);
      perQuery.push(performance.now() - queryStarted);
    }
  });
  return { index, builds, perQuery, count };
}

/** A ranker's two rows: ms per query (with its R@5) and its index build. */
function rankerRows(
  ranker: { id: string; label: string; index: string },
  tools: number,
  measured: { perQuery: number[]; builds: number[]; recall: number },
): Row[] {
  const { perQuery, builds, recall } = measured;
  return [
    {
      id: `${ranker.id}-rank`,
      label: `${ranker.label}, ${tools} tools`,
      median: median(perQuery),
      p99: percentile(perQuery, 0.99),
      callsPerSecond: perQuery.length / (sum(perQuery) / 1000),
      extra: `R@5 ${recall.toFixed(1)}%`,
      samples: perQuery.length,
    },
    {
      id: `${ranker.id}-build`,
      label: `${ranker.index}(${tools} tools): index build`,
      median: median(builds),
      samples: builds.length,
    },
  ];
}
