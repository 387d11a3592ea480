// Switchyard's public API: named exports only; nothing runs at import time.
export {
  Agent,
  type AgentHost,
  type AgentOptions,
  type AgentResult,
  DEFAULT_SYSTEM_PROMPT,
  type RunOptions,
  type SelectionContext,
} from "./agent/agent.js";
export type { AgentEvent, CallRecord, StopReason } from "./agent/events.js";
export {
  type CallGuard,
  callKey,
  DEFAULT_MAX_IDENTICAL_CALLS,
  DEFAULT_MAX_STEPS,
  identicalCallLimit,
  type PendingCall,
  type RunState,
  type StopCondition,
  type StopDecision,
  skipUnavailableServers,
  stepLimit,
} from "./agent/guards.js";
export { type RoutableHost, routeTools } from "./agent/route-tools.js";
export { normalizeResult, type ToolResult } from "./calls/normalize.js";
export { type JsonSchema, type ValidationResult, validateArguments } from "./calls/validate.js";
export type { CatalogEntry } from "./catalog/catalog.js";
export { TOOL_NAME_PATTERN } from "./catalog/naming.js";
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENCY,
  findConfigFile,
  loadConfigFile,
  resolveConfig,
  type ServerConfig,
  type SwitchyardConfig,
  type TransportKind,
} from "./config/index.js";
export {
  type AnchorFormat,
  type AnchorInfo,
  type CallOutcome,
  DEFAULT_RESULT_BUDGET_CHARS,
  defaultAnchor,
  shapeResult,
} from "./context/shape-result.js";
export { type ErrorCode, isSwitchyardError, SwitchyardError } from "./errors.js";
export type { ServerState, ServerStatus } from "./fleet/connection.js";
export type {
  ChatMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelTool,
  ToolCall,
} from "./models/model.js";
export { OpenAIChatModel, type OpenAIChatModelOptions } from "./models/openai-chat.js";
export { type ModelSection, resolveModel } from "./models/resolve.js";
export { toModelParameters } from "./models/tool-schema.js";
export { type CatalogTool, catalogToolDescriptors, type ServerAbout } from "./routing/catalog-tools.js";
export {
  type Conversation,
  type ConversationWeights,
  conversationQuery,
  parseTranscript,
  queryFromText,
} from "./routing/conversation.js";
export {
  createStrategy,
  STRATEGY_NAMES,
  type StrategyName,
  type StrategySpec,
} from "./routing/create-strategy.js";
export {
  EmbeddingsClient,
  type EmbeddingsClientOptions,
  EmbeddingsError,
} from "./routing/embeddings-client.js";
export { type EvaluateOptions, type Evaluation, evaluateRouter } from "./routing/evaluate.js";
export { routerOptionsFromConfig } from "./routing/from-config.js";
export { reciprocalRankFusion } from "./routing/fusion.js";
export { type LabelledQuery, type RoutingMetrics, routingMetrics } from "./routing/metrics.js";
export type { QueryPart, RoutingQuery } from "./routing/query.js";
export {
  DEFAULT_OFFER_ALL_UP_TO,
  DEFAULT_TOP_K,
  type OfferedTool,
  type OfferReason,
  type RankToolsOptions,
  type RoutedTool,
  Router,
  type RouterOptions,
  type SelectOptions,
} from "./routing/router.js";
export { type ParseResult, parseQueriesJsonl, parseToolsJson } from "./routing/routing-data.js";
export { EmbeddingStrategy } from "./routing/strategies/embedding.js";
export { type HybridOptions, HybridStrategy } from "./routing/strategies/hybrid.js";
export { DEFAULT_FIELD_WEIGHTS, type LexicalOptions, LexicalStrategy } from "./routing/strategies/lexical.js";
export { type TwoStageOptions, TwoStageStrategy } from "./routing/strategies/two-stage.js";
export type { RankedTool, RankOptions, RoutingStrategy } from "./routing/strategy.js";
export { createTokenizer, type Tokenize, type TokenizerOptions, tokenize } from "./routing/tokenizer.js";
export type { ToolDescriptor } from "./routing/tool-descriptor.js";
export { type CallToolOptions, Switchyard, type SwitchyardOptions, type ToolInfo } from "./switchyard.js";
export { createLogger, type Logger, type LogLevel, silentLogger } from "./telemetry/logger.js";
export { openWireTrace, type WireRecord, type WireSink } from "./telemetry/wire-trace.js";
