import type { SwitchyardConfig } from "../config/schema.js";
import { createStrategy, type StrategySpec } from "./create-strategy.js";
import type { RouterOptions } from "./router.js";

/**
 * Router options from the config's `routing` section: `topK`, `offerAllUpTo`, `pinned`, `hints`, and the
 * strategy (`lexical` by default; `embedding` and `hybrid` use the `embeddings` endpoint or local model,
 * and any strategy the `reranker`).
 * @throws SwitchyardError `CONFIG_INVALID` for `embedding`/`hybrid` without `embeddings`, or a local
 *   model whose files or packages are missing.
 */
export function routerOptionsFromConfig(
  routing: SwitchyardConfig["routing"],
  onError?: (error: unknown, strategy: string) => void,
): RouterOptions {
  if (!routing) return {};
  const options: RouterOptions = {};
  if (routing.topK !== undefined) options.topK = routing.topK;
  if (routing.offerAllUpTo !== undefined) options.offerAllUpTo = routing.offerAllUpTo;
  if (routing.pinned) options.pinned = routing.pinned;
  if (routing.hints?.length) options.hints = routing.hints;
  if (routing.strategy || routing.embeddings || routing.reranker) {
    const embeddings = embeddingsSpec(routing.embeddings);
    options.strategy = createStrategy({
      ...(routing.strategy ? { strategy: routing.strategy } : {}),
      ...(embeddings ? { embeddings } : {}),
      ...(routing.reranker ? { reranker: rerankerSpec(routing.reranker) } : {}),
      ...(onError ? { onError } : {}),
    });
  }
  return options;
}

/** The `embeddings` key as a strategy's: a local model's path, or an endpoint (the schema checked which). */
export function embeddingsSpec(
  embeddings: NonNullable<SwitchyardConfig["routing"]>["embeddings"],
): StrategySpec["embeddings"] {
  if (!embeddings) return undefined;
  if (embeddings.path !== undefined) return { path: embeddings.path };
  return {
    baseURL: embeddings.baseURL ?? "",
    model: embeddings.model ?? "",
    ...(embeddings.apiKey === undefined ? {} : { apiKey: embeddings.apiKey }),
    key: "routing.embeddings.baseURL",
  };
}

/** The `reranker` key as a strategy's. */
export function rerankerSpec(
  reranker: NonNullable<NonNullable<SwitchyardConfig["routing"]>["reranker"]>,
): NonNullable<StrategySpec["reranker"]> {
  return { path: reranker.path, ...(reranker.depth === undefined ? {} : { depth: reranker.depth }) };
}
