// Switchyard's public API: named exports only; nothing runs at import time.
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
export { type ErrorCode, isSwitchyardError, SwitchyardError } from "./errors.js";
export type { ServerState, ServerStatus } from "./fleet/connection.js";
export { type CallToolOptions, Switchyard, type SwitchyardOptions, type ToolInfo } from "./switchyard.js";
export { createLogger, type Logger, type LogLevel, silentLogger } from "./telemetry/logger.js";
export { openWireTrace, type WireRecord, type WireSink } from "./telemetry/wire-trace.js";
