// The catalog's fixed numbers: the names suggested for a mistyped one, and how long a cached catalog is
// trusted. No config key sets them.

/** Names suggested when a tool name is not in the catalog ("did you mean …"). */
export const DEFAULT_MAX_SUGGESTIONS = 3;

/**
 * How long the CLI's cached catalog (`tools`, `describe`, and which server `call` starts) is trusted
 * when nothing it can check has changed (the server's config, its script file): a server's tools can
 * change without either, so the cache is listed again after this.
 */
export const DEFAULT_CATALOG_CACHE_MAX_AGE_MS = 86_400_000;
