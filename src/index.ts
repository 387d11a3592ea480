// Switchyard's public API: what a library user needs, named; nothing runs at import time. The router's
// parts are `switchyard/routing`, plans `switchyard/plan`, the gateway `switchyard/gateway`, the
// framework adapters `switchyard/langchain` and `switchyard/ai-sdk`, test helpers `switchyard/testing`.

// The agent.
export {
  Agent,
  type AgentHost,
  type AgentOptions,
  type AgentResult,
  type OfferedWhy,
  type RunOptions,
  type SelectionContext,
} from "./agent/agent.js";
export { type AgentConfig, type CreateAgentOptions, createAgent } from "./agent/create-agent.js";
export type { AgentEvent, StopReason } from "./agent/events.js";
export type { CallGuard, PendingCall, RunState, StopCondition, StopDecision } from "./agent/guards.js";
export type { LocalTool, LocalToolState } from "./agent/local-tools.js";
export { type FallbackNudgeOptions, fallbackNudge, type Nudge, type NudgeContext } from "./agent/nudge.js";
export { QueryRewriter, type QueryRewriterOptions, type RewriteRecord } from "./agent/query-rewrite.js";
export { type RoutableHost, type RoutingSection, routerFor, routeTools } from "./agent/route-tools.js";
export type { CallOutcomeReport, ShapingReport, ToolHost } from "./agent/run-call.js";
export { type OfferedSkill, type SkillHost, skillTools } from "./agent/skills.js";
export { ToolSearch, type ToolSearchOptions } from "./agent/tool-search.js";
// Who may do what: identity, policy, approvals, audit.
export type { ApprovalAnswer, ApprovalHandler, ApprovalRequest } from "./calls/approval.js";
export type { ToolResult } from "./calls/normalize.js";
export type {
  ArgumentConstraint,
  Decision,
  PolicyEffect,
  PolicyEngine,
  PolicyMode,
  PolicyOptions,
  PolicyRequest,
  PolicyRule,
  PolicyTarget,
  TargetKind,
} from "./calls/policy.js";
export { compilePolicy } from "./calls/policy-rules.js";
export type {
  CallProgress,
  CallToCheck,
  CallToolOptions,
  CompletionReference,
  CompletionResult,
  LocalCall,
  PromptResult,
  RequestContext,
  RequestInput,
  RequestInterceptor,
  RequestKind,
  RequestMethod,
  RequestOptions,
  RequestOutcome,
  RequestResult,
  RequestResults,
  ResourceContents,
  RunCallOptions,
} from "./calls/request.js";
export type { CatalogEntry } from "./catalog/catalog.js";
export type {
  ElicitationAnswer,
  ElicitationHandler,
  ElicitationRequest,
  SamplingApproval,
  SamplingRequest,
} from "./client-answers.js";
// Config.
export {
  type ConfigInput,
  findConfigFile,
  loadConfigFile,
  resolveConfig,
  type ServerConfig,
  type SwitchyardConfig,
  type TransportKind,
} from "./config/index.js";
export type { ContextOptions } from "./context/active.js";
export type { ResultHandles } from "./context/handles.js";
export { type ErrorCode, isSwitchyardError, SwitchyardError } from "./errors.js";
// Remote servers that need an OAuth login.
export {
  type AuthorizeOptions,
  type AuthorizeResult,
  authorizeServer,
  forgetAuthorization,
} from "./fleet/oauth-login.js";
export type { ServerStatus } from "./fleet/server-state.js";
// Models.
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
export {
  type AuditProblem,
  type AuditVerification,
  type AuditVerifyOptions,
  verifyAudit,
} from "./store/audit-chain.js";
export { type AuditCheckpoint, auditCheckpoint, parseAuditCheckpoint } from "./store/audit-checkpoint.js";
export { defaultStorePath, openStore } from "./store/open.js";
export type {
  AuditHead,
  AuditQuery,
  RunSummary,
  SessionSummary,
  Store,
  StoredAuditRecord,
  StoredCall,
  StoredPlanCheckpoint,
  StoredRun,
  StoredSession,
  StoredStep,
  StoreOptions,
} from "./store/store.js";
// The fleet, its catalog and its one request pipeline.
export {
  type CatalogChange,
  type ForwardedSamplingRequest,
  type ListChange,
  type ListOptions,
  type LoadedSkill,
  type PromptEntry,
  type ResourceEntry,
  type ResourceOptions,
  type ResourceTemplateEntry,
  type ResourceUpdate,
  type SamplingForwarder,
  type ServerInfo,
  type ServerLogMessage,
  type ServerState,
  type SkillEntry,
  type SkillListing,
  Switchyard,
  type SwitchyardOptions,
  type ToolInfo,
  type ToolsOptions,
} from "./switchyard.js";
export type { AuditEntry, AuditKind, AuditRow, AuditSink, Identity } from "./telemetry/audit.js";
// Records: events, the store, the audit log's chain, redaction, logs, wire traces, traces.
export type {
  CallRecord,
  Observer,
  RecordedError,
  RunKind,
  RunRecord,
  StepRecord,
  SwitchyardEvent,
  TokenUsage,
} from "./telemetry/events.js";
export type { Finding, FindingKind, Severity } from "./telemetry/findings.js";
export { createLogger, type Logger, type LogLevel, silentLogger } from "./telemetry/logger.js";
export { Redactor, type RedactorOptions } from "./telemetry/redact.js";
export { TRACER_NAME } from "./telemetry/tracer.js";
export {
  openWireTrace,
  type WireRecord,
  type WireSink,
  type WireTraceWriter,
} from "./telemetry/wire-trace.js";
export type { PinnedDefinition, PinStore, ToolPin } from "./trust/pins.js";
