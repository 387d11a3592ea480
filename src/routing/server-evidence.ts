// Server-aware ranking (as in Tool-to-Agent retrieval): a request is also about a server — "on Slack",
// "in my repository", "remember…" for a memory server — and a tool of the server that the request is most
// about should come before a tool of another server that shares a word or two with it. Each server is
// scored by its own text (key, title, description, its tools' names) and by its best tool's score, and a
// tool's score gains a share of its server's.
import { Bm25Index, type QueryTerm } from "./bm25-index.js";
import type { RankedTool } from "./strategy.js";
import type { Tokenize } from "./tokenizer.js";
import type { ToolDescriptor } from "./tool-descriptor.js";

/** How the server's own text counts beside its best tool when scoring a server (the rest is the tool). */
const SERVER_TEXT_SHARE = 0.5;
/** Servers scored by their own text per request; the others count 0 there (their best tool still counts). */
const SERVER_DEPTH = 50;

/** Servers, each as one document, and the fusion of their scores into their tools'. */
export class ServerEvidence {
  readonly #index = new Bm25Index({
    fields: { name: { weight: 2 }, description: { weight: 1 }, tools: { weight: 1 } },
  });
  readonly #serverOf = new Map<string, string>();
  readonly #toolsOf = new Map<string, readonly string[]>();
  readonly #tokenize: Tokenize;

  constructor(tokenize: Tokenize) {
    this.#tokenize = tokenize;
  }

  /** How many servers have tools. */
  get servers(): number {
    return this.#index.size;
  }

  /** Replace a server's tools (none removes it). */
  setServer(server: string, tools: readonly ToolDescriptor[]): void {
    for (const id of this.#toolsOf.get(server) ?? []) this.#serverOf.delete(id);
    this.#toolsOf.delete(server);
    if (tools.length === 0) {
      this.#index.remove(server);
      return;
    }
    for (const tool of tools) this.#serverOf.set(tool.id, server);
    this.#toolsOf.set(
      server,
      tools.map((tool) => tool.id),
    );
    const first = tools[0]!;
    this.#index.add(server, {
      name: this.#tokenize([server, first.serverTitle].filter(Boolean).join("\n")),
      description: this.#tokenize(first.serverDescription ?? ""),
      tools: this.#tokenize(
        tools.map((tool) => [tool.name, tool.title].filter(Boolean).join(" ")).join("\n"),
      ),
    });
  }

  /**
   * The ranking with each tool's score raised by `weight` times its server's evidence (0..1: half the
   * server's own text score, half its best tool's score, each relative to the best server's), on the
   * scale of the ranking's best score; re-sorted and cut to `limit`.
   */
  fuse(
    ranked: readonly RankedTool[],
    terms: readonly QueryTerm[],
    weight: number,
    limit: number,
  ): RankedTool[] {
    const top = ranked[0]?.score ?? 0;
    if (weight <= 0 || top <= 0 || this.#index.size < 2) return ranked.slice(0, limit);
    const byText = new Map<string, number>();
    const hits = this.#index.search(terms, SERVER_DEPTH);
    const bestText = hits[0]?.score ?? 0;
    if (bestText > 0) for (const hit of hits) byText.set(hit.id, hit.score / bestText);
    const byTool = new Map<string, number>();
    for (const hit of ranked) {
      const server = this.#serverOf.get(hit.id);
      if (server !== undefined && !byTool.has(server)) byTool.set(server, hit.score / top);
    }
    return ranked
      .map((hit) => {
        const server = this.#serverOf.get(hit.id);
        const evidence =
          server === undefined
            ? 0
            : SERVER_TEXT_SHARE * (byText.get(server) ?? 0) +
              (1 - SERVER_TEXT_SHARE) * (byTool.get(server) ?? 0);
        return { id: hit.id, score: hit.score + weight * top * evidence };
      })
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
  }
}
