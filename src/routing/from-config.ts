import type { SwitchyardConfig } from "../config/schema.js";
import { createStrategy } from "./create-strategy.js";
import type { RouterOptions } from "./router.js";

/**
 * Router options from the config's `routing` section: `topK`, `offerAllUpTo`, `pinned`, `hints`, and the
 * strategy (`lexical` by default; `embedding` and `hybrid` use the `embeddings` endpoint).
 * @throws SwitchyardError `CONFIG_INVALID` for `embedding`/`hybrid` without an `embeddings` endpoint.
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
  if (routing.strategy || routing.embeddings) {
    options.strategy = createStrategy({
      ...(routing.strategy ? { strategy: routing.strategy } : {}),
      ...(routing.embeddings ? { embeddings: routing.embeddings } : {}),
      ...(onError ? { onError } : {}),
    });
  }
  return options;
}
