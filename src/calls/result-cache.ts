// One server's result cache (`cache` in its config): the successful results of its read-only tools,
// kept for `ttlMs`, at most `maxEntries` of them (least recently used dropped first), keyed by who asked,
// the tool and its arguments in canonical form. Emptied when the server's tools are listed again
// (`tools/list_changed`, a restart) or a pin of them changes (`switchyard trust`).
//
// A Map keeps insertion order, which is all an LRU needs (a hit is moved to the end); the lru-cache
// package in node_modules is only a dependency of a dependency, and these few lines cost less than a
// direct dependency would.

import type { CatalogEntry } from "../catalog/catalog.js";
import { globMatcher } from "../catalog/glob.js";
import type { ServerCacheConfig } from "../config/sections/cache.js";
import { canonicalJson, type Identity } from "../telemetry/audit.js";
import type { ToolResult } from "./normalize.js";

interface Kept {
  /** The result as JSON (it came as JSON-RPC): each hit parses its own copy, cheaper than `structuredClone`. */
  json: string;
  /** When it stops being served (the clock's milliseconds). */
  until: number;
}

export class ResultCache {
  readonly #config: ServerCacheConfig;
  readonly #listed: (tool: string) => boolean;
  readonly #now: () => number;
  readonly #kept = new Map<string, Kept>();

  constructor(config: ServerCacheConfig, now: () => number = () => performance.now()) {
    this.#config = config;
    this.#listed = globMatcher(config.tools);
    this.#now = now;
  }

  /** Results kept now (expired ones included until they are asked for or pushed out). */
  get size(): number {
    return this.#kept.size;
  }

  /**
   * The key of a call to `tool` with `args` by `identity`, when the tool's results may be kept: it says
   * it only reads (`annotations.readOnlyHint`), or the config names it in `cache.tools`.
   */
  keyOf(
    tool: string,
    entry: CatalogEntry | undefined,
    args: Record<string, unknown>,
    identity: Identity | undefined,
  ): string | undefined {
    if (entry?.annotations?.readOnlyHint !== true && !this.#listed(tool)) return undefined;
    return `${identity?.user ?? ""}\0${tool}\0${canonicalJson(args)}`;
  }

  /** A kept result that has not expired: a copy, so that what a caller does to it stays its own. */
  get(key: string): ToolResult | undefined {
    const kept = this.#kept.get(key);
    if (!kept) return undefined;
    this.#kept.delete(key);
    if (this.#now() >= kept.until) return undefined;
    this.#kept.set(key, kept); // most recently used
    return JSON.parse(kept.json) as ToolResult;
  }

  /** Keep a successful result (a tool's error is never kept), dropping the least recently used past the cap. */
  set(key: string, result: ToolResult): void {
    if (result.isError) return;
    this.#kept.delete(key);
    this.#kept.set(key, { json: JSON.stringify(result), until: this.#now() + this.#config.ttlMs });
    while (this.#kept.size > this.#config.maxEntries) {
      const oldest = this.#kept.keys().next().value as string;
      this.#kept.delete(oldest);
    }
  }

  /** Forget every result (the server's tools were listed again, or a pin changed). */
  clear(): void {
    this.#kept.clear();
  }
}
