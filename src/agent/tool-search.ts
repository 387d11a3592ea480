import { DEFAULT_TOOL_SEARCH_ABOVE, DEFAULT_TOOL_SEARCH_RESULTS } from "../config/defaults.js";
import type { RoutingMode } from "../config/vocabulary.js";
import { SwitchyardError } from "../errors.js";
import type { ModelTool } from "../models/model.js";
import type { Router } from "../routing/router.js";
import {
  descriptionLine,
  SEARCH_QUERY_DESCRIPTION,
  SEARCH_TOOLS_GUIDE,
  SEARCH_TOOLS_NAME,
  searchCatalog,
} from "../routing/search.js";
import type { SelectionContext } from "./agent.js";
import type { RunState } from "./guards.js";
import type { LocalTool, LocalToolState } from "./local-tools.js";

export { SEARCH_TOOLS_NAME } from "../routing/search.js";
/** Defaults of tool search (they live in config/defaults.ts). */
export { DEFAULT_TOOL_SEARCH_ABOVE, DEFAULT_TOOL_SEARCH_RESULTS };

/** Options of {@link ToolSearch}. */
export interface ToolSearchOptions {
  /** Answers the searches (the host's router, from `routerFor`): lexical, CJK-aware, or embeddings. */
  router: Router;
  /** Brings the router up to date with the catalog; called before each search and selection. */
  sync?: () => void;
  /**
   * `search` (every run), `auto` (runs over a catalog of more than `searchAbove` tools; the others are
   * routed), or `route`/`all` (never: `route` is then the whole selection). Default `auto`.
   */
  mode?: RoutingMode;
  /** Catalog size above which `auto` searches; default {@link DEFAULT_TOOL_SEARCH_ABOVE}. */
  searchAbove?: number;
  /** Tools one search answers with, at most; default {@link DEFAULT_TOOL_SEARCH_RESULTS}. */
  maxResults?: number;
  /** Catalog names offered from the first step of a searching run, before anything is found. */
  pinned?: readonly string[];
  /** The selection of runs that do not search (`routeTools`); without it they are offered every tool. */
  route?: (context: SelectionContext) => readonly string[] | Promise<readonly string[]>;
}

/** What one run has offered. */
interface SearchRun {
  searching: boolean;
  /** Catalog names found, used or pinned, in the order they joined the run. */
  offered: string[];
  /** Every tool name offered so far (local ones included), in the order of the run's tools arrays. */
  order: string[];
}

/**
 * Tool search for large catalogs: instead of a per-step selection, the model is offered a
 * `search_tools` tool plus the pinned tools and the ones it has found (or used) so far. Each search is
 * answered by the router with the best matches (names and one-line descriptions), and those tools join
 * the offer from the next step on, **appended**: within a run the offer only grows, in a stable order,
 * so each request's tools array starts with the previous one's, byte for byte (what providers' prompt
 * caching keys on). Give it to the agent as `toolSearch` (it brings {@link tool} and
 * {@link selectTools}, and the agent keeps the offer's order with {@link arrange}); `createAgent` does
 * for `routing.mode` `auto` and `search`.
 *
 * ```ts
 * const router = routerFor(yard);
 * const search = new ToolSearch({ router, sync: () => syncRouter(router), mode: "search" });
 * const agent = new Agent({ model, host: yard, toolSearch: search });
 * ```
 */
export class ToolSearch {
  readonly #options: ToolSearchOptions;
  readonly #runs = new WeakMap<RunState, SearchRun>();
  /** The `search_tools` tool, offered in the runs that search. */
  readonly tool: LocalTool;

