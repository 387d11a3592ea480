export * from "./defaults.js";
export {
  findConfigFile,
  loadConfigFile,
  type ResolveOptions,
  resolveConfig,
} from "./load.js";
export type { ServerConfig, SwitchyardConfig, VersionNegotiation } from "./schema.js";
export * from "./vocabulary.js";
