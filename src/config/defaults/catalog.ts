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

/**
 * The most files one skill may list (the Skills extension, SEP-2640: hosts must take up to 512, and
 * Switchyard takes no more): a skill whose entry lists more is refused before anything is read.
 */
export const DEFAULT_SKILL_MAX_FILES = 512;

/**
 * The most bytes one skill's files may add up to (SEP-2640: 16 MiB), counted over its entry's sizes:
 * a bigger skill is refused before anything is read.
 */
export const DEFAULT_SKILL_MAX_BYTES = 16_777_216;
