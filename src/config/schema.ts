// The config's zod schemas and its resolved types, exported from one place. Each section's schema is in
// its own file (sections/*.ts), beside the defaults of its keys. The three defaults below once lived here
// and are still exported for the old import path.

export { agentSchema } from "./sections/agent.js";
export { type AuditSection, auditSchema } from "./sections/audit.js";
export {
  configFileSchema,
  inputsSchema,
  type Substitution,
  type SwitchyardConfig,
} from "./sections/config-file.js";
export {
  type GatewayAuthSection,
  type GatewayLimitsSection,
  type GatewayOperationsSection,
  type GatewaySection,
  gatewayAuthSchema,
  gatewayLimitsSchema,
  gatewayOperationsSchema,
  gatewaySchema,
} from "./sections/gateway.js";
export { type LimitsSection, limitsSchema } from "./sections/limits.js";
export { modelSchema } from "./sections/model.js";
export type { OAuthConfig } from "./sections/oauth.js";
export {
  type IdentitySection,
  identitySchema,
  type PolicyRuleConfig,
  type PolicySection,
  policyRuleSchema,
  policySchema,
} from "./sections/policy.js";
export { redactSchema } from "./sections/redact.js";
export {
  type RegistryEntry,
  type RegistrySection,
  registriesSchema,
  type ServerSource,
  serverSourceSchema,
} from "./sections/registries.js";
export { routingSchema } from "./sections/routing.js";
export { type SecuritySection, securitySchema } from "./sections/security.js";
export {
  type ConcurrencyConfig,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENCY,
  type ServerConfig,
  type ServerEntry,
  serverEntrySchema,
  type VersionNegotiation,
} from "./sections/server.js";
export { type StoreSection, storeSchema } from "./sections/store.js";
export type { TransportKind } from "./vocabulary.js";
