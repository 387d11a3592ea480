import { DEFAULT_TWO_STAGE_SERVERS } from "../../config/defaults.js";
import { Bm25Index } from "../bm25-index.js";
import { queryTerms, type RoutingQuery } from "../query.js";
import type { RankedTool, RankOptions, RoutingStrategy } from "../strategy.js";
import { createTokenizer, type Tokenize, type TokenizerOptions } from "../tokenizer.js";
import type { ToolDescriptor } from "../tool-descriptor.js";
import { LexicalStrategy } from "./lexical.js";

export { DEFAULT_TWO_STAGE_SERVERS } from "../../config/defaults.js";

/** How deep the tool stage ranks, at least, to find the kept servers' tools. */
const MIN_TOOL_DEPTH = 200;

/** Options of a {@link TwoStageStrategy}. */
export interface TwoStageOptions {
  /** Ranks the tools in the second stage; default: a {@link LexicalStrategy}. */
  tools?: RoutingStrategy;
  /** Servers kept by the first stage; default {@link DEFAULT_TWO_STAGE_SERVERS}. */
  servers?: number;
  tokenizer?: TokenizerOptions;
}

/**
 * Hierarchical routing: first rank servers (name, title, description and all their tools' names and
 * descriptions as one document each), then tools. Tools of the best servers come first, in the tool
 * stage's order, then every other tool. Helps when a request names a service ("in GitHub…") more
 * clearly than an operation.
 */
export class TwoStageStrategy implements RoutingStrategy {
  readonly name: string;
  readonly #tools: RoutingStrategy;
  readonly #servers: number;
  readonly #tokenize: Tokenize;
  readonly #serverIndex = new Bm25Index({
    fields: { name: { weight: 2 }, description: { weight: 1 }, tools: { weight: 1 } },
  });
  readonly #serverOf = new Map<string, string>();

  constructor(options: TwoStageOptions = {}) {
    this.#tools =
      options.tools ?? new LexicalStrategy(options.tokenizer ? { tokenizer: options.tokenizer } : {});
    this.#servers = options.servers ?? DEFAULT_TWO_STAGE_SERVERS;
    this.#tokenize = createTokenizer(options.tokenizer);
    this.name = `two-stage(${this.#tools.name})`;
  }

  setServerTools(server: string, tools: readonly ToolDescriptor[]): void {
    this.#tools.setServerTools(server, tools);
    for (const [id, owner] of this.#serverOf) if (owner === server) this.#serverOf.delete(id);
    for (const tool of tools) this.#serverOf.set(tool.id, server);
    if (tools.length === 0) {
      this.#serverIndex.remove(server);
      return;
    }
    const first = tools[0]!;
    this.#serverIndex.add(server, {
      name: this.#tokenize([server, first.serverTitle].filter(Boolean).join("\n")),
      description: this.#tokenize(first.serverDescription ?? ""),
      tools: this.#tokenize(tools.map((tool) => `${tool.name}\n${tool.description ?? ""}`).join("\n")),
    });
  }

  async rank(query: RoutingQuery, options: RankOptions): Promise<RankedTool[]> {
    const parts = [{ text: query.text, weight: 1 }, ...(query.context ?? [])];
    const servers = new Set(
      this.#serverIndex.search(queryTerms(parts, this.#tokenize), this.#servers).map((hit) => hit.id),
    );
    const ranked = await this.#tools.rank(query, {
      ...options,
      limit: Math.max(options.limit, MIN_TOOL_DEPTH),
    });
    const inKept = ranked.filter((tool) => servers.has(this.#serverOf.get(tool.id) ?? ""));
    const others = ranked.filter((tool) => !servers.has(this.#serverOf.get(tool.id) ?? ""));
    return [...inKept, ...others].slice(0, options.limit);
  }
}
