import {
  DEFAULT_MAX_USED_KEPT,
  DEFAULT_MIN_RANKED_TOOLS,
  DEFAULT_OFFER_ALL_UP_TO,
  DEFAULT_TOP_K,
} from "../config/defaults.js";
import { didYouMean } from "../errors.js";
import { type Conversation, type ConversationWeights, conversationQuery } from "./conversation.js";
import { withRequestsBest } from "./fusion.js";
import { type MatchedHints, type RoutingHint, RoutingHints } from "./hints.js";
import { hasNeeds, type RoutingQuery, toRoutingQuery, withNeeds, withoutNeeds } from "./query.js";
import {
  checkConversation,
  checkCount,
  checkOptions,
  checkPinned,
  checkQuery,
  checkServerName,
  checkSignal,
  checkTools,
} from "./router-input.js";
import { LexicalStrategy } from "./strategies/lexical.js";
import type { RankedTool, RoutingStrategy } from "./strategy.js";
import type { ToolDescriptor } from "./tool-descriptor.js";

/** The router's defaults (they live in config/defaults.ts). */
export { DEFAULT_MAX_USED_KEPT, DEFAULT_MIN_RANKED_TOOLS, DEFAULT_OFFER_ALL_UP_TO, DEFAULT_TOP_K };

/** Options of a {@link Router}. */
export interface RouterOptions {
  /** How tools are ranked; default: a {@link LexicalStrategy} with its defaults. */
  strategy?: RoutingStrategy;
  /** Tools ranked per query or step; default {@link DEFAULT_TOP_K}. */
  topK?: number;
  /** Offer every tool when the catalog has at most this many; default {@link DEFAULT_OFFER_ALL_UP_TO}. */
  offerAllUpTo?: number;
  /** Tool ids always offered by {@link Router.select}, on top of the ranked ones. */
  pinned?: readonly string[];
  /** Used tools kept offered by {@link Router.select}; default {@link DEFAULT_MAX_USED_KEPT}. */
  maxUsedKept?: number;
  /** Weights of the parts of a conversation beside its latest user message. */
  conversationWeights?: ConversationWeights;
  /**
   * When fewer tools than this (or than `topK`, if smaller) match the conversation, {@link Router.select}
   * fills the offer up to `topK` with fallback tools, so that the model is never offered nothing; 0
   * turns the fallback off. Default {@link DEFAULT_MIN_RANKED_TOOLS}.
   */
  minRanked?: number;
  /** Requests matching a hint's `when` get its tools first (`routing.hints`; see hints.ts). */
  hints?: readonly RoutingHint[];
}

/** A tool in a ranking, with where it lives. */
export interface RoutedTool extends RankedTool {
  server: string;
  /** The tool's own name on its server. */
  name: string;
  /** The `when` of the routing hint that put it first, if one did. */
  hint?: string;
}

/**
 * Why {@link Router.select} offers a tool: pinned, used earlier in the conversation, ranked for it, part
 * of a catalog small enough to offer whole, or a fallback when too few tools matched.
 */
export type OfferReason = "pinned" | "used" | "ranked" | "all" | "fallback";

/** A tool offered to the model for the next step. */
export interface OfferedTool {
  id: string;
  server: string;
  name: string;
  reason: OfferReason;
  /** The ranking score, for ranked tools (and for "all" tools that matched the conversation). */
  score?: number;
  /** The `when` of the routing hint that put it first, if one did. */
  hint?: string;
}

/** Options of {@link Router.rank}. */
export interface RankToolsOptions {
  /** Longest ranking; default: the router's `topK`. */
  topK?: number;
  signal?: AbortSignal;
}

/** Options of {@link Router.select}. */
export interface SelectOptions extends RankToolsOptions {
  /** Tool ids offered whatever the conversation, added to the router's own `pinned`. */
  pinned?: readonly string[];
}

/**
 * Picks the few tools worth offering the model out of the whole catalog.
 *
 * ```ts
 * const router = new Router(catalogToolDescriptors(yard.tools()));
 * await router.rank("refund my last order", { topK: 5 });
 * await router.select({ latestUserMessage, earlierUserMessages, usedToolNames });
 * router.updateServer("orders", newTools); // after tools/list_changed
 * ```
 *
 * Tool ids are unique across servers (catalog names are); a tool given again under another server
 * moves there.
 *
 * Every method checks what it is given: a value of the wrong shape (a query that is neither a string
 * nor a `RoutingQuery`, tools that are not `{ id, server, name }`, a `topK` that is not a whole number
 * above 0, `pinned` that is not an array of ids) throws `INVALID_INPUT` naming the argument and what it
 * takes; `rank()` and `select()` reject with it.
 */
