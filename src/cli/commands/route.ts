import path from "node:path";
import type { Command } from "commander";
import {
  DEFAULT_ROUTING_MODE,
  DEFAULT_TOOL_SEARCH_ABOVE,
  didYouMean,
  embeddingsSpec,
  followCatalog,
  isSwitchyardError,
  type RoutingSection,
  rerankerSpec,
  routerFor,
  type Switchyard,
  unmatchedWarnings,
} from "../../internal.js";
import {
  createStrategy,
  DEFAULT_RANKINGS_LENGTH,
  DEFAULT_TOP_K,
  type OfferedTool,
  parseTranscript,
  type Router,
  type RoutingStrategy,
  routerOptionsFromConfig,
  STRATEGY_NAMES,
  type StrategyName,
  type StrategySpec,
} from "../../routing/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE, messageOf } from "../exit-codes.js";
import { countOf, firstLine, formatTable } from "../table.js";
import { routeEvalCommand } from "./route-eval.js";
import { checkServerNames } from "./servers.js";

/** Environment variable holding the embeddings endpoint's API key (never taken from a flag). */
const EMBEDDINGS_KEY_ENV = "SWITCHYARD_EMBEDDINGS_API_KEY";

/** Flags shared by `route` and `route eval`: which strategy, its embeddings endpoint or model, a reranker. */
export interface StrategyFlags {
  top?: string;
  /** `route` only: offer from these servers' tools alone. */
  server?: string[];
  strategy?: string;
  embeddingsUrl?: string;
  embeddingsModel?: string;
  /** A local ONNX embedding model's folder or file, instead of an endpoint. */
  embeddingsPath?: string;
  /** A local ONNX cross-encoder's folder or file. */
  reranker?: string;
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
  /** Measure again with each request rewritten into tool needs by the configured model. */
  rewrite?: boolean;
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
      .option("--embeddings-model <name>", "embedding model name")
      .option("--embeddings-path <dir>", "a local ONNX embedding model's folder (model.onnx, tokenizer.json)")
      .option("--reranker <dir>", "a local ONNX cross-encoder's folder: reorders the best tools");
  const route = withStrategyFlags(
    cli
      .command("route")
      .argument("<query>", 'a request, or a transcript of "user: …" / "assistant: …" lines')
      .description("show the tools the agent would offer for a request, over the configured fleet")
      .option(
        "--top <k>",
        `tools to rank instead of routing.topK (default ${DEFAULT_TOP_K}); a catalog offered whole is cut to k`,
      )
      .option(
        "--server <name>",
        "only these servers' tools (repeat, or a,b): the best of them as the agent ranks them",
        (value: string, previous: string[] = []) => [...previous, value],
      ),
  ).action(run((ctx, query: string, flags: StrategyFlags) => routeCommand(ctx, query, flags)));
  withStrategyFlags(
    route
      .command("eval")
      .description("measure routing on a labelled set (R@1, R@5, R@10, MRR, server-level R@5, ms per query)")
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
      )
      .option(
        "--rewrite",
        "measure again with each request rewritten into tool needs by the config's model (routing.rewrite); the raw figures stay first",
      ),
  ).action(
    // `route` has flags of the same names; Commander gives them to `route` wherever they stand.
    run((ctx, _flags: RouteEvalFlags, command: Command) =>
      routeEvalCommand(ctx, command.optsWithGlobals<RouteEvalFlags>()),
    ),
  );
}

/**
 * `switchyard route "<query>"`: what the agent would offer the model for this request, over the
 * configured fleet — the same router (`routerFor`: `routing.strategy`, `topK`, `pinned`,
 * `offerAllUpTo`, the servers' instructions) and the same selection (`select`) as `ask` and `chat`;
 * with strategy flags, a router of its own with their strategy in place.
 * @throws SwitchyardError `CONFIG_INVALID` when a model a flag names cannot be found or loaded.
 */
