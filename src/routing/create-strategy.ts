import { DEFAULT_ROUTING_STRATEGY } from "../config/defaults.js";
import { STRATEGY_NAMES, type StrategyName } from "../config/vocabulary.js";
import { didYouMean, SwitchyardError } from "../errors.js";
import { EmbeddingsClient, type EmbeddingsClientOptions } from "./embeddings-client.js";
import { parseLexicalOptions } from "./lexical-options.js";
import { LocalEmbedder, type LocalModelOptions, LocalReranker } from "./local-embedder.js";
import { EmbeddingStrategy } from "./strategies/embedding.js";
import { HybridStrategy } from "./strategies/hybrid.js";
import { type LexicalOptions, LexicalStrategy } from "./strategies/lexical.js";
import { PlainBm25Strategy } from "./strategies/plain-bm25.js";
import { RerankedStrategy } from "./strategies/reranked.js";
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
  /**
   * The embeddings endpoint or local ONNX model (`path`), required by `embedding` and `hybrid`; with it,
   * `two-stage` ranks its tool stage as `hybrid` does.
   */
  embeddings?: EmbeddingsClientOptions | LocalModelOptions;
  /** A local cross-encoder (ONNX) that reorders the strategy's best `depth` tools. */
  reranker?: LocalModelOptions & { depth?: number };
  /** Servers kept by `two-stage`'s first stage. */
  servers?: number;
  /**
   * Called when the embeddings endpoint or model fails (`hybrid`, `two-stage`: lexical results are used
   * alone meanwhile) or the reranker does (the strategy's own order is kept).
   */
  onError?: (error: unknown, strategy: string) => void;
}

/**
 * Build a routing strategy from its description. A local model's files are checked here; the model is
 * loaded at the first ranking.
 * @throws SwitchyardError `CONFIG_INVALID` for an unknown strategy (with the one it most likely meant),
 *   `lexical` options that {@link parseLexicalOptions} refuses (whatever the strategy), `embedding`/`hybrid`
 *   without an embeddings endpoint (`baseURL` and `model`) or local model (`path`), or a local model
 *   whose files or packages are missing.
 */
export function createStrategy(spec: StrategySpec = {}): RoutingStrategy {
  // Checked even where no lexical ranking uses them: a mistyped option is never silently left out.
  if (spec.lexical !== undefined) parseLexicalOptions(spec.lexical);
  const strategy = baseStrategy(spec);
  if (!spec.reranker) return strategy;
  return new RerankedStrategy({
    strategy,
    reranker: new LocalReranker({ key: "routing.reranker.path", ...spec.reranker }),
    ...(spec.reranker.depth === undefined ? {} : { depth: spec.reranker.depth }),
    ...(spec.onError ? { onError: spec.onError } : {}),
  });
}

function baseStrategy(spec: StrategySpec): RoutingStrategy {
  const name = spec.strategy ?? DEFAULT_ROUTING_STRATEGY;
  const lexical = () => new LexicalStrategy(spec.lexical);
  const embedding = () => {
    const embeddings = spec.embeddings;
    if (embeddings && "path" in embeddings) return new EmbeddingStrategy(new LocalEmbedder(embeddings));
    if (!embeddings?.baseURL || !embeddings.model)
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `routing strategy "${name}" needs embeddings: an endpoint's baseURL and model, or a local ONNX model's path`,
        { path: "routing.embeddings" },
      );
    return new EmbeddingStrategy(new EmbeddingsClient(embeddings));
  };
  const hybrid = () =>
    new HybridStrategy({
      strategies: [lexical(), embedding()],
      ...(spec.onError ? { onError: spec.onError } : {}),
    });
  switch (name) {
    case "lexical":
      return lexical();
    case "plain-bm25":
      return new PlainBm25Strategy();
    case "two-stage":
      return new TwoStageStrategy({
        tools: spec.embeddings ? hybrid() : lexical(),
        ...(spec.servers === undefined ? {} : { servers: spec.servers }),
        ...(spec.lexical?.tokenizer ? { tokenizer: spec.lexical.tokenizer } : {}),
      });
    case "embedding":
      return embedding();
    case "hybrid":
      return hybrid();
    default:
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `unknown routing strategy "${String(name)}"${nearName(name)}; use one of ${STRATEGY_NAMES.join(", ")}`,
        { path: "routing.strategy" },
      );
  }
}

/** " (did you mean lexical?)" for a mistyped strategy's name, or "". */
function nearName(name: unknown): string {
  const hint = typeof name === "string" ? didYouMean(name, STRATEGY_NAMES, 1) : "";
  return hint ? ` (${hint})` : "";
}
