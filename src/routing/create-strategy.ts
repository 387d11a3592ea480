import { DEFAULT_ROUTING_STRATEGY } from "../config/defaults.js";
import { STRATEGY_NAMES, type StrategyName } from "../config/vocabulary.js";
import { SwitchyardError } from "../errors.js";
import { EmbeddingsClient, type EmbeddingsClientOptions } from "./embeddings-client.js";
import { EmbeddingStrategy } from "./strategies/embedding.js";
import { HybridStrategy } from "./strategies/hybrid.js";
import { type LexicalOptions, LexicalStrategy } from "./strategies/lexical.js";
import { PlainBm25Strategy } from "./strategies/plain-bm25.js";
import { TwoStageStrategy } from "./strategies/two-stage.js";
import type { RoutingStrategy } from "./strategy.js";

// The vocabulary lives in config/ (the config file names strategies too); re-exported here.
export { STRATEGY_NAMES, type StrategyName } from "../config/vocabulary.js";

/** A routing strategy described as data (for config files and CLI flags). */
export interface StrategySpec {
  /** Default {@link DEFAULT_ROUTING_STRATEGY} (`lexical`); `hybrid` fuses lexical and embedding rankings. */
  strategy?: StrategyName;
  /** Options of the lexical ranking (also inside `two-stage` and `hybrid`). */
  lexical?: LexicalOptions;
  /** The embeddings endpoint, required by `embedding` and `hybrid`. */
  embeddings?: EmbeddingsClientOptions;
  /** Servers kept by `two-stage`'s first stage. */
  servers?: number;
  /** `hybrid`: called when the embeddings endpoint fails; lexical results are used alone meanwhile. */
  onError?: (error: unknown, strategy: string) => void;
}

/**
 * Build a routing strategy from its description.
 * @throws SwitchyardError `CONFIG_INVALID` for an unknown strategy, or `embedding`/`hybrid` without an
 *   embeddings endpoint (`baseURL` and `model`).
 */
export function createStrategy(spec: StrategySpec = {}): RoutingStrategy {
  const name = spec.strategy ?? DEFAULT_ROUTING_STRATEGY;
  const lexical = () => new LexicalStrategy(spec.lexical);
  const embedding = () => {
    if (!spec.embeddings?.baseURL || !spec.embeddings.model)
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `routing strategy "${name}" needs an embeddings endpoint: give its baseURL and model`,
        { path: "routing.embeddings" },
      );
    return new EmbeddingStrategy(new EmbeddingsClient(spec.embeddings));
  };
  switch (name) {
    case "lexical":
      return lexical();
    case "plain-bm25":
      return new PlainBm25Strategy();
    case "two-stage":
      return new TwoStageStrategy({
        tools: lexical(),
        ...(spec.servers === undefined ? {} : { servers: spec.servers }),
        ...(spec.lexical?.tokenizer ? { tokenizer: spec.lexical.tokenizer } : {}),
      });
    case "embedding":
      return embedding();
    case "hybrid":
      return new HybridStrategy({
        strategies: [lexical(), embedding()],
        ...(spec.onError ? { onError: spec.onError } : {}),
      });
    default:
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `unknown routing strategy "${String(name)}"; use one of ${STRATEGY_NAMES.join(", ")}`,
        { path: "routing.strategy" },
      );
  }
}
