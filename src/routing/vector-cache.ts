import { createHash } from "node:crypto";
import { LruMap } from "../lru-map.js";

/**
 * Something that turns texts into vectors of unit length (a dot product is then the cosine): an
 * OpenAI-compatible endpoint ({@link EmbeddingsClient}) or a local ONNX model ({@link LocalEmbedder}).
 */
export interface Embedder {
  /** The model's name (or its path), for reports and cache keys. */
  readonly model: string;
  /** One vector per text, in order. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

/**
 * Vectors of texts already embedded, keyed by a hash of (model, text), least recently used dropped
 * first past `max`: a tool whose text did not change is not embedded again.
 */
export class VectorCache {
  readonly #model: string;
  readonly #vectors: LruMap<string, Float32Array>;

  constructor(model: string, max: number) {
    this.#model = model;
    this.#vectors = new LruMap(max);
  }

  /** Vectors held. */
  get size(): number {
    return this.#vectors.size;
  }

  /**
   * The texts' vectors, from the cache where possible, else from `compute` called on batches of at most
   * `batchSize` distinct texts, in order.
   */
  async embed(
    texts: readonly string[],
    batchSize: number,
    compute: (batch: string[]) => Promise<Float32Array[]>,
  ): Promise<Float32Array[]> {
    const keys = texts.map((text) => this.#key(text));
    const found = new Map<string, Float32Array>();
    for (const key of keys) {
      const vector = this.#vectors.get(key);
      if (vector) found.set(key, vector);
    }
    const missing = [...new Set(texts.filter((_, i) => !found.has(keys[i]!)))];
    for (let start = 0; start < missing.length; start += batchSize) {
      const batch = missing.slice(start, start + batchSize);
      const vectors = await compute(batch);
      for (const [i, text] of batch.entries()) found.set(this.#key(text), vectors[i]!);
    }
    for (const [key, vector] of found) this.#vectors.set(key, vector);
    return keys.map((key) => found.get(key)!);
  }

  #key(text: string): string {
    return createHash("sha256").update(`${this.#model}\0${text}`).digest("base64");
  }
}

/** Scale a vector to unit length, in place (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i += 1) vector[i]! /= norm;
  return vector;
}
