// Every default of Switchyard, exported from one place: what applies when a config file, an option or a
// flag leaves a value out. Each name carries its unit (`_MS`, `_BYTES`, `_CHARS`) or says what it counts.
// The other layers import their numbers from here; docs/contract.md lists them all ("Defaults").
//
// Each default is defined once, beside what sets it: the defaults of a config section's keys in that
// section's file (sections/*.ts, next to its schema), the numbers no config key sets in a file named for
// what they are about (defaults/*.ts). A section file exports its schema too, so its defaults are named
// here one by one; a defaults/ file holds nothing else.

export * from "./defaults/catalog.js";
export * from "./defaults/cli.js";
export * from "./defaults/connection.js";
export * from "./defaults/context.js";
export * from "./defaults/logs.js";
export * from "./defaults/plan.js";
export * from "./defaults/ranking.js";
export * from "./defaults/trust.js";
export * from "./defaults/viewer.js";
export {
  DEFAULT_COLLAPSE_REPEATS,
  DEFAULT_COMPACT_AT_SHARE,
  DEFAULT_COMPACT_TO_SHARE,
  DEFAULT_KEEP_ROUNDS,
  DEFAULT_MAX_IDENTICAL_CALLS,
  DEFAULT_MAX_STEPS,
  DEFAULT_NUDGE,
  DEFAULT_NUDGE_MESSAGE,
  DEFAULT_NUDGE_MIN_SCORE,
  DEFAULT_OFFERED_TOOLS_ONLY,
  DEFAULT_PARALLEL_TOOL_CALLS,
  DEFAULT_RESULT_HANDLES,
  DEFAULT_SUMMARIZER,
  DEFAULT_SYSTEM_PROMPT,
} from "./sections/agent.js";
export { DEFAULT_CONFIG_FILES } from "./sections/config-file.js";
export {
  DEFAULT_GATEWAY_CLOCK_SKEW_MS,
  DEFAULT_GATEWAY_HOST,
  DEFAULT_GATEWAY_JWKS_TIMEOUT_MS,
  DEFAULT_GATEWAY_MAX_BODY_BYTES,
  DEFAULT_GATEWAY_MAX_SESSIONS,
  DEFAULT_GATEWAY_MODE,
  DEFAULT_GATEWAY_PATH,
  DEFAULT_GATEWAY_PENDING_KEEP_MS,
  DEFAULT_GATEWAY_ROLES_CLAIM,
  DEFAULT_GATEWAY_SESSION_IDLE_MS,
  DEFAULT_GATEWAY_SESSION_TOUCH_MS,
  DEFAULT_GATEWAY_TOKEN_MIN_CHARS,
  DEFAULT_GATEWAY_USER_CLAIM,
} from "./sections/gateway.js";
export {
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  DEFAULT_CONTEXT_WINDOWS,
  DEFAULT_MODEL_MAX_RETRIES,
  DEFAULT_MODEL_MAX_RETRY_DELAY_MS,
  DEFAULT_MODEL_RETRY_BASE_MS,
  DEFAULT_MODEL_TIMEOUT_MS,
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
} from "./sections/model.js";
export {
  DEFAULT_LOGIN_TIMEOUT_MS,
  DEFAULT_OAUTH_CALLBACK_PATH,
  DEFAULT_OAUTH_PROBE_TIMEOUT_MS,
  DEFAULT_OAUTH_SIGNING_ALGORITHM,
} from "./sections/oauth.js";
export {
  DEFAULT_POLICY_EFFECT,
  DEFAULT_POLICY_MODE,
} from "./sections/policy.js";
export {
  DEFAULT_REDACT_KEYS,
  DEFAULT_REDACT_MIN_SECRET_CHARS,
} from "./sections/redact.js";
export {
  DEFAULT_EMBEDDING_BATCH_SIZE,
  DEFAULT_EMBEDDING_TIMEOUT_MS,
  DEFAULT_MAX_CACHED_VECTORS,
  DEFAULT_MAX_USED_KEPT,
  DEFAULT_MIN_RANKED_TOOLS,
  DEFAULT_OFFER_ALL_UP_TO,
  DEFAULT_ROUTING_CONTEXT_CHARS,
  DEFAULT_ROUTING_CONTEXT_MESSAGES,
  DEFAULT_ROUTING_MODE,
  DEFAULT_ROUTING_STRATEGY,
  DEFAULT_TOOL_SEARCH_ABOVE,
  DEFAULT_TOOL_SEARCH_RESULTS,
  DEFAULT_TOP_K,
} from "./sections/routing.js";
export { DEFAULT_ON_FINDING } from "./sections/security.js";
export {
  DEFAULT_BREAKER_COOLDOWN_MS,
  DEFAULT_BREAKER_FAILURE_THRESHOLD,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_CONCURRENCY,
  DEFAULT_CONCURRENCY_MAX_CALLS,
  DEFAULT_CONCURRENCY_MIN_CALLS,
  DEFAULT_CONCURRENCY_SLACK_MS,
  DEFAULT_CONCURRENCY_TOLERANCE_RATIO,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_HEALTH,
  DEFAULT_HEALTH_INTERVAL_MS,
  DEFAULT_INSTRUCTIONS_MAX_TOKENS,
  DEFAULT_LAZY_START,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_QUEUE,
  DEFAULT_MAX_RESTARTS,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_PING_TIMEOUT_MS,
  DEFAULT_RESTART,
  DEFAULT_RESTART_BACKOFF_MS,
  DEFAULT_RESTART_STABLE_AFTER_MS,
  DEFAULT_RETRY,
  DEFAULT_RETRY_BACKOFF_MS,
  DEFAULT_VERSION_NEGOTIATION,
} from "./sections/server.js";
export {
  DEFAULT_AUDIT_BATCH_ROWS,
  DEFAULT_POSTGRES_CONNECTIONS,
  DEFAULT_RECORD_TEXT_CHARS,
  DEFAULT_RECORDED_ERROR_CHARS,
  DEFAULT_RECORDING,
  DEFAULT_STORE_BUSY_TIMEOUT_MS,
  DEFAULT_STORE_FILE,
} from "./sections/store.js";
