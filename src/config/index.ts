export {
  DEFAULT_CONFIG_FILES,
  findConfigFile,
  loadConfigFile,
  type ResolveOptions,
  resolveConfig,
} from "./load.js";
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENCY,
  type ServerConfig,
  type SwitchyardConfig,
  type TransportKind,
  type VersionNegotiation,
} from "./schema.js";
