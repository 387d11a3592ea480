// Routing: ms per query of the Router on the 4,076-tool Seal-Tools catalog (shared/data/routing,
// beside the repository) — the index built once, then every labelled query of the dev set ranked
// (topK = the router's default), several passes. Switchyard only. The scenario is skipped, with the
// reason, when the router or the data cannot be loaded.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../paths.js";
import type { Row, ScenarioResult } from "../report.js";
import { median, percentile, type RoundPolicy, runRounds, sum } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

const DATA = join(REPO, "..", "shared", "data", "routing", "seal-tools");

export async function routing(
  context: ScenarioContext,
  options: { id: string; title: string; policy: RoundPolicy },
): Promise<ScenarioResult> {
  const base = { id: options.id, title: options.title, unit: "ms" as const, method: "", rows: [] };
  let modules: [
    typeof import("../../src/routing/router.js"),
    typeof import("../../src/routing/routing-data.js"),
  ];
  try {
    modules = await Promise.all([
      import("../../src/routing/router.js"),
      import("../../src/routing/routing-data.js"),
    ]);
  } catch (error) {
    return { ...base, skipped: `src/routing did not load: ${(error as Error).message}` };
  }
  const [{ Router }, { parseQueriesJsonl, parseToolsJson }] = modules;
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

  const builds: number[] = [];
  const perQuery: number[] = [];
  let router = new Router(tools.value);
  for (const query of queries.slice(0, 100)) await router.rank(query); // warm-up
  const count = await runRounds(rounds(context, options.policy), async () => {
    const started = performance.now();
    router = new Router(tools.value);
    builds.push(performance.now() - started);
    for (const query of queries) {
      const queryStarted = performance.now();
      await router.rank(query);
      perQuery.push(performance.now() - queryStarted);
    }
  });
  const rows: Row[] = [
    {
      id: "routing-rank",
      label: `Router.rank (${router.strategy}), ${router.size} tools`,
      median: median(perQuery),
      p99: percentile(perQuery, 0.99),
      callsPerSecond: perQuery.length / (sum(perQuery) / 1000),
      samples: perQuery.length,
    },
    {
      id: "routing-build",
      label: `new Router(${router.size} tools): index build`,
      median: median(builds),
      samples: builds.length,
    },
  ];
  return {
    ...base,
    method: `${queries.length} dev queries × ${count} passes, each pass on a freshly built index; calls/s = queries per second`,
    rows,
  };
}
