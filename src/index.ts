// Switchyard's public API: named exports only; nothing runs at import time.
export {
  Agent,
  type AgentHost,
  type AgentOptions,
  type AgentResult,
  ATTACHED_RESOURCES_NOTE,
  type AttachedResource,
  DEFAULT_SYSTEM_PROMPT,
  LAST_STEP_NOTE,
  type OfferedWhy,
  type RunOptions,
  type SelectionContext,
} from "./agent/agent.js";
export { type AgentConfig, type CreateAgentOptions, createAgent } from "./agent/create-agent.js";
export type { AgentEvent, StopReason } from "./agent/events.js";
export {
  type CallGuard,
  callKey,
  DEFAULT_MAX_IDENTICAL_CALLS,
  DEFAULT_MAX_STEPS,
  DEFAULT_OFFERED_TOOLS_ONLY,
  identicalCallLimit,
  offeredToolsOnly,
  type PendingCall,
  type RunState,
  type StopCondition,
  type StopDecision,
  skipUnavailableServers,
  stepLimit,
} from "./agent/guards.js";
export {
  checkLocalTools,
  LOCAL_TOOL_SERVER,
  type LocalTool,
  LocalToolHost,
  type LocalToolState,
  readResultTool,
} from "./agent/local-tools.js";
export {
  DEFAULT_NUDGE_MESSAGE,
  DEFAULT_NUDGE_MIN_SCORE,
  type FallbackNudgeOptions,
  fallbackNudge,
  type Nudge,
  type NudgeContext,
} from "./agent/nudge.js";
export {
  type RoutableCatalogChange,
  type RoutableHost,
  type RoutingSection,
  routerFor,
  routeTools,
  syncRouter,
  toConversation,
} from "./agent/route-tools.js";
export type { CallOutcomeReport, ShapingReport, ToolCallOptions, ToolHost } from "./agent/run-call.js";
export {
  DEFAULT_TOOL_SEARCH_ABOVE,
  DEFAULT_TOOL_SEARCH_RESULTS,
  SEARCH_TOOLS_NAME,
  ToolSearch,
  type ToolSearchOptions,
} from "./agent/tool-search.js";
export type { ApprovalAnswer, ApprovalHandler, ApprovalRequest } from "./calls/approval.js";
export { normalizeResult, type ToolResult } from "./calls/normalize.js";
export {
  ANNOTATION_TAGS,
  type ArgumentConstraint,
  compilePolicy,
  DEFAULT_POLICY_EFFECT,
  DEFAULT_POLICY_MODE,
  type Decision,
  isUnder,
  osIdentity,
  type PolicyEffect,
  PolicyEngine,
  type PolicyMode,
  type PolicyOptions,
  type PolicyRequest,
  type PolicyRule,
  type PolicyTool,
} from "./calls/policy.js";
export { type JsonSchema, type ValidationResult, validateArguments } from "./calls/validate.js";
export type { CatalogEntry } from "./catalog/catalog.js";
export { baseToolName, namespaceLabel, TOOL_NAME_PATTERN, toolNamePrefix } from "./catalog/naming.js";
export type {
  ElicitationAnswer,
  ElicitationHandler,
  ElicitationRequest,
  SamplingApproval,
  SamplingRequest,
} from "./client-answers.js";
export {
  DEFAULT_AUDIT_FOLLOW_INTERVAL_MS,
  DEFAULT_AUDIT_TAIL_ROWS,
  DEFAULT_RECORDING,
  DEFAULT_RUN_AUDIT_SCAN_ROWS,
  DEFAULT_RUNS_LISTED,
} from "./config/defaults.js";
export {
  type ConfigInput,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CATALOG_CACHE_MAX_AGE_MS,
  DEFAULT_CHAT_HISTORY_LINES,
  DEFAULT_CLI_CANCEL_WAIT_MS,
  DEFAULT_CLI_SHUTDOWN_LIMIT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENCY,
  findConfigFile,
  inputVariable,
  loadConfigFile,
  type OAuthConfig,
  pendingConfigInputs,
  ROUTING_MODES,
  type RoutingMode,
  resolveConfig,
  type ServerConfig,
  type SwitchyardConfig,
  type TransportKind,
} from "./config/index.js";
export type { StoreSection, Substitution } from "./config/schema.js";
export {
  type ActiveContext,
  type ActiveContextInput,
  buildActiveContext,
  type ContextOptions,
  type ContextSettings,
  collapseRepeats,
  contextSettings,
  DEFAULT_COLLAPSE_REPEATS,
  DEFAULT_COMPACT_AT_SHARE,
  DEFAULT_COMPACT_TO_SHARE,
  DEFAULT_KEEP_ROUNDS,
  DEFAULT_RESULT_HANDLES,
  fitActiveContext,
  markToolResult,
  type ResultInfo,
} from "./context/active.js";
export { type BudgetOptions, budgetFor, type ContextBudget } from "./context/budget.js";
export {
  type Compaction,
  compactionOf,
  extractiveSummary,
  modelSummarizer,
  roundStarts,
  SUMMARIZER_PROMPT,
  SUMMARY_HEADING,
  type Summarizer,
  summaryMessage,
} from "./context/compact.js";
export {
  DEFAULT_READ_RESULT_CHARS,
  type PageLimits,
  parseJsonPath,
  READ_RESULT_TOOL,
  READ_RESULT_TOOL_NAME,
  type ReadResultArgs,
  ResultHandles,
  readMoreHint,
  type StoredResult,
} from "./context/handles.js";
export {
  type AnchorFormat,
  type AnchorInfo,
  type CallOutcome,
  DEFAULT_MORE_HINT,
  DEFAULT_RESULT_BUDGET_CHARS,
  DEFAULT_RESULT_BUDGET_TOKENS,
  defaultAnchor,
  type ResultBlock,
  type ShapedResult,
  type ShapeOptions,
  type ShapeToolResultOptions,
  shapeResult,
  shapeToolResult,
} from "./context/shape-result.js";
export {
  contextWindowFor,
  createTokenCounter,
  type TokenCounter,
  tokenCounterFor,
} from "./context/tokens.js";
export { closestNames, type ErrorCode, isSwitchyardError, SwitchyardError } from "./errors.js";
export type { ServerState, ServerStatus } from "./fleet/connection.js";
export {
  type AuthorizeOptions,
  type AuthorizeResult,
  authorizeServer,
  forgetAuthorization,
  oauthStoreFolder,
  oauthStorePath,
  openInBrowser,
} from "./fleet/oauth.js";
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
export type { Conversation, ConversationWeights } from "./routing/conversation.js";
export {
  createStrategy,
  STRATEGY_NAMES,
  type StrategyName,
  type StrategySpec,
} from "./routing/create-strategy.js";
export { routerOptionsFromConfig } from "./routing/from-config.js";
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
export type { RankedTool, RankOptions, RoutingStrategy } from "./routing/strategy.js";
export type { ToolDescriptor } from "./routing/tool-descriptor.js";
export { type AuditProblem, type AuditVerification, verifyAudit } from "./store/audit-chain.js";
export { defaultStorePath, openStore } from "./store/open.js";
export { type RecorderOptions, StoreRecorder } from "./store/recorder.js";
export type {
  AuditHead,
  AuditQuery,
  RunSummary,
  SessionHandle,
  SessionState,
  SessionSummary,
  Store,
  StoredAuditRecord,
  StoredCall,
  StoredRun,
  StoredSession,
  StoredStep,
  StoreOptions,
} from "./store/store.js";
export {
  type CallToolOptions,
  type CatalogChange,
  type ForwardedSamplingRequest,
  type ListChange,
  type PromptEntry,
  type PromptResult,
  type ResourceContents,
  type ResourceEntry,
  type ResourceOptions,
  type ResourceTemplateEntry,
  type ResourceUpdate,
  type SamplingForwarder,
  type ServerInfo,
  Switchyard,
  type SwitchyardOptions,
  type ToolInfo,
  type ToolsOptions,
} from "./switchyard.js";
export type { AuditEntry, AuditKind, AuditSink, Identity } from "./telemetry/audit.js";
export { AUDIT_GENESIS_HASH, type AuditRow, auditHash, canonicalJson } from "./telemetry/audit.js";
export {
  type CallRecord,
  newId,
  noopObserver,
  type Observer,
  type RecordedError,
  type RunKind,
  type RunRecord,
  type StepRecord,
  type SwitchyardEvent,
  type TokenUsage,
} from "./telemetry/events.js";
export { createLogger, LOG_LEVELS, type Logger, type LogLevel, silentLogger } from "./telemetry/logger.js";
export {
  REDACTED,
  Redactor,
  type RedactorOptions,
  redactingAuditSink,
  redactingLogger,
  redactingObserver,
  redactingWireSink,
  TOKEN_PATTERNS,
} from "./telemetry/redact.js";
export { TRACER_NAME } from "./telemetry/tracer.js";
export {
  openWireTrace,
  type WireRecord,
  type WireSink,
  type WireTraceWriter,
} from "./telemetry/wire-trace.js";