export class Router {
  readonly #strategy: RoutingStrategy;
  readonly #topK: number;
  readonly #offerAllUpTo: number;
  readonly #pinned: readonly string[];
  readonly #maxUsedKept: number;
  readonly #weights: ConversationWeights;
  readonly #minRanked: number;
  readonly #hints: RoutingHints | undefined;
  readonly #tools = new Map<string, ToolDescriptor>();
  readonly #byServer = new Map<string, ToolDescriptor[]>();
  /** Each server's tools, those needing the fewest arguments first (made when the fallback needs them). */
  readonly #fewestArgumentsFirst = new Map<string, ToolDescriptor[]>();

  /**
   * @throws SwitchyardError `INVALID_INPUT` for tools or options of the wrong shape; `CONFIG_INVALID`
   *   for a hint without words or tools, or whose regular expression does not compile.
   */
  constructor(tools: readonly ToolDescriptor[] = [], options: RouterOptions = {}) {
    checkOptions(options, "new Router");
    checkTools(tools, "new Router", { server: true });
    checkCount(options.topK, "topK", "new Router", 1);
    checkCount(options.offerAllUpTo, "offerAllUpTo", "new Router", 0);
    checkCount(options.maxUsedKept, "maxUsedKept", "new Router", 0);
    checkCount(options.minRanked, "minRanked", "new Router", 0);
    checkPinned(options.pinned, "new Router");
    this.#strategy = options.strategy ?? new LexicalStrategy();
    this.#topK = options.topK ?? DEFAULT_TOP_K;
    this.#offerAllUpTo = options.offerAllUpTo ?? DEFAULT_OFFER_ALL_UP_TO;
    this.#pinned = options.pinned ?? [];
    this.#maxUsedKept = options.maxUsedKept ?? DEFAULT_MAX_USED_KEPT;
    this.#weights = options.conversationWeights ?? {};
    this.#minRanked = options.minRanked ?? DEFAULT_MIN_RANKED_TOOLS;
    // An empty list is no hints: a router without hints does no more work.
    const hints = options.hints;
    this.#hints =
      hints === undefined || (Array.isArray(hints) && hints.length === 0)
        ? undefined
        : new RoutingHints(hints);
    const byServer = new Map<string, ToolDescriptor[]>();
    for (const tool of tools) {
      const list = byServer.get(tool.server) ?? [];
      list.push(tool);
      byServer.set(tool.server, list);
    }
    for (const [server, list] of byServer) this.updateServer(server, list);
  }

  /** The strategy's name (`lexical`, `hybrid(lexical+embedding)`, …). */
  get strategy(): string {
    return this.#strategy.name;
  }

  /** Number of tools. */
  get size(): number {
    return this.#tools.size;
  }

  /** Whether {@link select} offers the whole catalog (it has at most `offerAllUpTo` tools). */
  get offersAll(): boolean {
    return this.#tools.size <= this.#offerAllUpTo;
  }

  /** A tool by id. */
  tool(id: string): ToolDescriptor | undefined {
    return this.#tools.get(id);
  }

