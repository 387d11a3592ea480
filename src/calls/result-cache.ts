// One server's result cache (`cache` in its config): the successful results of its read-only tools,
// kept for `ttlMs`, at most `maxEntries` of them (least recently used dropped first), keyed by who asked,
// the tool and its arguments in canonical form. Emptied when the server's tools are listed again
// (`tools/list_changed`, a restart) or a pin of them changes (`switchyard trust`).
//
// Identical calls at once send one request: while one is in flight, the others wait for its answer
// and get a copy of it (`cached: true`, as a hit is); its failure goes to each of them and is kept by
// none (only a first caller's own cancel is not passed on: each waiter then sends its own).

import type { CatalogEntry } from "../catalog/catalog.js";
import { globMatcher } from "../catalog/glob.js";
import type { ServerCacheConfig } from "../config/sections/cache.js";
import { isSwitchyardError, SwitchyardError } from "../errors.js";
import { LruMap } from "../lru-map.js";
import { canonicalJson, type Identity } from "../telemetry/audit.js";
import type { ToolResult } from "./normalize.js";

interface Kept {
  /** The result as JSON (it came as JSON-RPC): each hit parses its own copy, cheaper than `structuredClone`. */
  json: string;
  /** When it stops being served (the clock's milliseconds). */
  until: number;
}

/** What the one request of identical calls in flight came to: its result as JSON, or its failure. */
type Shared = { json: string } | { error: unknown };

export class ResultCache {
  readonly #config: ServerCacheConfig;
  readonly #listed: (tool: string) => boolean;
  readonly #now: () => number;
  readonly #kept: LruMap<string, Kept>;
  /** The one request of each key in flight now, which identical calls wait for. */
  readonly #flying = new Map<string, Promise<Shared>>();

  constructor(config: ServerCacheConfig, now: () => number = () => performance.now()) {
    this.#config = config;
    this.#kept = new LruMap(config.maxEntries);
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
    if (this.#now() < kept.until) return JSON.parse(kept.json) as ToolResult;
    this.#kept.delete(key);
    return undefined;
  }

  /**
   * A call that may be cached: a kept result, else the answer of an identical call in flight (both a
   * copy marked `cached: true`), else what `send` gets — kept when it succeeds, and shared meanwhile.
   * `wait` bounds a wait for another's answer by this call's own deadline and cancel.
   * @throws what `send` threw, or what the identical call in flight failed with; what `wait` throws.
   */
  async serve(
    key: string,
    send: () => Promise<ToolResult>,
    wait: (shared: Promise<Shared>) => Promise<Shared>,
  ): Promise<ToolResult> {
    const hit = this.get(key);
    if (hit) return { ...hit, cached: true };
    const flying = this.#flying.get(key);
    if (flying) {
      const outcome = await wait(flying);
      if ("json" in outcome) return { ...(JSON.parse(outcome.json) as ToolResult), cached: true };
      // Its caller cancelled it: not this call's failure, which sends its own (shared with none).
      if (!isSwitchyardError(outcome.error, "CANCELLED")) throw outcome.error;
      return send();
    }
    const sent = send();
    const shared: Promise<Shared> = sent.then(
      (result) => ({ json: JSON.stringify(result) }),
      (error: unknown) => ({ error }),
    );
    this.#flying.set(key, shared);
    const outcome = await shared;
    if (this.#flying.get(key) === shared) this.#flying.delete(key);
    if ("error" in outcome) throw outcome.error;
    const result = await sent;
    if (!result.isError) this.#keep(key, outcome.json);
    return result;
  }

  /** Keep a successful result (a tool's error is never kept), dropping the least recently used past the cap. */
  set(key: string, result: ToolResult): void {
    if (!result.isError) this.#keep(key, JSON.stringify(result));
  }

  #keep(key: string, json: string): void {
    this.#kept.set(key, { json, until: this.#now() + this.#config.ttlMs });
  }

  /** Forget every result (the server's tools were listed again, or a pin changed). */
  clear(): void {
    this.#kept.clear();
    this.#flying.clear(); // a call from now on does not join one sent under the old tools
  }
}

/**
 * Why a call waiting for an identical one's answer stopped waiting: its caller cancelled it, or its
 * own deadline passed first (nothing of its own was sent either way).
 */
export function sharedWaitFailure(
  what: string,
  where: { server: string; tool: string },
  limitMs: number,
  cancelled: boolean,
): SwitchyardError {
  return cancelled
    ? new SwitchyardError("CANCELLED", `${what} was cancelled by the caller`, {
        ...where,
        delivery: "not_sent",
        serverFault: false,
      })
    : new SwitchyardError(
        "TIMEOUT",
        `${what} waited for an identical call in flight (the result cache sends one request for both) and did not get its answer within ${limitMs} ms; if the tool is only slow, raise the server's timeoutMs or pass timeoutMs`,
        { ...where, delivery: "not_sent", serverFault: true },
      );
}
