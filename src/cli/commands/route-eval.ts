import { readFileSync, writeFileSync } from "node:fs";
import { type ModelProvider, QueryRewriter, resolveModel } from "../../internal.js";
import {
  createStrategy,
  DEFAULT_RANKINGS_LENGTH,
  type Evaluation,
  evaluateRouter,
  type LabelledQuery,
  type LexicalOptions,
  type ParseResult,
  parseLexicalOptions,
  parseQueriesJsonl,
  parseToolsJson,
  queryFromText,
  Router,
  type ToolDescriptor,
} from "../../routing/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE, messageOf } from "../exit-codes.js";
import { countOf, formatTable } from "../table.js";
import { parseTop, type RouteEvalFlags, strategySpec } from "./route.js";

/**
 * `switchyard route eval`: rank every labelled query over an offline catalog and print R@1, R@5, R@10,
 * MRR, server-level R@5 and ms per query. `--json` gives fractions (0..1); the table gives percentages, as the routing
 * data README does.
 */
export async function routeEvalCommand(ctx: CommandContext, flags: RouteEvalFlags): Promise<number> {
  const length = flags.top === undefined ? DEFAULT_RANKINGS_LENGTH : parseTop(flags.top);
  const tools = readData("--tools", flags.tools, parseToolsJson);
  const queries = readData("--queries", flags.queries, parseQueriesJsonl);
  warnUnknownExpected(ctx, queries, tools, flags.tools);
  const spec = strategySpec(flags, {
    ...(flags.lexical === undefined ? {} : { lexical: parseLexical(flags.lexical) }),
  });

  // The model first: a missing one fails before the set is ranked.
  const model = flags.rewrite ? rewriteModel(ctx) : undefined;

  const started = performance.now();
  const router = new Router(tools, { strategy: createStrategy(spec) });
  const buildMs = performance.now() - started;
  const depth = Math.max(length, 100);
  const evaluation = await evaluateRouter(router, queries, {
    depth,
    transcripts: flags.transcripts !== false,
  });

  if (flags.rankings !== undefined) {
    const lines = evaluation.rankings.map((ranking) =>
      JSON.stringify({ id: ranking.id, ranked: ranking.ranked.slice(0, length) }),
    );
    try {
      writeFileSync(flags.rankings, `${lines.join("\n")}\n`);
    } catch (error) {
      throw new CliError(`cannot write --rankings file ${flags.rankings}: ${fileProblem(error)}`, EXIT_USAGE);
    }
  }
  const rewritten = model ? await evaluateRewritten(ctx, model, router, queries, flags, depth) : undefined;
  const figures = (of: Evaluation) => ({
    recallAt1: of.recallAt1,
    recallAt5: of.recallAt5,
    recallAt10: of.recallAt10,
    mrr: of.mrr,
    serverRecallAt5: of.serverRecallAt5 ?? 0,
    msPerQuery: of.msPerQuery,
  });
  if (ctx.out.json) {
    ctx.out.data({
      n: evaluation.n,
      ...figures(evaluation),
      ...(rewritten
        ? {
            rewrite: {
              ...figures(rewritten.evaluation),
              calls: rewritten.calls,
              failed: rewritten.failed,
              msPerRewrite: rewritten.msPerRewrite,
            },
          }
        : {}),
    });
    return EXIT_OK;
  }
  const percent = (value: number) => (value * 100).toFixed(1);
  const row = (of: Evaluation) => {
    const f = figures(of);
    return [
      String(of.n),
      percent(f.recallAt1),
      percent(f.recallAt5),
      percent(f.recallAt10),
      percent(f.mrr),
      percent(f.serverRecallAt5),
      f.msPerQuery.toFixed(3),
    ];
  };
  const header = ["QUERIES", "R@1", "R@5", "R@10", "MRR", "SERVER R@5", "MS/QUERY"];
  ctx.out.result(
    rewritten
      ? formatTable(
          ["MODE", ...header],
          [
            ["raw", ...row(evaluation)],
            ["rewrite", ...row(rewritten.evaluation)],
          ],
        )
      : formatTable(header, [row(evaluation)]),
  );
  ctx.out.note(
    `${router.strategy} over ${countOf(router.size, "tool")} (index built in ${Math.round(buildMs)} ms); recall and MRR in percent`,
  );
  if (rewritten)
    ctx.out.note(
      `rewrite: ${rewritten.calls} model calls (${rewritten.msPerRewrite.toFixed(0)} ms each on average, not in MS/QUERY), ` +
        `${rewritten.failed} failed (their raw request ranked alone); raw is the headline: it needs no model`,
    );
  return EXIT_OK;
}

