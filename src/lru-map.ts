// A map that keeps at most `max` entries, the least recently used dropped first: the result cache, the
// query rewrites and the embedding vectors each keep one. A Map keeps insertion order, which is all an
// LRU needs (a read moves its entry to the end); the lru-cache package in node_modules is only a
// dependency of a dependency, and these few lines cost less than a direct dependency would.

/** At most `max` entries; {@link get} and {@link set} make an entry the most recently used. */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value of `key`, which becomes the most recently used; `undefined` when there is none. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Keep `value` as the most recently used, dropping the least recently used past the cap. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#max) break;
      this.#entries.delete(oldest);
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
