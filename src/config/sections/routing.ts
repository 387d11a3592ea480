// The `routing` section: how the agent offers tools and which strategy ranks them, with the defaults of its
// keys and the router's own numbers (what stays offered, what it reads, requests for embeddings). How the
// strategies score is in ../defaults/ranking.ts.

import { z } from "zod";
import {
  quotedList,
  ROUTING_MODES,
  type RoutingMode,
  STRATEGY_NAMES,
  type StrategyName,
} from "../vocabulary.js";
import { nonNegativeInt, oneOf, positiveInt, stringArray } from "./fields.js";

/** Tools ranked and offered per query or step (`routing.topK`). */
export const DEFAULT_TOP_K = 12;
/** A catalog of at most this many tools is offered whole (`routing.offerAllUpTo`): routing could only hide one. */
export const DEFAULT_OFFER_ALL_UP_TO = 20;
/** Tools already used in a conversation that stay offered, the most recent first. */
export const DEFAULT_MAX_USED_KEPT = 8;
/** Characters of each assistant or tool message the agent's router reads (they weigh little anyway). */
export const DEFAULT_ROUTING_CONTEXT_CHARS = 300;
/** Assistant and tool messages the agent's router reads, the most recent ones. */
export const DEFAULT_ROUTING_CONTEXT_MESSAGES = 4;
/**
 * When fewer tools than this (or than `topK`, if smaller) match a request, the router fills the offer
 * up to `topK` with its fallback: the matching and used tools' servers first, then every server's
 * tools that need the fewest arguments. A model offered nothing cannot even look around.
 */
export const DEFAULT_MIN_RANKED_TOOLS = 3;
/**
 * How the agent offers tools (`routing.mode`): `auto` routes each step (the router's `topK`) up to
 * {@link DEFAULT_TOOL_SEARCH_ABOVE} tools and offers tool search above.
 */
export const DEFAULT_ROUTING_MODE: RoutingMode = "auto";
/**
 * Catalog size above which `routing.mode: "auto"` offers tool search (`routing.searchAbove`). Below it,
 * per-step routing already offers few tools (at most `topK` plus used ones) and finds the right one
 * (R@10 ≥ 97% on the 1,455- and 4,076-tool dev sets) without the search's extra model turn; above ~100
 * tools (~10k tokens of definitions) the offer changes every step, which defeats prompt caching, and a
 * search costs a few hundred tokens per step.
 */
export const DEFAULT_TOOL_SEARCH_ABOVE = 100;
/**
 * Tools one `search_tools` call answers with, at most (`routing.searchResults`). Each one found joins the
 * offer for the rest of the run: with tools of ~165 tokens, two searches of 3 keep the offer near 1,100
 * tokens (5 would take it past 1,800: `npm run bench -- --only context`); a model that finds nothing
 * useful searches again with other words.
 */
export const DEFAULT_TOOL_SEARCH_RESULTS = 3;
/**
 * Whether the agent asks its model to rewrite a request into tool needs before ranking the offer
 * (`routing.rewrite`): one more model call per new request, so off unless asked for.
 */
export const DEFAULT_ROUTING_REWRITE = false;
/**
 * Deadline of the model's rewrite of a request into tool needs, retries included; past it the raw request
 * alone is ranked. A rewrite is a short answer (a JSON list of a few needs): a model slower than this
 * would hold up the run's first step more than the rewrite is worth.
 */
export const DEFAULT_REWRITE_TIMEOUT_MS = 5_000;
/** Requests whose rewrites are kept (least recently used dropped first): each later step of a run reuses its request's. */
export const DEFAULT_REWRITE_CACHE_ENTRIES = 256;
/** The routing strategy (`routing.strategy`, `--strategy`). */
export const DEFAULT_ROUTING_STRATEGY: StrategyName = "lexical";

/** Texts sent per `/embeddings` request. */
export const DEFAULT_EMBEDDING_BATCH_SIZE = 64;
/** Deadline of one `/embeddings` request. */
export const DEFAULT_EMBEDDING_TIMEOUT_MS = 30_000;
/** Vectors an embeddings client keeps (least recently used dropped first): ~60 MB at 1,536 dimensions. */
export const DEFAULT_MAX_CACHED_VECTORS = 10_000;
/**
 * Tokens of a text a local ONNX model reads (`[CLS]` and `[SEP]` included), the rest cut: what small
 * sentence-embedding models (MiniLM, bge-small) were trained on, and a tool's name and description come
 * first in its text.
 */