export async function routeCommand(
  ctx: CommandContext,
  query: string,
  flags: StrategyFlags,
): Promise<number> {
  // A transcript whose user turns are blank asks nothing, as an empty request does; a text with no user
  // turn ("System: restart nginx") is a plain request, as route eval and the agent read it.
  const conversation = parseTranscript(query) ?? { latestUserMessage: query };
  if (conversation.latestUserMessage.trim() === "")
    throw new CliError(
      'route: the request is empty: give the text to route, e.g. switchyard route "refund my last order"',
      EXIT_USAGE,
    );
  const top = flags.top === undefined ? undefined : parseTop(flags.top);
  const config = ctx.loadConfig();
  const onError = (error: unknown, strategy: string) => {
    // A model a flag names that cannot be loaded is a mistake to fix, not an outage to ride out: the
    // agent (and `route` over the config's model) warns and ranks without it.
    if (isSwitchyardError(error, "CONFIG_INVALID") && error.path?.startsWith("--")) throw error;
    ctx.out.note(`warning: ${strategy} ranking failed, using the others: ${messageOf(error)}`);
  };
  // Before any server starts: the flags are checked and a local model's files found.
  const strategy = flaggedStrategy(config.routing, flags, onError);
  const yard = await ctx.connect();
  const warn = (message: string) => ctx.out.note(`warning: ${message}`);
  const router = strategy
    ? ownRouter(yard, config.routing, strategy, warn)
    : routerFor(yard, config.routing, { onError, onWarning: warn });
  noteAgentDiffers(ctx, config.routing, router.size);
  const only = checkServerNames(config, flags.server, ctx.configFile());
  let offered = only
    ? // The agent's ranking of the whole catalog, kept to those servers, cut to k: only what matched
      // (no fallback, nor the unmatched rest of a catalog offered whole), so fewer rows than k.
      (await router.select(conversation, { topK: Math.max(router.size, 1) }))
        .filter((tool) => only.includes(tool.server) && matched(tool))
        .slice(0, top ?? config.routing?.topK ?? DEFAULT_TOP_K)
    : await router.select(conversation, top === undefined ? {} : { topK: top });
  // The router ranks the whole catalog; what the identity may not call is never offered (as in `ask`).
  if (yard.policy) {
    const mayCall = new Set(yard.tools().map((tool) => tool.name));
    offered = offered.filter((tool) => mayCall.has(tool.id));
  }
  // A catalog small enough to be offered whole: --top shows its best k.
  if (top !== undefined && offered.every((tool) => tool.reason === "all")) offered = offered.slice(0, top);
  const fallback = offered.filter((tool) => tool.reason === "fallback");
  if (fallback.length > 0) {
    const ranked = offered.filter((tool) => tool.reason === "ranked").length;
    const servers = [...new Set(fallback.map((tool) => tool.server))];
    const of = `${countOf(fallback.length, "tool")} of ${servers.length === 1 ? "server" : "servers"} ${servers.join(", ")}`;
    ctx.out.note(
      ranked === 0
        ? `nothing matched "${firstLine(query)}"; offering the fallback: ${of} ` +
            "(each server in turn, the tools that need the fewest arguments first)"
        : `only ${ranked} of ${countOf(router.size, "tool")} matched "${firstLine(query)}"; offering the fallback beside them: ${of} ` +
            "(the matching tools' servers first, then each server in turn; the tools that need the fewest arguments first)",
    );
  }
  noteHints(ctx, offered);
  if (ctx.out.json) {
    ctx.out.data(
      offered.map((tool) => ({
        name: tool.id,
        server: tool.server,
        tool: tool.name,
        score: tool.score ?? null,
        ...(tool.hint === undefined ? {} : { hint: tool.hint }),
      })),
    );
    return EXIT_OK;
  }
  if (offered.length === 0) {
    ctx.out.note(`no tool matches "${firstLine(query)}" (${countOf(router.size, "tool")} in the catalog)`);
    return EXIT_OK;
  }
  const rows = offered.map((tool, i) => [
    String(i + 1),
    tool.id,
    tool.server,
    scoreText(tool),
    firstLine(router.tool(tool.id)?.description ?? "", 60),
  ]);
  ctx.out.result(formatTable(["RANK", "TOOL", "SERVER", "SCORE", "DESCRIPTION"], rows));
  return EXIT_OK;
}

