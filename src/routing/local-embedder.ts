import { DEFAULT_EMBEDDING_BATCH_SIZE, DEFAULT_MAX_CACHED_VECTORS } from "../config/defaults.js";
import { type LocalModelFiles, locateLocalModel, type ModelInput, OnnxModel } from "./local-model.js";
import { type Embedder, normalize, VectorCache } from "./vector-cache.js";

/** A local ONNX model (`routing.embeddings.path`, `routing.reranker.path`). */
export interface LocalModelOptions {
  /** The model's folder (`model.onnx` or `onnx/model.onnx`, and `tokenizer.json`) or its `.onnx` file. */
  path: string;
  /** Tokens of a text read, the rest cut; default {@link DEFAULT_LOCAL_MODEL_MAX_TOKENS}. */
  maxTokens?: number;
  /** Texts run at once; default {@link DEFAULT_EMBEDDING_BATCH_SIZE}. */
  batchSize?: number;
  /** Config key named in errors; default `routing.embeddings.path` (`routing.reranker.path` for a reranker). */
  key?: string;
}

/**
 * A model opened on first use, once: nothing is imported or read before the first ranking. A model that
 * fails to load fails every ranking the same way (the file is not read again and again).
 */
class LazyModel {
  readonly #files: LocalModelFiles;
  readonly #options: LocalModelOptions;
  readonly #key: string;
  #loading: Promise<OnnxModel> | undefined;

  constructor(options: LocalModelOptions, key: string) {
    this.#options = options;
    this.#key = options.key ?? key;
    this.#files = locateLocalModel(options.path, this.#key);
  }

  get model(): string {
    return this.#files.model;
  }

  /** Run the model on batches of inputs; `each` gets every batch's output. */
  async run<T>(
    inputs: readonly ModelInput[],
    prefer: readonly string[],
    each: (output: Awaited<ReturnType<OnnxModel["run"]>>, batch: number) => T[],
    signal?: AbortSignal,
  ): Promise<T[]> {
    this.#loading ??= OnnxModel.load(this.#files, this.#key, this.#options.maxTokens);
    const model = await this.#loading;
    const size = this.#options.batchSize ?? DEFAULT_EMBEDDING_BATCH_SIZE;
    const results: T[] = [];
    for (let start = 0; start < inputs.length; start += size) {
      signal?.throwIfAborted();
      results.push(...each(await model.run(inputs.slice(start, start + size), prefer), start));
    }
    return results;
  }
}

/**
 * Embeds texts with a local sentence-embedding model (MiniLM, bge, e5… exported to ONNX): the mean of
 * its token vectors over the attention mask (or its pooled `sentence_embedding` output when it has
 * one), normalized to unit length. Vectors are cached as an endpoint's are.
 * @throws SwitchyardError `CONFIG_INVALID` at construction when the model's files or the packages that
 *   run it are missing.
 */
export class LocalEmbedder implements Embedder {
  readonly #model: LazyModel;
  readonly #cache: VectorCache;
  readonly #batchSize: number;

  constructor(options: LocalModelOptions & { maxCached?: number }) {
    this.#model = new LazyModel(options, "routing.embeddings.path");
    this.#cache = new VectorCache(this.#model.model, options.maxCached ?? DEFAULT_MAX_CACHED_VECTORS);
    this.#batchSize = options.batchSize ?? DEFAULT_EMBEDDING_BATCH_SIZE;
  }

  /** The .onnx file's path. */
  get model(): string {
    return this.#model.model;
  }

  /** @throws SwitchyardError `CONFIG_INVALID` when the model or its tokenizer cannot be loaded. */
  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    return this.#cache.embed(texts, this.#batchSize, (batch) =>
      this.#model.run(batch, ["sentence_embedding", "last_hidden_state"], pool, options.signal),
    );
  }
}

/**
 * Scores (query, tool text) pairs with a local cross-encoder (ms-marco MiniLM, bge-reranker… exported
 * to ONNX): its logit, or its last class's when it has several.
 */
export class LocalReranker {
  readonly #model: LazyModel;

  constructor(options: LocalModelOptions) {
    this.#model = new LazyModel(options, "routing.reranker.path");
  }

  /** The .onnx file's path. */
  get model(): string {
    return this.#model.model;
  }

  /** One score per text, higher is more relevant to the query. */
  async score(
    query: string,
    texts: readonly string[],
    options: { signal?: AbortSignal } = {},
  ): Promise<number[]> {
    const pairs = texts.map((text) => [query, text] as const);
    return this.#model.run(
      pairs,
      ["logits"],
      ({ output }) => {
        const rows = output.dims[0] ?? 0;
        const width = output.data.length / Math.max(rows, 1);
        return Array.from({ length: rows }, (_, row) => output.data[row * width + width - 1]!);
      },
      options.signal,
    );
  }
}

/** One unit vector per row: a [batch, dim] output as it is, a [batch, tokens, dim] one mean-pooled. */
function pool({ output, mask }: Awaited<ReturnType<OnnxModel["run"]>>): Float32Array[] {
  const { dims, data } = output;
  if (dims.length === 2) {
    const dim = dims[1]!;
    return mask.map((_, row) => normalize(data.slice(row * dim, (row + 1) * dim)));
  }
  const [, tokens, dim] = dims as [number, number, number];
  return mask.map((rowMask, row) => {
    const vector = new Float32Array(dim);
    let count = 0;
    for (let t = 0; t < tokens; t += 1) {
      if (!rowMask[t]) continue;
      count += 1;
      const at = (row * tokens + t) * dim;
      for (let d = 0; d < dim; d += 1) vector[d]! += data[at + d]!;
    }
    if (count > 0) for (let d = 0; d < dim; d += 1) vector[d]! /= count;
    return normalize(vector);
  });
}