/** The model of `--rewrite`: the config's `model` section (and the environment), as `ask` resolves it. */
function rewriteModel(ctx: CommandContext): ModelProvider {
  const config = ctx.loadConfig();
  return resolveModel(config.model ? { section: config.model } : {});
}

/** Requests rewritten at once by `route eval --rewrite`: a remote model answers each in about a second. */
const EVAL_REWRITES_AT_ONCE = 4;

/**
 * `route eval --rewrite`: every query's request rewritten into tool needs by the config's model (one call
 * per distinct request, a few at a time, kept in memory for the run), then the set evaluated again with
 * them.
 */
async function evaluateRewritten(
  ctx: CommandContext,
  model: ModelProvider,
  router: Router,
  queries: readonly LabelledQuery[],
  flags: RouteEvalFlags,
  depth: number,
): Promise<{ evaluation: Evaluation; calls: number; failed: number; msPerRewrite: number }> {
  let failed = 0;
  let rewriteMs = 0;
  const requests = [
    ...new Set(
      queries.map((query) => (flags.transcripts === false ? query.query : queryFromText(query.query).text)),
    ),
  ];
  const rewriter = new QueryRewriter({
    model,
    maxCached: Math.max(requests.length, 1),
    onWarning: (message) => ctx.out.note(`warning: ${message}`),
    onRewrite: (record) => {
      rewriteMs += record.ms;
      if (record.error !== undefined) failed += 1;
    },
  });
  let next = 0;
  const worker = async () => {
    while (next < requests.length) await rewriter.needs(requests[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(EVAL_REWRITES_AT_ONCE, requests.length) }, worker));
  const evaluation = await evaluateRouter(router, queries, {
    depth,
    transcripts: flags.transcripts !== false,
    rewrite: (request) => rewriter.needs(request),
  });
  const calls = rewriter.calls;
  return { evaluation, calls, failed, msPerRewrite: calls ? rewriteMs / calls : 0 };
}

function parseLexical(json: string): LexicalOptions {
  let options: unknown;
  try {
    options = JSON.parse(json);
  } catch (error) {
    throw new CliError(
      `--lexical must be a JSON object of lexical options (${messageOf(error)})`,
      EXIT_USAGE,
    );
  }
  try {
    return parseLexicalOptions(options);
  } catch (error) {
    throw new CliError(`--lexical: ${messageOf(error)}`, EXIT_USAGE);
  }
}

function readData<T>(flag: string, file: string, parse: (text: string) => ParseResult<T>): T {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${flag} file ${file}: ${fileProblem(error)}`, EXIT_USAGE);
  }
  const parsed = parse(text);
  if (!parsed.ok) throw new CliError(`${flag} file ${file}: ${parsed.problem}`, EXIT_USAGE);
  return parsed.value;
}

/** Why a file could not be read or written, in words (not `EISDIR: illegal operation on a directory`). */
function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "it is a directory; give a file";
  return messageOf(error);
}

/** Expected ids missing from the tools file count as misses; say so once, with an example. */
function warnUnknownExpected(
  ctx: CommandContext,
  queries: readonly LabelledQuery[],
  tools: readonly ToolDescriptor[],
  toolsFile: string,
): void {
  const ids = new Set(tools.map((tool) => tool.id));
  const affected = queries.filter((query) =>
    query.expectedGroups.some((group) => group.every((id) => !ids.has(id))),
  );
  if (affected.length === 0) return;
  const example = affected[0]!;
  const missing = example.expectedGroups.flat().find((id) => !ids.has(id));
  ctx.out.note(
    `warning: ${affected.length === 1 ? "1 query expects" : `${affected.length} queries expect`} tools that are not in ${toolsFile} (e.g. "${missing}" in query ${example.id}); they count as misses`,
  );
}
