import { readFileSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { messageOf } from "../../errors.js";
import { catalogToolDescriptors } from "../../routing/catalog-tools.js";
import { queryFromText } from "../../routing/conversation.js";
import {
  createStrategy,
  STRATEGY_NAMES,
  type StrategyName,
  type StrategySpec,
} from "../../routing/create-strategy.js";
import { evaluateRouter } from "../../routing/evaluate.js";
import type { LabelledQuery } from "../../routing/metrics.js";
import { DEFAULT_TOP_K, Router } from "../../routing/router.js";
import { type ParseResult, parseQueriesJsonl, parseToolsJson } from "../../routing/routing-data.js";
import type { LexicalOptions } from "../../routing/strategies/lexical.js";
import type { ToolDescriptor } from "../../routing/tool-descriptor.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { firstLine, formatTable } from "../table.js";

/** Ids per line written by `route eval --rankings`, unless `--top` says otherwise. */
const DEFAULT_RANKINGS_LENGTH = 10;
/** Environment variable holding the embeddings endpoint's API key (never taken from a flag). */
const EMBEDDINGS_KEY_ENV = "SWITCHYARD_EMBEDDINGS_API_KEY";

/** Flags shared by `route` and `route eval`: which strategy, and its embeddings endpoint. */
export interface StrategyFlags {
  top?: string;
  strategy?: string;
  embeddingsUrl?: string;
  embeddingsModel?: string;
}

/** Flags of `route eval`. */
export interface RouteEvalFlags extends StrategyFlags {
  tools: string;
  queries: string;
  rankings?: string;
  /** JSON of lexical options, for tuning experiments. */
  lexical?: string;
  /** `--no-transcripts`: route every query as plain text. */
  transcripts?: boolean;
}

/** How main.ts wraps a command action (see `run` in main.ts). */
export type RunAction = <A extends unknown[]>(
  command: (ctx: CommandContext, ...args: A) => Promise<number>,
) => (...args: A) => Promise<void>;

/** Register `route "<query>"` and `route eval` on the CLI. */
export function registerRouteCommands(cli: Command, run: RunAction): void {
  const withStrategyFlags = (command: Command) =>
    command
      .option("--strategy <name>", `routing strategy: ${STRATEGY_NAMES.join(", ")} (default lexical)`)
      .option(
        "--embeddings-url <url>",
        `OpenAI-compatible API root for embeddings (key: $${EMBEDDINGS_KEY_ENV})`,
      )
      .option("--embeddings-model <name>", "embedding model name");
  const route = withStrategyFlags(
    cli
      .command("route")
      .argument("<query>", 'a request, or a transcript of "user: …" / "assistant: …" lines')
      .description("show the tools the router would offer for a query, over the configured fleet")
      .option("--top <k>", `tools to show (default: config routing.topK, else ${DEFAULT_TOP_K})`),
  ).action(run((ctx, query: string, flags: StrategyFlags) => routeCommand(ctx, query, flags)));
  withStrategyFlags(
    route
      .command("eval")
      .description("measure routing on a labelled set (R@1, R@5, R@10, MRR, ms per query)")
      .requiredOption(
        "--tools <file>",
        "tools.json: a JSON array of { id, server, name, description, inputSchema }",
      )
      .requiredOption("--queries <file>", "JSON lines of { id, query, expected_groups }")
      .option("--top <k>", `ids per ranking written by --rankings (default ${DEFAULT_RANKINGS_LENGTH})`)
      .option("--rankings <file>", "write one JSON line { id, ranked: [tool ids] } per query")
      .option("--lexical <json>", "lexical strategy options as JSON (tuning), e.g. '{\"clauseWeight\":0}'")
      .option(
        "--no-transcripts",
        "route each query as plain text, even when it is a user:/system: transcript",
      ),
  ).action(
    // `route` has flags of the same names; Commander gives them to `route` wherever they stand.
    run((ctx, _flags: RouteEvalFlags, command: Command) =>
      routeEvalCommand(ctx, command.optsWithGlobals<RouteEvalFlags>()),
    ),
  );
}

/** `switchyard route "<query>"`: rank the fleet's tools for a query. */
export async function routeCommand(
  ctx: CommandContext,
  query: string,
  flags: StrategyFlags,
): Promise<number> {
  const top = flags.top === undefined ? undefined : parseTop(flags.top);
  const spec = strategySpec(flags, {
    onError: (error, strategy) =>
      ctx.out.note(`warning: ${strategy} ranking failed, using the others: ${messageOf(error)}`),
  });
  const yard = await ctx.connect();
  for (const state of yard.servers()) {
    if (state.status === "failed")
      ctx.out.note(`warning: server ${state.name} failed, its tools are not ranked: ${state.error}`);
  }
  // What a server says about itself: its serverInfo name for now (instructions are not exposed yet).
  const about = new Map(
    yard
      .servers()
      .flatMap((state) =>
        state.serverInfo && state.serverInfo.name !== state.name
          ? [[state.name, { title: state.serverInfo.name }]]
          : [],
      ),
  );
  const router = new Router(catalogToolDescriptors(yard.tools(), about), { strategy: createStrategy(spec) });
  const ranked = await router.rank(queryFromText(query), {
    topK: top ?? yard.config.routing?.topK ?? DEFAULT_TOP_K,
  });
  if (ctx.out.json) {
    ctx.out.data(
      ranked.map((tool) => ({ name: tool.id, server: tool.server, tool: tool.name, score: tool.score })),
    );
    return EXIT_OK;
  }
  if (ranked.length === 0) {
    ctx.out.note(`no tool matches "${firstLine(query)}" (${router.size} tools in the catalog)`);
    return EXIT_OK;
  }
  const rows = ranked.map((tool, i) => [
    String(i + 1),
    tool.id,
    tool.server,
    tool.score.toFixed(2),
    firstLine(router.tool(tool.id)?.description ?? "", 60),
  ]);
  ctx.out.result(formatTable(["RANK", "TOOL", "SERVER", "SCORE", "DESCRIPTION"], rows));
  return EXIT_OK;
}

/**
 * `switchyard route eval`: rank every labelled query over an offline catalog and print R@1, R@5, R@10,
 * MRR and ms per query. `--json` gives fractions (0..1); the table gives percentages, as the routing
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

  const started = performance.now();
  const router = new Router(tools, { strategy: createStrategy(spec) });
  const buildMs = performance.now() - started;
  const evaluation = await evaluateRouter(router, queries, {
    depth: Math.max(length, 100),
    transcripts: flags.transcripts !== false,
  });

  if (flags.rankings !== undefined) {
    const lines = evaluation.rankings.map((ranking) =>
      JSON.stringify({ id: ranking.id, ranked: ranking.ranked.slice(0, length) }),
    );
    try {
      writeFileSync(flags.rankings, `${lines.join("\n")}\n`);
    } catch (error) {
      throw new CliError(`cannot write --rankings file ${flags.rankings}: ${messageOf(error)}`, EXIT_USAGE);
    }
  }
  const { n, recallAt1, recallAt5, recallAt10, mrr, msPerQuery } = evaluation;
  if (ctx.out.json) {
    ctx.out.data({ n, recallAt1, recallAt5, recallAt10, mrr, msPerQuery });
    return EXIT_OK;
  }
  const percent = (value: number) => (value * 100).toFixed(1);
  ctx.out.result(
    formatTable(
      ["QUERIES", "R@1", "R@5", "R@10", "MRR", "MS/QUERY"],
      [
        [
          String(n),
          percent(recallAt1),
          percent(recallAt5),
          percent(recallAt10),
          percent(mrr),
          msPerQuery.toFixed(3),
        ],
      ],
    ),
  );
  ctx.out.note(
    `${router.strategy} over ${router.size} tools (index built in ${Math.round(buildMs)} ms); recall and MRR in percent`,
  );
  return EXIT_OK;
}

function strategySpec(flags: StrategyFlags, extra: Partial<StrategySpec>): StrategySpec {
  const name = flags.strategy ?? "lexical";
  if (!(STRATEGY_NAMES as readonly string[]).includes(name))
    throw new CliError(`--strategy must be one of ${STRATEGY_NAMES.join(", ")} (got "${name}")`, EXIT_USAGE);
  const spec: StrategySpec = { strategy: name as StrategyName, ...extra };
  if (name === "embedding" || name === "hybrid") {
    if (!flags.embeddingsUrl || !flags.embeddingsModel)
      throw new CliError(`--strategy ${name} needs --embeddings-url and --embeddings-model`, EXIT_USAGE);
    const apiKey = process.env[EMBEDDINGS_KEY_ENV];
    spec.embeddings = {
      baseURL: flags.embeddingsUrl,
      model: flags.embeddingsModel,
      ...(apiKey ? { apiKey } : {}),
    };
  }
  return spec;
}

function parseTop(value: string): number {
  const top = Number(value);
  if (!Number.isInteger(top) || top < 1)
    throw new CliError(`--top must be a positive whole number (got "${value}")`, EXIT_USAGE);
  return top;
}

function parseLexical(json: string): LexicalOptions {
  try {
    const options: unknown = JSON.parse(json);
    if (typeof options !== "object" || options === null || Array.isArray(options))
      throw new Error("not an object");
    return options as LexicalOptions;
  } catch (error) {
    throw new CliError(
      `--lexical must be a JSON object of lexical options (${messageOf(error)})`,
      EXIT_USAGE,
    );
  }
}

function readData<T>(flag: string, file: string, parse: (text: string) => ParseResult<T>): T {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : messageOf(error);
    throw new CliError(`cannot read ${flag} file ${file}: ${reason}`, EXIT_USAGE);
  }
  const parsed = parse(text);
  if (!parsed.ok) throw new CliError(`${flag} file ${file}: ${parsed.problem}`, EXIT_USAGE);
  return parsed.value;
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
    `warning: ${affected.length} queries expect tools that are not in ${toolsFile} (e.g. "${missing}" in query ${example.id}); they count as misses`,
  );
}
