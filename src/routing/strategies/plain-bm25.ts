import { Bm25Index } from "../bm25-index.js";
import { splitIdentifier } from "../identifiers.js";
import type { RoutingQuery } from "../query.js";
import { ServerGroups } from "../server-groups.js";
import type { RankedTool, RankOptions, RoutingStrategy } from "../strategy.js";
import type { ToolDescriptor } from "../tool-descriptor.js";

/**
 * The reference of the routing data README, kept to measure against: plain BM25 (k1 1.2, b 0.75) over
 * name + description as one field, `Intl.Segmenter` words split on case and underscores, lower-cased,
 * no stop words, no stemming, repeated query words counted. Not meant for production use.
 */
export class PlainBm25Strategy implements RoutingStrategy {
  readonly name = "plain-bm25";
  readonly #index = new Bm25Index({ fields: { text: { weight: 1 } } });
  readonly #segmenter = new Intl.Segmenter("zh", { granularity: "word" });
  readonly #servers = new ServerGroups();

  setServerTools(server: string, tools: readonly ToolDescriptor[]): void {
    for (const id of this.#servers.replace(
      server,
      tools.map((tool) => tool.id),
    ))
      this.#index.remove(id);
    for (const tool of tools)
      this.#index.add(tool.id, { text: this.#words(`${tool.name} ${tool.description ?? ""}`) });
  }

  async rank(query: RoutingQuery, options: RankOptions): Promise<RankedTool[]> {
    return this.rankNow(query, options.limit);
  }

  /** {@link rank} without the promise. */
  rankNow(query: RoutingQuery, limit: number): RankedTool[] {
    const counts = new Map<string, number>();
    for (const word of this.#words(query.text)) counts.set(word, (counts.get(word) ?? 0) + 1);
    return this.#index.search(
      [...counts].map(([term, weight]) => ({ term, weight })),
      limit,
    );
  }

  #words(text: string): string[] {
    const words: string[] = [];
    for (const { segment, isWordLike } of this.#segmenter.segment(text)) {
      if (isWordLike) for (const part of splitIdentifier(segment)) words.push(part.toLowerCase());
    }
    return words;
  }
}
