export * from "./defaults.js";
export { type ConfigInput, inputVariable } from "./interpolate.js";
export {
  findConfigFile,
  loadConfigFile,
  pendingConfigInputs,
  type ResolveOptions,
  resolveConfig,
} from "./load.js";
export type { OAuthConfig, ServerConfig, SwitchyardConfig, VersionNegotiation } from "./schema.js";
export * from "./vocabulary.js";
