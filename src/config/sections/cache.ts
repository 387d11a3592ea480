// A server's result cache (`mcpServers.<name>.cache`): the schema of the key, its defaults, and the
// section resolved. What it does is calls/result-cache.ts.

import { z } from "zod";
import { positiveInt, stringArray } from "./fields.js";

/**
 * Results one server's cache keeps (`cache.maxEntries`) before the least recently used is dropped: a
 * few thousand small lookups, a bounded share of memory even when each is a few KB.
 */
export const DEFAULT_CACHE_MAX_ENTRIES = 1_000;

/**
 * `cache`: keep the successful results of the server's read-only tools (`annotations.readOnlyHint`, or
 * named in `tools`) for `ttlMs`, per identity and canonical arguments.
 */
export const serverCacheSchema = z.strictObject(
  {
    ttlMs: positiveInt,
    maxEntries: positiveInt.optional(),
    tools: stringArray.optional(),
  },
  { error: 'expected { "ttlMs": ms, "maxEntries"?: results, "tools"?: [tool globs] }' },
);

export type ServerCacheEntry = z.infer<typeof serverCacheSchema>;

/** A server's `cache`, resolved. */
export interface ServerCacheConfig {
  /** How long a result is served from the cache after the call that got it. */
  ttlMs: number;
  /** Results kept at most; the least recently used goes first. */
  maxEntries: number;
  /** The server's own tool names (globs) cached whatever their annotations say. */
  tools: string[];
}

/** The `cache` key as written, with its defaults. */
export function resolveServerCache(entry: ServerCacheEntry): ServerCacheConfig {
  return {
    ttlMs: entry.ttlMs,
    maxEntries: entry.maxEntries ?? DEFAULT_CACHE_MAX_ENTRIES,
    tools: entry.tools ?? [],
  };
}
