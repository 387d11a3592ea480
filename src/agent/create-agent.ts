import {
  DEFAULT_NUDGE,
  DEFAULT_ROUTING_MODE,
  DEFAULT_ROUTING_REWRITE,
  DEFAULT_SUMMARIZER,
} from "../config/defaults.js";
import type { SwitchyardConfig } from "../config/schema.js";
import type { ContextOptions } from "../context/active.js";
import type { ModelProvider } from "../models/model.js";
import { resolveModel } from "../models/resolve.js";
import { Agent, type AgentHost, type AgentOptions } from "./agent.js";
import { fallbackNudge } from "./nudge.js";
import { QueryRewriter, type RewriteRecord } from "./query-rewrite.js";
import { type RoutableHost, routerFor, routeTools, syncRouter } from "./route-tools.js";
import { ToolSearch } from "./tool-search.js";

/** What {@link createAgent} reads of a config: the `model`, `agent` and `routing` sections. */
export type AgentConfig = Pick<SwitchyardConfig, "model" | "agent" | "routing">;

/** Options of {@link createAgent}: each one given here wins over the config's `agent` section. */
export interface CreateAgentOptions extends Partial<Omit<AgentOptions, "host" | "model" | "selectTools">> {
  /** The model; default: the one the config's `model` section (or the environment) describes. */
  model?: ModelProvider;
  /** Called when a routing strategy's ranking fails (an embeddings endpoint down); the others are used. */
  onRoutingError?: (error: unknown, strategy: string) => void;
  /**
   * Told once, when the host's router is built, of each `routing.pinned` id or hint tool glob that names
   * no tool of the catalog (see `routerFor`).
   */
  onRoutingWarning?: (message: string) => void;
  /**
   * `routing.rewrite`: told once when the model's rewrite of a request into tool needs fails (the raw
   * request is routed alone).
   */
  onRewriteWarning?: (message: string) => void;
  /** `routing.rewrite`: each rewrite the model was asked for (not a model turn of the run: no step records it). */
  onRewrite?: (record: RewriteRecord) => void;
}

/**
 * The agent as `switchyard ask`, `chat` and `demo` build it: the host's one router for the config's
 * `routing` section ({@link routerFor}) and its `mode` (`auto` by default: per-step routing up to
 * `searchAbove` tools, tool search above; `route`, `search` or `all`; with `rewrite`, the model's tool
 * needs for each request ranked beside it in the routed runs), the config's `agent` section
 * (system prompt, step limit, identical-call and per-tool call limits, skipServerAfter, parallel calls, the fallback nudge unless
 * `nudge: false`), and the model.
 *
 * ```ts
 * await using yard = await Switchyard.fromFile("switchyard.config.json");
 * const agent = createAgent(yard, yard.config, { onEvent: (e) => console.error(e.type) });
 * ```
 * @throws SwitchyardError `MODEL_NOT_CONFIGURED` without a model; `CONFIG_INVALID` for a routing
 *   strategy that needs an embeddings endpoint the config does not give.
 */
export function createAgent(
  host: AgentHost & RoutableHost,
  config: AgentConfig = {},
  options: CreateAgentOptions = {},
): Agent {
  const { model, onRoutingError, onRoutingWarning, onRewriteWarning, onRewrite, ...overrides } = options;
  const section = config.agent ?? {};
  const routing = config.routing ?? {};
  const router = routerFor(host, config.routing, {
    ...(onRoutingError ? { onError: onRoutingError } : {}),
    ...(onRoutingWarning ? { onWarning: onRoutingWarning } : {}),
  });
  const sync = () => syncRouter(router);
  const mode = routing.mode ?? DEFAULT_ROUTING_MODE;
  const nudge = section.nudge ?? DEFAULT_NUDGE;
  const chosenModel = model ?? resolveModel(config.model ? { section: config.model } : {});
  // The model writes the query: one short call per new request, before its first routed step.
  const rewrite =
    (routing.rewrite ?? DEFAULT_ROUTING_REWRITE)
      ? new QueryRewriter({
          model: chosenModel,
          ...(onRewriteWarning ? { onWarning: onRewriteWarning } : {}),
          ...(onRewrite ? { onRewrite } : {}),
        })
      : undefined;
  const route = routeTools(host, router, { rewrite });
  const agentOptions: AgentOptions = {
    model: chosenModel,
    host,
    ...(mode === "all" ? {} : { selectTools: route }),
    ...(mode === "auto" || mode === "search"
      ? {
          toolSearch: new ToolSearch({
            router,
            sync,
            mode,
            route,
            ...(routing.searchAbove !== undefined ? { searchAbove: routing.searchAbove } : {}),
            ...(routing.searchResults !== undefined ? { maxResults: routing.searchResults } : {}),
            ...(routing.pinned ? { pinned: routing.pinned } : {}),
          }),
        }
      : {}),
    ...(nudge === false ? {} : { nudge: fallbackNudge({ router, sync, ...(nudge === true ? {} : nudge) }) }),
    ...(section.systemPrompt !== undefined ? { systemPrompt: section.systemPrompt } : {}),
    ...(section.maxSteps !== undefined ? { maxSteps: section.maxSteps } : {}),
    ...(section.maxIdenticalCalls !== undefined ? { maxIdenticalCalls: section.maxIdenticalCalls } : {}),
    ...(section.maxCallsPerTool !== undefined ? { maxCallsPerTool: section.maxCallsPerTool } : {}),
    ...(section.skipServerAfter !== undefined ? { skipServerAfter: section.skipServerAfter } : {}),
    ...(section.parallelToolCalls !== undefined ? { parallelToolCalls: section.parallelToolCalls } : {}),
    context: contextOptions(config, chosenModel),
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value !== undefined) (agentOptions as unknown as Record<string, unknown>)[key] = value;
  }
  return new Agent(agentOptions);
}

/** The agent's `context` options from the config: `model.contextWindow` and the `agent.context` section. */
function contextOptions(config: AgentConfig, model: ModelProvider): ContextOptions {
  const section = config.agent?.context ?? {};
  const { summarizer = DEFAULT_SUMMARIZER, ...rest } = section;
  const window = config.model?.contextWindow;
  const given = Object.entries(rest).filter(([, value]) => value !== undefined);
  return {
    ...(Object.fromEntries(given) as ContextOptions),
    ...(window !== undefined ? { window } : {}),
    ...(summarizer === "model" ? { summarizer: model } : {}),
  };
}
