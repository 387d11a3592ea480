import {
  DEFAULT_EMBEDDING_BATCH_SIZE,
  DEFAULT_EMBEDDING_TIMEOUT_MS,
  DEFAULT_MAX_CACHED_VECTORS,
} from "../config/defaults.js";
import { oneLine } from "../errors.js";
import { type Embedder, normalize, VectorCache } from "./vector-cache.js";

export {
  DEFAULT_EMBEDDING_BATCH_SIZE,
  DEFAULT_EMBEDDING_TIMEOUT_MS,
  DEFAULT_MAX_CACHED_VECTORS,
} from "../config/defaults.js";

/** Where and how to reach an OpenAI-compatible embeddings endpoint. */
export interface EmbeddingsClientOptions {
  /** API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `/embeddings` is appended. */
  baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given (undefined: none, as in a config without one). */
  apiKey?: string | undefined;
  /** Embedding model name, e.g. `text-embedding-3-small`. */
  model: string;
  /** Ask for vectors of this size (models that support it). */
  dimensions?: number;
  /** Texts per request; default {@link DEFAULT_EMBEDDING_BATCH_SIZE}. */
  batchSize?: number;
  /** Deadline per request; default {@link DEFAULT_EMBEDDING_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Vectors kept in the cache; default {@link DEFAULT_MAX_CACHED_VECTORS}. */
  maxCached?: number;
  /** Where the endpoint was given (a config key or CLI flag, e.g. `routing.embeddings.baseURL`), named in errors. */
  key?: string;
}

/** The embeddings endpoint failed or answered something that is not embeddings. */
export class EmbeddingsError extends Error {
  override readonly name = "EmbeddingsError";
  /** The URL asked. */
  readonly url: string;
  /** HTTP status, when the server answered. */
  readonly status?: number;

  constructor(message: string, details: { url: string; status?: number; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.url = details.url;
    if (details.status !== undefined) this.status = details.status;
  }
}

/**
 * A client of an OpenAI-compatible `POST /embeddings` endpoint (OpenAI, vLLM, Ollama, llama.cpp, TEI…)
 * over plain `fetch`. Vectors come back normalized to unit length, so a dot product is the cosine.
 * Each text's vector is cached by a hash of (model, text), least recently used dropped first past
 * `maxCached`: a tool whose text did not change is not embedded again.
 */
export class EmbeddingsClient implements Embedder {
  readonly #options: EmbeddingsClientOptions;
  readonly #url: string;
  readonly #cache: VectorCache;

  constructor(options: EmbeddingsClientOptions) {
    this.#options = options;
    this.#url = `${options.baseURL.replace(/\/+$/, "")}/embeddings`;
    this.#cache = new VectorCache(options.model, options.maxCached ?? DEFAULT_MAX_CACHED_VECTORS);
  }

  /** The model's name, for reports. */
  get model(): string {
    return this.#options.model;
  }

  /** Vectors held in the cache. */
  get cached(): number {
    return this.#cache.size;
  }

  /**
   * Embed texts, in order, from the cache where possible and in batches otherwise.
   * @throws EmbeddingsError when a request fails, times out (`timeoutMs`, default 30 s), or the answer
   *   has no vector for some text; the message names the URL and the status.
   */
  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    return this.#cache.embed(texts, this.#options.batchSize ?? DEFAULT_EMBEDDING_BATCH_SIZE, (batch) =>
      this.#request(batch, options.signal),
    );
  }

  async #request(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const deadline = AbortSignal.timeout(this.#options.timeoutMs ?? DEFAULT_EMBEDDING_TIMEOUT_MS);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    const body = {
      model: this.#options.model,
      input,
      encoding_format: "float",
      ...(this.#options.dimensions ? { dimensions: this.#options.dimensions } : {}),
    };
    const where = `${this.#options.key ? `${this.#options.key}: ` : ""}[POST] "${this.#url}"`;
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      });
    } catch (error) {
      const timedOut = deadline.aborted && !signal?.aborted;
      throw new EmbeddingsError(
        timedOut
          ? `${where}: no answer in ${this.#options.timeoutMs ?? DEFAULT_EMBEDDING_TIMEOUT_MS} ms; check that the endpoint is up, or raise timeoutMs`
          : `${where}: ${(error as Error).message}; check that the endpoint is up and reachable at that API root (e.g. http://127.0.0.1:11434/v1)`,
        { url: this.#url, cause: error },
      );
    }
    const text = await response.text();
    if (!response.ok) {
      throw new EmbeddingsError(
        `${where}: ${response.status} ${response.statusText} ${oneLine(text.slice(0, 200))}`.trimEnd() +
          `; ${statusHint(response.status, this.#options.model)}`,
        {
          url: this.#url,
          status: response.status,
        },
      );
    }
    return parseEmbeddings(text, input.length, this.#url, where);
  }
}

/** What to check after an HTTP error status. */
function statusHint(status: number, model: string): string {
  if (status === 401 || status === 403) return "check the API key the endpoint expects";
  if (status === 404)
    return `check that the URL is the API root (…/v1, without /embeddings) and that it serves the model "${model}"`;
  if (status >= 500) return "the endpoint failed; check its logs, or try again";
  return `check that the endpoint speaks OpenAI's embeddings API and serves the model "${model}"`;
}

function parseEmbeddings(text: string, count: number, url: string, where: string): Float32Array[] {
  const fail = (what: string) =>
    new EmbeddingsError(`${where}: ${what}; is it an OpenAI-compatible embeddings endpoint?`, { url });
  let data: unknown;
  try {
    data = (JSON.parse(text) as { data?: unknown }).data;
  } catch {
    throw fail(`answer is not JSON: ${oneLine(text.slice(0, 200))}`);
  }
  if (!Array.isArray(data)) throw fail(`answer has no "data" array: ${oneLine(text.slice(0, 200))}`);
  const vectors: Array<Float32Array | undefined> = Array.from({ length: count }, () => undefined);
  for (const [position, item] of data.entries()) {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    const at = typeof index === "number" ? index : position;
    if (!Array.isArray(embedding) || embedding.some((value) => typeof value !== "number"))
      throw fail(`item ${at} has no numeric "embedding" (base64 answers are not supported)`);
    vectors[at] = normalize(Float32Array.from(embedding as number[]));
  }
  const missing = vectors.indexOf(undefined);
  if (missing !== -1 || vectors.length !== count)
    throw fail(`expected ${count} embeddings, got ${data.length}`);
  return vectors as Float32Array[];
}