  /** Every tool, server by server. */
  tools(): ToolDescriptor[] {
    return [...this.#byServer.values()].flat();
  }

  /**
   * What the router's own options name that its catalog does not have now, one message each: a
   * `pinned` id (`routing.pinned[0]: no tool "x" in the catalog (did you mean y?)`) and a hint's tool
   * name or glob that matches no tool (`routing.hints[0].tools[1]: …`). They are not errors — a server
   * that is down or not started yet lists its tools later, and they are used then — but a misspelt name
   * would be skipped for good: {@link routerFor} tells `onWarning` of them when it builds a router.
   */
  unmatched(): string[] {
    const ids = [...this.#tools.keys()];
    const messages: string[] = [];
    this.#pinned.forEach((id, i) => {
      if (this.#tools.has(id)) return;
      const near = didYouMean(id, ids, 1);
      messages.push(`routing.pinned[${i}]: no tool "${id}" in the catalog${near ? ` (${near})` : ""}`);
    });
    return [...messages, ...(this.#hints?.unmatched(ids) ?? [])];
  }

  /**
   * Replace every tool of one server (after `notifications/tools/list_changed`, a restart, or a
   * server that failed: pass `[]`). Only that server's part of the index is rebuilt. The tools are
   * taken as the server's, whatever their own `server` field says.
   * @throws SwitchyardError `INVALID_INPUT` for a server that is not a string, or tools that are not an
   *   array of `{ id, name }`.
   */
  updateServer(server: string, tools: readonly ToolDescriptor[]): void {
    checkServerName(server, "Router.updateServer");
    checkTools(tools, "Router.updateServer", { server: false });
    for (const old of this.#byServer.get(server) ?? []) this.#tools.delete(old.id);
    const own = tools.map((tool) => (tool.server === server ? tool : { ...tool, server }));
    const moved = new Set<string>();
    for (const tool of own) {
      const previous = this.#tools.get(tool.id);
      if (previous && previous.server !== server) moved.add(previous.server);
      this.#tools.set(tool.id, tool);
    }
    for (const other of moved) {
      const kept = this.#byServer.get(other)!.filter((tool) => this.#tools.get(tool.id)?.server === other);
      this.#setServer(other, kept);
    }
    this.#setServer(server, own);
  }

  /** Remove a server and its tools. */
  removeServer(server: string): void {
    this.updateServer(server, []);
  }

  /**
   * The best `topK` tools for a request (or a request with weighted context), best first.
   * @throws SwitchyardError (rejects) `INVALID_INPUT` for a query or options of the wrong shape;
   *   `CANCELLED` when `signal` has already fired (an embeddings request in flight is cancelled by it).
   */
  async rank(query: string | RoutingQuery, options: RankToolsOptions = {}): Promise<RoutedTool[]> {
    this.#checkRank(query, options, "Router.rank");
    checkSignal(options.signal, "Router.rank");
    return this.#rank(query, options.topK ?? this.#topK, options.signal);
  }

  /** {@link rank} of checked arguments; `limit` may be 0 (an empty catalog offered whole). */
  async #rank(query: string | RoutingQuery, limit: number, signal?: AbortSignal): Promise<RoutedTool[]> {
    // Hints read the request as written; the strategy ranks it with its tool needs, if any.
    const routing = toRoutingQuery(query);
    const hints = this.#hints?.matching(routing.text);
    const options = signal ? { signal } : {};
    const ranked = await this.#strategy.rank(withNeeds(routing), {
      limit: hints?.depth(limit) ?? limit,
      ...options,
    });
    const own = hasNeeds(routing)
      ? (await this.#strategy.rank(withoutNeeds(routing), { limit: 1, ...options }))[0]
      : undefined;
    return this.#hinted(hints, this.#routed(withRequestsBest(ranked, own, limit)), limit);
  }

  /**
   * {@link rank} without waiting, for strategies that need no I/O (the default lexical one).
   * @throws TypeError when the strategy can only rank asynchronously (embedding, hybrid);
   *   SwitchyardError `INVALID_INPUT` for a query or options of the wrong shape.
   */
  rankNow(query: string | RoutingQuery, options: { topK?: number } = {}): RoutedTool[] {
    this.#checkRank(query, options, "Router.rankNow");
    return this.#rankNow(query, options.topK ?? this.#topK);
  }

  /** {@link rankNow} of checked arguments; `limit` may be 0 (an empty catalog offered whole). */
  #rankNow(query: string | RoutingQuery, limit: number): RoutedTool[] {
    const strategy = this.#strategy;
    if (!strategy.rankNow)
      throw new TypeError(`the ${strategy.name} routing strategy ranks asynchronously: use rank()`);
    const routing = toRoutingQuery(query);
    const hints = this.#hints?.matching(routing.text);
    const ranked = strategy.rankNow(withNeeds(routing), hints?.depth(limit) ?? limit);
    const own = hasNeeds(routing) ? strategy.rankNow(withoutNeeds(routing), 1)[0] : undefined;
    return this.#hinted(hints, this.#routed(withRequestsBest(ranked, own, limit)), limit);
  }

  /**
   * The tools to offer the model for the next step of a conversation: pinned tools, tools already used
   * (most recent first, at most `maxUsedKept`), then the `topK` best others for the conversation, where
   * the latest user message weighs most. A catalog of at most `offerAllUpTo` tools is offered whole,
   * best matches first. Unknown pinned or used ids are skipped ({@link unmatched} lists the pinned ones).
   *
   * **Fallback.** When the latest user message matches fewer than `minRanked` (3; at most `topK`)
   * tools, the offer is not left thin: the tools it matched come first (`"ranked"`), then fallback tools
   * up to `topK` in all (`reason: "fallback"`, no score), taken one server at a time in turn — the
   * servers of tools that matched the conversation or were used in it first, then the others. Each
   * server gives the tools that matched the conversation's context first, then those that need the
   * fewest arguments (listing, reading and searching tools: the ones to look around with).
   * Strategies that rank asynchronously (embedding, hybrid) are judged by the whole conversation's
   * ranking, which for them is never thin.
   * @throws SwitchyardError (rejects) `INVALID_INPUT` for a conversation or options of the wrong shape;
   *   `CANCELLED` when `signal` has already fired.
   */
  async select(conversation: Conversation, options: SelectOptions = {}): Promise<OfferedTool[]> {
    this.#checkSelect(conversation, options, "Router.select");
    checkSignal(options.signal, "Router.select");
    const plan = this.#plan(conversation, options);
    return plan.finish(await this.#rank(plan.query, plan.depth, options.signal));
  }

  /**
   * {@link select} without waiting, for strategies that need no I/O (the default lexical one).
   * @throws TypeError when the strategy can only rank asynchronously (embedding, hybrid);
   *   SwitchyardError `INVALID_INPUT` for a conversation or options of the wrong shape.
   */
  selectNow(conversation: Conversation, options: Omit<SelectOptions, "signal"> = {}): OfferedTool[] {
    this.#checkSelect(conversation, options, "Router.selectNow");
    const plan = this.#plan(conversation, options);
    return plan.finish(this.#rankNow(plan.query, plan.depth));
  }

  #checkRank(query: unknown, options: { topK?: unknown }, where: string): void {
    checkQuery(query, where);
    checkOptions(options, where);
    checkCount(options.topK, "topK", where, 1);
  }

  #checkSelect(conversation: unknown, options: { topK?: unknown; pinned?: unknown }, where: string): void {
    checkConversation(conversation, where);
    checkOptions(options, where);
    checkCount(options.topK, "topK", where, 1);
    checkPinned(options.pinned, where);
  }

  /** What to rank for a conversation, how deep, and how to turn the ranking into the offer. */
  #plan(conversation: Conversation, options: SelectOptions) {
    const query = conversationQuery(conversation, {
      weights: this.#weights,
      toolText: (id) => this.#tools.get(id)?.name,
    });
    const offered = new Map<string, OfferedTool>();
    const offer = (id: string, reason: OfferReason, score?: number, hint?: string) => {
      const tool = this.#tools.get(id);
      if (!tool || offered.has(id)) return;
      offered.set(id, {
        id,
        server: tool.server,
        name: tool.name,
        reason,
        ...(score === undefined ? {} : { score }),
        ...(hint === undefined ? {} : { hint }),
      });
    };
    const all = this.offersAll;
    const topK = options.topK ?? this.#topK;
    const used = [...new Set([...(conversation.usedToolNames ?? [])].reverse())];
    if (!all) {
      for (const id of [...this.#pinned, ...(options.pinned ?? [])]) offer(id, "pinned");
      for (const id of used.slice(0, this.#maxUsedKept)) offer(id, "used");
    }
    const wanted = Math.min(topK, this.#minRanked);
    const finish = (ranked: readonly RoutedTool[]): OfferedTool[] => {
      if (all) {
        for (const hit of ranked) offer(hit.id, "all", hit.score, hit.hint);
        for (const tool of this.tools()) offer(tool.id, "all");
        return [...offered.values()];
      }
      const latest = this.#latestMatches(query, ranked, wanted);
      for (const hit of ranked) if (hit.hint) latest.add(hit.id);
      if (latest.size >= wanted) {
        let added = 0;
        for (const hit of ranked) {
          if (added === topK) break;
          if (offered.has(hit.id)) continue;
          offer(hit.id, "ranked", hit.score, hit.hint);
          added += 1;
        }
        return [...offered.values()];
      }
      // Too thin: what the latest message matched, then the fallback.
      let added = 0;
      for (const hit of ranked) {
        if (!latest.has(hit.id) || offered.has(hit.id)) continue;
        offer(hit.id, "ranked", hit.score, hit.hint);
        added += 1;
      }
      const evidence = [...ranked.map((hit) => hit.server), ...used.map((id) => this.#tools.get(id)?.server)];
      for (const id of this.#fallback(evidence, ranked, topK - added, offered)) offer(id, "fallback");
      return [...offered.values()];
    };
    // Rank past the tools already offered, so that `topK` new ones come out.
    return { query, depth: all ? this.#tools.size : topK + offered.size, finish };
  }

  /**
   * The ids (at most `wanted`) of tools that the latest user message matches on its own. Without
   * context that is the ranking itself; with context, a ranking of the message alone, for strategies
   * that can rank without waiting (the others are judged by the whole ranking).
   */
  #latestMatches(query: RoutingQuery, ranked: readonly RoutedTool[], wanted: number): Set<string> {
    if (wanted <= 0) return new Set();
    if (!query.context?.length || !this.#strategy.rankNow)
      return new Set(ranked.slice(0, wanted).map((hit) => hit.id));
    const latest = withNeeds({ text: query.text, ...(query.needs ? { needs: query.needs } : {}) });
    return new Set(this.#strategy.rankNow(latest, wanted).map((hit) => hit.id));
  }

  /**
   * Up to `room` tool ids not yet offered, one server at a time in turn: the servers named in
   * `evidence` first (in that order), then every other one. Each server gives its tools in `ranked`
   * first (best first), then the ones that need the fewest arguments.
   */
  #fallback(
    evidence: ReadonlyArray<string | undefined>,
    ranked: readonly RoutedTool[],
    room: number,
    offered: ReadonlyMap<string, unknown>,
  ): string[] {
    const chosen: string[] = [];
    if (room <= 0) return chosen;
    const servers = new Set<string>();
    for (const server of evidence)
      if (server !== undefined && this.#byServer.has(server)) servers.add(server);
    for (const server of this.#byServer.keys()) servers.add(server);
    const rankedBy = new Map<string, string[]>();
    for (const hit of ranked) {
      const list = rankedBy.get(hit.server) ?? [];
      list.push(hit.id);
      rankedBy.set(hit.server, list);
    }
    const taken = new Set<string>();
    /** Each server's candidates, made when its turn first comes. */
    const queues = [...servers].map((server) => ({
      server,
      ids: undefined as string[] | undefined,
      next: 0,
    }));
    while (chosen.length < room && queues.length > 0) {
      for (let i = 0; i < queues.length && chosen.length < room; ) {
        const queue = queues[i]!;
        queue.ids ??= [
          ...(rankedBy.get(queue.server) ?? []),
          ...this.#generalFirst(queue.server).map((tool) => tool.id),
        ];
        while (
          queue.next < queue.ids.length &&
          (offered.has(queue.ids[queue.next]!) || taken.has(queue.ids[queue.next]!))
        )
          queue.next += 1;
        if (queue.next === queue.ids.length) {
          queues.splice(i, 1);
          continue;
        }
        const id = queue.ids[queue.next]!;
        chosen.push(id);
        taken.add(id);
        queue.next += 1;
        i += 1;
      }
    }
    return chosen;
  }

  /** A server's tools, those that need the fewest arguments first (then the fewest parameters, then by id). */
  #generalFirst(server: string): ToolDescriptor[] {
    let ordered = this.#fewestArgumentsFirst.get(server);
    if (!ordered) {
      const cost = (tool: ToolDescriptor) => {
        const schema = (typeof tool.inputSchema === "object" && tool.inputSchema) || {};
        const { required, properties } = schema as { required?: unknown; properties?: unknown };
        const params = typeof properties === "object" && properties ? Object.keys(properties).length : 0;
        return (Array.isArray(required) ? required.length : 0) * 1_000 + params;
      };
      ordered = [...(this.#byServer.get(server) ?? [])]
        .map((tool) => ({ tool, cost: cost(tool) }))
        .sort((a, b) => a.cost - b.cost || (a.tool.id < b.tool.id ? -1 : a.tool.id > b.tool.id ? 1 : 0))
        .map(({ tool }) => tool);
      this.#fewestArgumentsFirst.set(server, ordered);
    }
    return ordered;
  }

  /** The ranking with the tools of the hints the request matches first (as it was, without hints). */
  #hinted(hints: MatchedHints | undefined, routed: RoutedTool[], limit: number): RoutedTool[] {
    return hints ? hints.apply(routed, limit, () => this.#tools.values()) : routed;
  }

  #routed(ranked: readonly RankedTool[]): RoutedTool[] {
    return ranked.flatMap(({ id, score }) => {
      const tool = this.#tools.get(id);
      return tool ? [{ id, score, server: tool.server, name: tool.name }] : [];
    });
  }

  #setServer(server: string, tools: ToolDescriptor[]): void {
    this.#fewestArgumentsFirst.delete(server);
    if (tools.length === 0) this.#byServer.delete(server);
    else this.#byServer.set(server, tools);
    this.#strategy.setServerTools(server, tools);
  }
}