/**
 * Say when the agent would not offer this ranking: its mode gives it tool search or the whole catalog,
 * or `routing.rewrite` adds the model's tool needs, which `route` does not ask for.
 */
function noteAgentDiffers(ctx: CommandContext, routing: RoutingSection, size: number): void {
  const mode = routing?.mode ?? DEFAULT_ROUTING_MODE;
  const searchAbove = routing?.searchAbove ?? DEFAULT_TOOL_SEARCH_ABOVE;
  if (mode === "search" || (mode === "auto" && size > searchAbove))
    ctx.out.note(
      `note: routing.mode is ${mode}${mode === "auto" ? ` and the catalog has more than ${countOf(searchAbove, "tool")}` : ""}: the agent offers search_tools (and the pinned tools), and this is what a search of the request would rank`,
    );
  else if (mode === "all") ctx.out.note("note: routing.mode is all: the agent offers every tool, unranked");
  if (routing?.rewrite && mode !== "all")
    ctx.out.note(
      "note: routing.rewrite is on: the agent also ranks the model's tool needs for the request, which route does not ask for",
    );
}

/** A tool offered for what the request said (or pinned, or used), not to fill the offer. */
function matched(tool: OfferedTool): boolean {
  if (tool.reason === "fallback") return false;
  return tool.reason !== "all" || tool.score !== undefined || tool.hint !== undefined;
}

/** One line per routing hint the request matched: `hint: <when> → the tools it put first`. */
function noteHints(ctx: CommandContext, offered: readonly OfferedTool[]): void {
  const byHint = new Map<string, string[]>();
  for (const tool of offered)
    if (tool.hint !== undefined) byHint.set(tool.hint, [...(byHint.get(tool.hint) ?? []), tool.id]);
  for (const [when, tools] of byHint) ctx.out.note(`hint: ${when} → ${tools.join(", ")}`);
}

/**
 * A ranked tool's score; a tool offered for another reason (pinned, used, fallback) says which; one a
 * routing hint put first says `hint` (with its score when the strategy ranked it too).
 */
function scoreText(tool: OfferedTool): string {
  if (tool.hint !== undefined) return tool.score ? `hint ${tool.score.toFixed(2)}` : "hint";
  if (tool.score !== undefined) return tool.score.toFixed(2);
  return tool.reason === "all" ? "-" : tool.reason;
}

/**
 * The strategy `--strategy`, the embeddings flags and `--reranker` describe, over the config's routing
 * (its embeddings and reranker where the flags give none); none when no such flag is given.
 */
function flaggedStrategy(
  routing: RoutingSection,
  flags: StrategyFlags,
  onError: (error: unknown, strategy: string) => void,
): RoutingStrategy | undefined {
  if (
    flags.strategy === undefined &&
    flags.embeddingsUrl === undefined &&
    flags.embeddingsModel === undefined &&
    flags.embeddingsPath === undefined &&
    flags.reranker === undefined
  )
    return undefined;
  const spec = strategySpec(
    { ...flags, strategy: flags.strategy ?? routing?.strategy ?? "lexical" },
    {},
    routing?.embeddings,
  );
  if (!spec.reranker && routing?.reranker) spec.reranker = rerankerSpec(routing.reranker);
  return createStrategy({ ...spec, onError });
}

/** A router of its own, beside the agent's: the config's routing with `strategy` in its place. */
function ownRouter(
  yard: Switchyard,
  routing: RoutingSection,
  strategy: RoutingStrategy,
  warn: (message: string) => void,
): Router {
  const { strategy: _, embeddings: __, reranker: ___, ...rest } = routing ?? {};
  const following = followCatalog(yard, { ...routerOptionsFromConfig(rest), strategy });
  following.sync();
  for (const message of unmatchedWarnings(following.router)) warn(message);
  return following.router;
}

/** The strategies that use an embeddings endpoint or local model (`two-stage` when it is given one). */
const EMBEDDING_STRATEGIES: readonly StrategyName[] = ["embedding", "hybrid", "two-stage"];

