import type { RoutingQuery } from "../query.js";
import type { RankedTool, RankOptions, RoutingStrategy } from "../strategy.js";
import type { ToolDescriptor } from "../tool-descriptor.js";
import { ModelTexts } from "../tool-text.js";
import type { Embedder } from "../vector-cache.js";

/**
 * Ranks tools by the cosine between the request's embedding and each tool's (name, server,
 * description, parameters), through an {@link Embedder}: an OpenAI-compatible `/embeddings` endpoint
 * or a local ONNX model. Tools are embedded on the first ranking after they change, in batches; the
 * embedder's cache keeps unchanged tools from being embedded again. Only the request is embedded per
 * query, not its context.
 */
export class EmbeddingStrategy implements RoutingStrategy {
  readonly name = "embedding";
  readonly #client: Embedder;
  readonly #texts = new ModelTexts();
  #vectors = new Map<string, Float32Array>();

  constructor(client: Embedder) {
    this.#client = client;
  }

  setServerTools(server: string, tools: readonly ToolDescriptor[]): void {
    for (const id of this.#texts.setServerTools(server, tools)) this.#vectors.delete(id);
  }

  /**
   * @throws EmbeddingsError when the endpoint fails (see {@link EmbeddingsClient.embed}); SwitchyardError
   *   `CONFIG_INVALID` when a local model cannot be loaded.
   */
  async rank(query: RoutingQuery, options: RankOptions): Promise<RankedTool[]> {
    const signal = options.signal ? { signal: options.signal } : {};
    await this.#embedTools(signal);
    const [vector] = await this.#client.embed([query.text], signal);
    const ranked: RankedTool[] = [];
    for (const [id, toolVector] of this.#vectors) ranked.push({ id, score: dot(vector!, toolVector) });
    ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return ranked.slice(0, options.limit);
  }

  async #embedTools(options: { signal?: AbortSignal }): Promise<void> {
    const missing = [...this.#texts.ids()].filter((id) => !this.#vectors.has(id));
    if (missing.length === 0) return;
    const vectors = await this.#client.embed(
      missing.map((id) => this.#texts.get(id)!),
      options,
    );
    missing.forEach((id, i) => {
      // A server may have changed while its tools were being embedded: keep only current tools.
      if (this.#texts.has(id)) this.#vectors.set(id, vectors[i]!);
    });
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  const length = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}