  constructor(options: ToolSearchOptions) {
    const limit = options.maxResults ?? DEFAULT_TOOL_SEARCH_RESULTS;
    if (!Number.isInteger(limit) || limit < 1)
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `tool search: maxResults must be a positive integer (got ${String(limit)})`,
      );
    this.#options = options;
    this.tool = {
      tool: {
        name: SEARCH_TOOLS_NAME,
        description:
          `${SEARCH_TOOLS_GUIDE} The tools found can be called from your next turn on. Search again with ` +
          "other words when nothing fits; call a tool for live or specific data instead of answering from memory.",
        parameters: {
          type: "object",
          properties: { query: { type: "string", description: SEARCH_QUERY_DESCRIPTION } },
          required: ["query"],
        },
      },
      offered: (state) => this.#run(state).searching,
      run: (args, state) => this.#search(args, state, limit),
    };
  }

  /** Whether a run searches (decided at its first step, from the mode and the catalog's size). */
  searches(state: RunState): boolean {
    return this.#run(state).searching;
  }

  /** The agent's `selectTools`: pinned, then found and used tools in the order they joined the run. */
  readonly selectTools = (context: SelectionContext): readonly string[] | Promise<readonly string[]> => {
    const run = context.state ? this.#run(context.state) : this.#newRun();
    if (!run.searching) {
      const route = this.#options.route;
      return route ? route(context) : this.#options.router.tools().map((tool) => tool.id);
    }
    for (const name of context.usedTools) if (!run.offered.includes(name)) run.offered.push(name);
    return run.offered;
  };

  /**
   * A searching run's tools in a stable order: the tools of earlier steps keep their places (with their
   * current definitions), new ones go at the end. The agent calls it with each step's offer (catalog
   * tools, then local ones); other runs' offers are returned as they are.
   */
  arrange(state: RunState, offer: readonly ModelTool[]): ModelTool[] {
    const run = this.#run(state);
    if (!run.searching) return [...offer];
    const byName = new Map(offer.map((tool) => [tool.name, tool]));
    for (const tool of offer) if (!run.order.includes(tool.name)) run.order.push(tool.name);
    return run.order.flatMap((name) => byName.get(name) ?? []);
  }

  #run(state: RunState): SearchRun {
    let run = this.#runs.get(state);
    if (!run) {
      run = this.#newRun();
      this.#runs.set(state, run);
    }
    return run;
  }

  #newRun(): SearchRun {
    this.#options.sync?.();
    const mode = this.#options.mode ?? "auto";
    const searching =
      mode === "search" ||
      (mode === "auto" &&
        this.#options.router.size > (this.#options.searchAbove ?? DEFAULT_TOOL_SEARCH_ABOVE));
    return { searching, offered: [...(this.#options.pinned ?? [])], order: [] };
  }

  async #search(args: unknown, state: LocalToolState, limit: number): Promise<string> {
    const query = (args as { query?: unknown } | null)?.query;
    // A blank query is bad arguments, as the gateway's search_tools says too: the call is not "ok".
    if (typeof query !== "string" || !query.trim())
      throw new SwitchyardError(
        "INVALID_ARGUMENTS",
        `${SEARCH_TOOLS_NAME} needs a "query": one tool need, an action and its object (e.g. "read file contents").`,
      );
    this.#options.sync?.();
    const router = this.#options.router;
    // Only tools the run may be offered (its identity's) are named.
    const hits = await searchCatalog(router, query, { limit, allowed: state.offerable });
    if (hits.length === 0)
      return `No tool matched "${query}". Search again with other words (an action and its object, in English or Chinese).`;
    const run = this.#run(state);
    const lines = hits.map((hit) => {
      const known = run.offered.includes(hit.id);
      if (!known) run.offered.push(hit.id);
      return `- ${hit.id}: ${descriptionLine(router.tool(hit.id)?.description ?? "")}${known ? " (already offered)" : ""}`;
    });
    return [
      `Found ${hits.length === 1 ? "1 tool" : `${hits.length} tools`} for "${query}"; you can call ${hits.length === 1 ? "it" : "them"} from your next turn:`,
      ...lines,
    ].join("\n");
  }
}