/**
 * The strategy the flags describe, over `configured` embeddings (the config's, for `route`) when the
 * flags give none. Embeddings flags that would be ignored are a usage error: the URL without the model
 * or the reverse, a path beside an endpoint, any of them with a strategy that uses no embeddings.
 */
export function strategySpec(
  flags: StrategyFlags,
  extra: Partial<StrategySpec>,
  configured?: NonNullable<RoutingSection>["embeddings"],
): StrategySpec {
  const name = strategyName(flags.strategy ?? "lexical");
  const spec: StrategySpec = { strategy: name, ...extra };
  if (flags.reranker !== undefined) spec.reranker = { path: path.resolve(flags.reranker), key: "--reranker" };
  const given = embeddingsFlags(flags);
  if (given) {
    if (!EMBEDDING_STRATEGIES.includes(name))
      throw new CliError(
        `${given.flag} is used only by the embedding, hybrid and two-stage strategies, and the strategy here is ${name}: ` +
          `add --strategy hybrid (or embedding, two-stage), or drop ${given.flag}`,
        EXIT_USAGE,
      );
    spec.embeddings = given.embeddings;
  } else if (EMBEDDING_STRATEGIES.includes(name) && configured) {
    const fromConfig = embeddingsSpec(configured);
    if (fromConfig) spec.embeddings = fromConfig;
  } else if (name === "embedding" || name === "hybrid") {
    throw new CliError(
      `--strategy ${name} needs --embeddings-url and --embeddings-model, or --embeddings-path`,
      EXIT_USAGE,
    );
  }
  return spec;
}

function strategyName(name: string): StrategyName {
  if ((STRATEGY_NAMES as readonly string[]).includes(name)) return name as StrategyName;
  const hint = didYouMean(name, STRATEGY_NAMES);
  throw new CliError(
    `--strategy "${name}" is not a strategy${hint ? ` (${hint})` : ""}; use one of ${STRATEGY_NAMES.join(", ")}`,
    EXIT_USAGE,
  );
}

/** The embeddings the flags give (a local model, or an endpoint and its model), and the flag to name. */
function embeddingsFlags(
  flags: StrategyFlags,
): { flag: string; embeddings: NonNullable<StrategySpec["embeddings"]> } | undefined {
  const { embeddingsUrl: url, embeddingsModel: model, embeddingsPath: local } = flags;
  if (local !== undefined) {
    if (url !== undefined || model !== undefined)
      throw new CliError(
        "--embeddings-path is a local model and --embeddings-url with --embeddings-model an endpoint: give one or the other",
        EXIT_USAGE,
      );
    return {
      flag: "--embeddings-path",
      embeddings: { path: path.resolve(local), key: "--embeddings-path" },
    };
  }
  if (url === undefined && model === undefined) return undefined;
  if (!url)
    throw new CliError(
      "--embeddings-model needs --embeddings-url, the endpoint's API root (e.g. http://127.0.0.1:11434/v1)",
      EXIT_USAGE,
    );
  if (!model)
    throw new CliError(
      "--embeddings-url needs --embeddings-model, the endpoint's embedding model (e.g. nomic-embed-text)",
      EXIT_USAGE,
    );
  if (!isHttpUrl(url))
    throw new CliError(
      `--embeddings-url must be an http(s) URL, the endpoint's API root such as http://127.0.0.1:11434/v1 (got "${url}")`,
      EXIT_USAGE,
    );
  // The config's key belongs to the config's endpoint: a URL from a flag gets the environment's alone.
  const apiKey = process.env[EMBEDDINGS_KEY_ENV];
  return {
    flag: "--embeddings-url",
    embeddings: { baseURL: url, model, key: "--embeddings-url", ...(apiKey ? { apiKey } : {}) },
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** `--top`: a whole number above 0, in digits (`1e1` and `0x10` are not). */
export function parseTop(value: string): number {
  const top = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(top) || top < 1)
    throw new CliError(`--top must be a positive whole number (got "${value}")`, EXIT_USAGE);
  return top;
}
