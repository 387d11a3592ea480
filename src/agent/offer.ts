import type { ModelTool } from "../models/model.js";
import { toModelParameters } from "../models/tool-schema.js";
import type { Identity } from "../telemetry/audit.js";
import type { AgentHost, OfferedWhy, SelectionContext } from "./agent.js";
import type { LocalToolState, LocalTools } from "./local-tools.js";
import type { ToolSearch } from "./tool-search.js";

/** A catalog entry as the agent offers it. */
type CatalogTool = ReturnType<AgentHost["tools"]>[number];

/** The tools a run may be offered, by name, as read at the host's `catalogVersion`. */
interface OfferableCatalog {
  version: number | undefined;
  byName: Map<string, CatalogTool>;
}

/** What choosing a step's tools reads. */
export interface OfferOptions {
  host: AgentHost;
  selectTools?: ((context: SelectionContext) => readonly string[] | Promise<readonly string[]>) | undefined;
  toolSearch?: ToolSearch | undefined;
}

/**
 * What an agent offers the model at a step: the catalog its run's identity may call (read again only
 * when the host's `catalogVersion` moves: 5,000 tools take ~1 ms a read), less what the client cannot
 * call and what a local tool hides, chosen by the selector (a router, or tool search) in its order,
 * then the local tools offered at that step.
 */
export class ToolOffer {
  readonly #options: OfferOptions;
  readonly #toolCache = new WeakMap<object, ModelTool>();
  #catalog: OfferableCatalog | undefined;
  /** The same, for runs with an identity of their own (runs for several users at once). */
  readonly #catalogs = new WeakMap<Identity, OfferableCatalog>();

  constructor(options: OfferOptions) {
    this.#options = options;
  }

  /** Whether a run for `identity` may be offered `name` (as the catalog stood when last read). */
  offerable(identity: Identity | undefined, name: string): boolean {
    return (identity ? this.#catalogs.get(identity) : this.#catalog)?.byName.has(name) === true;
  }

  /** The tools for one step, in the order the model sees them; `why` gets the selector's reasons. */
  async choose(
    state: LocalToolState,
    usedTools: ReadonlySet<string>,
    locals: LocalTools,
    why?: Map<string, OfferedWhy>,
  ): Promise<ModelTool[]> {
    const byName = this.#offerable(state.identity, locals);
    let tools = [...byName.values()];
    const search = this.#options.toolSearch;
    const select = search?.selectTools ?? this.#options.selectTools;
    if (select) {
      // In the selector's order: a router's puts pinned and used tools first, then the best matches.
      const explain = (picked: readonly OfferedWhy[]) => {
        for (const one of picked) why?.set(one.name, one);
      };
      // Chosen for what the user wrote: the run's own reminders are no request of theirs.
      const reminders = state.reminders;
      const messages = reminders?.size
        ? state.messages.filter((message) => !reminders.has(message))
        : state.messages;
      const chosen = new Set(await select({ messages, usedTools, state, explain }));
      tools = [...chosen].flatMap((name) => byName.get(name) ?? []);
    }
    // After the catalog's, so that a local tool offered from some step on only adds to the prompt's end.
    const offer = [...tools.map((tool) => this.#modelTool(tool)), ...locals.offered()];
    // Tool search: the tools of earlier steps keep their places, so each request's tools array starts
    // with the previous one's (prompt caching).
    return search ? search.arrange(state, offer) : offer;
  }

  #offerable(identity: Identity | undefined, locals: LocalTools): Map<string, CatalogTool> {
    const version = this.#options.host.catalogVersion;
    let cached = identity ? this.#catalogs.get(identity) : this.#catalog;
    if (!cached || version === undefined || cached.version !== version) {
      // A catalog tool named like a local tool is hidden: every call by that name is the local tool's.
      const offerable = this.#options.host
        .tools(identity ? { identity } : undefined)
        .filter((tool) => tool.unsupported === undefined && !tool.appOnly && !locals.isLocal(tool.name));
      cached = { version, byName: new Map(offerable.map((tool) => [tool.name, tool])) };
      if (identity) this.#catalogs.set(identity, cached);
      else this.#catalog = cached;
    }
    return cached.byName;
  }

  /** The model's view of a tool, made once per schema object (and again when its name or description changes). */
  #modelTool(tool: CatalogTool): ModelTool {
    let modelTool = this.#toolCache.get(tool.inputSchema);
    if (!modelTool || modelTool.name !== tool.name || modelTool.description !== tool.description) {
      modelTool = {
        name: tool.name,
        description: tool.description,
        parameters: toModelParameters(tool.inputSchema),
      };
      this.#toolCache.set(tool.inputSchema, modelTool);
    }
    return modelTool;
  }
}
