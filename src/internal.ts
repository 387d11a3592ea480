// The CLI's entry into the library: the public API and the parts only the CLI needs (its defaults,
// the catalog's naming, the config's inputs, the OAuth token folder). Not published: package.json does
// not export it; the bundled CLI carries what it uses.

export { toConversation } from "./agent/route-tools.js";
export { checkIdentity, osIdentity } from "./calls/identity.js";
export type { JsonSchema } from "./calls/validate.js";
export { validateArguments } from "./calls/validate.js";
export { globMatcher } from "./catalog/glob.js";
export { baseToolName, toolNamePrefix } from "./catalog/naming.js";
export * from "./config/defaults.js";
export { inputVariable } from "./config/interpolate.js";
export { pendingConfigInputs } from "./config/load.js";
export { type ChosenRegistry, chooseRegistry, readRegistries, registryToken } from "./config/registries.js";
export type {
  OAuthConfig,
  RegistryEntry,
  RegistrySection,
  ServerSource,
  StoreSection,
} from "./config/schema.js";
export { LOG_LEVELS } from "./config/vocabulary.js";
export { ResultHandles } from "./context/handles.js";
export { defaultAnchor } from "./context/shape-result.js";
export { contextWindowFor } from "./context/tokens.js";
export { closestNames, didYouMean, oneLine } from "./errors.js";
export { oauthStoreFolder, oauthStorePath } from "./fleet/oauth-token-file.js";
export { openInBrowser } from "./fleet/open-in-browser.js";
export * from "./index.js";
export { followCatalog, unmatchedWarnings } from "./routing/catalog-router.js";
export { embeddingsSpec, rerankerSpec } from "./routing/from-config.js";
export { openSqlite, SqliteEngineMissing } from "./store/sqlite-engine.js";
export type { SessionHandle } from "./store/store.js";