export const DEFAULT_LOCAL_MODEL_MAX_TOKENS = 256;
/** Best tools a local reranker (`routing.reranker`) reorders; the rest keep the strategy's order. */
export const DEFAULT_RERANK_DEPTH = 20;

/**
 * A routing hint's `when` written as `/pattern/flags` (flags among `dimsuv`): a regular expression, or
 * undefined for words (src/routing/hints.ts).
 */
export function hintRegExp(when: string): { source: string; flags: string } | undefined {
  const match = /^\/(.+)\/([dimsuv]*)$/s.exec(when);
  return match ? { source: match[1]!, flags: match[2]! } : undefined;
}

/** Why a hint's `/pattern/flags` does not compile, or undefined when it does (or is words). */
export function hintRegExpProblem(when: string): string | undefined {
  const regex = hintRegExp(when);
  if (!regex) return undefined;
  try {
    new RegExp(regex.source, regex.flags);
    return undefined;
  } catch (error) {
    return `invalid regular expression ${when}: ${(error as Error).message}`;
  }
}

/** One `routing.hints` entry: requests matching `when` get the tools matching `tools` first. */
const hintSchema = z.strictObject({
  when: z
    .string({ error: 'expected words ("return refund 退货") or a /regular expression/' })
    .min(1, "expected words or a /regular expression/")
    .superRefine((when, ctx) => {
      const problem = hintRegExpProblem(when);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  tools: z
    .array(z.string({ error: "expected tool names or globs" }), { error: "expected an array of tool globs" })
    .min(1, "expected at least one tool glob"),
});

/** A local ONNX model: its folder (model.onnx, tokenizer.json) or its .onnx file, relative to the config file. */
const localModelPath = z
  .string({
    error: "expected the folder of a local ONNX model (model.onnx and tokenizer.json) or its .onnx file",
  })
  .min(1, "expected the folder of a local ONNX model or its .onnx file");

/** The `routing` section: how the agent offers tools, and which strategy ranks them. */
export const routingSchema = z
  .strictObject({
    mode: oneOf(ROUTING_MODES).optional(),
    searchAbove: nonNegativeInt.optional(),
    searchResults: positiveInt.optional(),
    topK: positiveInt.optional(),
    offerAllUpTo: nonNegativeInt.optional(),
    pinned: stringArray.optional(),
    rewrite: z.boolean({ error: "expected true or false" }).optional(),
    hints: z.array(hintSchema, { error: "expected an array of { when, tools }" }).optional(),
    strategy: oneOf(STRATEGY_NAMES).optional(),
    embeddings: z
      .strictObject({
        baseURL: z.string({ error: "expected the API root URL, e.g. http://127.0.0.1:11434/v1" }).optional(),
        model: z.string({ error: "expected the embedding model's name" }).optional(),
        apiKey: z.string().optional(),
        path: localModelPath.optional(),
      })
      .superRefine((embeddings, ctx) => {
        if (embeddings.path !== undefined) {
          if (embeddings.baseURL !== undefined || embeddings.model !== undefined)
            ctx.addIssue({
              code: "custom",
              message:
                'expected either "path" (a local ONNX model) or "baseURL" and "model" (an endpoint), not both',
            });
          return;
        }
        for (const key of ["baseURL", "model"] as const)
          if (embeddings[key] === undefined)
            ctx.addIssue({
              code: "custom",
              path: [key],
              message: `expected "${key}" (an OpenAI-compatible endpoint), or "path" for a local ONNX model instead`,
            });
      })
      .optional(),
    reranker: z
      .strictObject({
        path: localModelPath,
        depth: positiveInt.optional(),
      })
      .optional(),
  })
  .superRefine((routing, ctx) => {
    // Said here, where the file is known, rather than when the first router is built.
    if (
      routing.embeddings === undefined &&
      (routing.strategy === "embedding" || routing.strategy === "hybrid")
    )
      ctx.addIssue({
        code: "custom",
        path: ["embeddings"],
        message: `routing.strategy "${routing.strategy}" ranks with embeddings: add "embeddings": { "baseURL", "model" } (an OpenAI-compatible endpoint) or { "path" } (a local ONNX model), or choose ${quotedList(STRATEGY_NAMES.filter((name) => name !== "embedding" && name !== "hybrid"))}`,
      });
  });
