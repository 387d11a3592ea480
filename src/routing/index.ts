// switchyard/routing: everything routing — the router, its strategies, the lexical index and tokenizer,
// embeddings, evaluation and the routing data formats. The root entry keeps what an agent user needs.
/** Ids per line written by `route eval --rankings` unless `--top` says otherwise. */
export { DEFAULT_RANKINGS_LENGTH } from "../config/defaults.js";
export {
  type Bm25Hit,
  Bm25Index,
  type Bm25IndexOptions,
  type FieldSetting,
  type QueryTerm,
} from "./bm25-index.js";
export { type CatalogTool, catalogToolDescriptors, type ServerAbout } from "./catalog-tools.js";
export { splitClauses } from "./clauses.js";
export {
  type Conversation,
  type ConversationWeights,
  conversationQuery,
  parseTranscript,
  queryFromText,
} from "./conversation.js";
export { createStrategy, STRATEGY_NAMES, type StrategyName, type StrategySpec } from "./create-strategy.js";
export { EmbeddingsClient, type EmbeddingsClientOptions, EmbeddingsError } from "./embeddings-client.js";
export { DEFAULT_EVAL_DEPTH, type EvaluateOptions, type Evaluation, evaluateRouter } from "./evaluate.js";
export { routerOptionsFromConfig } from "./from-config.js";
export { DEFAULT_RRF_K, reciprocalRankFusion } from "./fusion.js";
export type { RoutingHint } from "./hints.js";
export { splitIdentifier } from "./identifiers.js";
export { parseLexicalOptions } from "./lexical-options.js";
export { LocalEmbedder, type LocalModelOptions, LocalReranker } from "./local-embedder.js";
export {
  type LabelledQuery,
  type RoutingMetrics,
  recallAt,
  reciprocalRank,
  routingMetrics,
  serverRecallAt,
} from "./metrics.js";
export type { QueryPart, RoutingQuery } from "./query.js";
export {
  DEFAULT_MAX_USED_KEPT,
  DEFAULT_MIN_RANKED_TOOLS,
  DEFAULT_OFFER_ALL_UP_TO,
  DEFAULT_TOP_K,
  type OfferedTool,
  type OfferReason,
  type RankToolsOptions,
  type RoutedTool,
  Router,
  type RouterOptions,
  type SelectOptions,
} from "./router.js";
export { type ParseResult, parseQueriesJsonl, parseToolsJson } from "./routing-data.js";
export { stem } from "./stem.js";
export { EmbeddingStrategy } from "./strategies/embedding.js";
export { type HybridOptions, HybridStrategy } from "./strategies/hybrid.js";
export { DEFAULT_FIELD_WEIGHTS, type LexicalOptions, LexicalStrategy } from "./strategies/lexical.js";
export { PlainBm25Strategy } from "./strategies/plain-bm25.js";
export { type RerankedOptions, RerankedStrategy, type Reranker } from "./strategies/reranked.js";
export { type TwoStageOptions, TwoStageStrategy } from "./strategies/two-stage.js";
export type { RankedTool, RankOptions, RoutingStrategy } from "./strategy.js";
export { createTokenizer, type Tokenize, type TokenizerOptions, tokenize } from "./tokenizer.js";
export type { ToolDescriptor } from "./tool-descriptor.js";
export { TOOL_FIELDS, type ToolField, type ToolText } from "./tool-text.js";
export type { Embedder } from "./vector-cache.js";
