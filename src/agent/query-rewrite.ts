import { DEFAULT_REWRITE_CACHE_ENTRIES, DEFAULT_REWRITE_TIMEOUT_MS } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import { LruMap } from "../lru-map.js";
import type { ModelProvider } from "../models/model.js";
import type { TokenUsage } from "./events.js";

export { DEFAULT_REWRITE_CACHE_ENTRIES, DEFAULT_REWRITE_TIMEOUT_MS } from "../config/defaults.js";

/** Needs kept of one rewrite, at most: a request asks for a few things, not a plan. */
const MAX_NEEDS = 8;
/** Characters of one need kept: "an action and its object" is a few words. */
const MAX_NEED_CHARS = 80;

/** What the model is told: the request comes as the user message, the needs go back as a JSON list. */
export const REWRITE_INSTRUCTIONS =
  "You turn a user's request into the tool needs it implies, to search a tool catalog with. A tool need " +
  'is an action and its object in a few words (e.g. "commit staged changes", "read file contents", ' +
  '"查询天气预报"), written in the language of the request; one need per thing the request asks for, in ' +
  'order. Answer with a JSON array of strings and nothing else, e.g. ["search flights", "book hotel room"]; ' +
  "[] when the request needs no tool.";

/** One rewrite the model was asked for (cache hits are not reported). */
export interface RewriteRecord {
  /** The request as the user wrote it. */
  request: string;
  /** The tool needs the model gave; empty when it failed (then `error` says why) or saw none. */
  needs: string[];
  /** Wall time of the model call, retries included. */
  ms: number;
  /** What the model's server counted for the call, when it says: not part of any agent step's tokens. */
  tokens?: TokenUsage;
  /** Why the rewrite failed (the raw request alone was then ranked). */
  error?: string;
}

/** Options of a {@link QueryRewriter}. */
export interface QueryRewriterOptions {
  /** The model asked (the agent's: its client's retries and limits apply). */
  model: ModelProvider;
  /** Deadline of one rewrite, retries included; default {@link DEFAULT_REWRITE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Requests whose rewrites are kept; default {@link DEFAULT_REWRITE_CACHE_ENTRIES}. */
  maxCached?: number;
  /** Told once, at the first failure: routing goes on with the raw request, and says so once. */
  onWarning?: (message: string) => void;
  /** Each model call made, with what it gave (a run's record does not hold it: it is not a model turn). */
  onRewrite?: (record: RewriteRecord) => void;
}

/**
 * `routing.rewrite`: asks the model, in one short call, to rewrite a request into tool needs ("commit
 * staged changes"), which the router ranks as parts of the request beside its own words. The model writes
 * the query in the catalog's terms when the user did not ("save my work to git" → "commit staged
 * changes"). Rewrites are kept per request text in a least-recently-used map (`maxCached` entries, in
 * this object: one per agent), so every step of a run, and a request asked again, costs no second call.
 * A failure — an error, the deadline, an answer that is not a JSON list of strings — gives no needs
 * (the raw request alone is ranked, the run goes on), is kept too, and is warned about once.
 *
 * ```ts
 * const rewriter = new QueryRewriter({ model, onWarning: (text) => console.warn(text) });
 * await rewriter.needs("save my work to git and push it"); // ["commit changes", "push commits"]
 * ```
 */
export class QueryRewriter {
  readonly #options: QueryRewriterOptions;
  readonly #timeoutMs: number;
  readonly #cache: LruMap<string, Promise<string[]>>;
  #warned = false;
  #calls = 0;

  constructor(options: QueryRewriterOptions) {
    const { timeoutMs = DEFAULT_REWRITE_TIMEOUT_MS, maxCached = DEFAULT_REWRITE_CACHE_ENTRIES } = options;
    if (!(timeoutMs > 0) || !Number.isInteger(maxCached) || maxCached < 1)
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `query rewrite: timeoutMs must be above 0 and maxCached a positive integer (got ${timeoutMs}, ${maxCached})`,
      );
    this.#options = options;
    this.#timeoutMs = timeoutMs;
    this.#cache = new LruMap(maxCached);
  }

  /** Model calls made so far (cache hits do not count). */
  get calls(): number {
    return this.#calls;
  }

  /**
   * The request's tool needs; `[]` when the model saw none or failed. Never throws. Cached per request
   * text, a failure too: a model that times out costs its deadline once per request, not once per step.
   */
  needs(request: string): Promise<string[]> {
    const key = request.trim();
    if (!key) return Promise.resolve([]);
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const rewrite = this.#rewrite(key);
    this.#cache.set(key, rewrite);
    return rewrite;
  }

  async #rewrite(request: string): Promise<string[]> {
    this.#calls += 1;
    const timeoutMs = this.#timeoutMs;
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        deadline.abort();
        reject(new SwitchyardError("MODEL_TIMEOUT", `no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    const started = performance.now();
    // The caller's callbacks are its own affair: one that throws does not fail the rewrite.
    const report = (record: Omit<RewriteRecord, "request" | "ms">) => {
      try {
        this.#options.onRewrite?.({
          request,
          ms: Math.round((performance.now() - started) * 100) / 100,
          ...record,
        });
      } catch {}
    };
    try {
      // A model that does not heed the signal is not waited for either.
      const response = await Promise.race([
        this.#options.model.complete({
          messages: [
            { role: "system", content: REWRITE_INSTRUCTIONS },
            { role: "user", content: request },
          ],
          tools: [],
          signal: deadline.signal,
        }),
        expired,
      ]);
      const needs = parseNeeds(response.content);
      const tokens = response.usage
        ? { input: response.usage.promptTokens, output: response.usage.completionTokens }
        : undefined;
      report({ needs, ...(tokens ? { tokens } : {}) });
      return needs;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      report({ needs: [], error: reason });
      if (!this.#warned) {
        this.#warned = true;
        try {
          this.#options.onWarning?.(
            `routing.rewrite: the model could not rewrite a request into tool needs (${reason}); ` +
              "routing on the raw request (said once; later failures do the same)",
          );
        } catch {}
      }
      return [];
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The needs in a model's answer: a JSON array of strings, possibly fenced (```json) or with words
 * around it; blank ones dropped, long ones cut, at most {@link MAX_NEEDS}.
 * @throws SwitchyardError `MODEL_ERROR` for anything else.
 */
export function parseNeeds(content: string | null): string[] {
  const text = content ?? "";
  const start = text.indexOf("[");
  const end = text.lastIndexOf("]");
  let parsed: unknown;
  try {
    parsed = start >= 0 && end > start ? JSON.parse(text.slice(start, end + 1)) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string"))
    throw new SwitchyardError(
      "MODEL_ERROR",
      `the answer is not a JSON array of strings: ${JSON.stringify(text.slice(0, 80))}`,
    );
  return parsed
    .map((need) => need.replace(/\s+/g, " ").trim().slice(0, MAX_NEED_CHARS))
    .filter((need) => need.length > 0)
    .slice(0, MAX_NEEDS);
}
