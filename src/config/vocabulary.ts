// The words config files, options and flags accept: one `as const` list per vocabulary, from which the
// types, the schema's enums and the error messages are all derived. Imports nothing.

/** How a server is reached once the config is resolved. */
export const TRANSPORT_KINDS = ["stdio", "http", "sse"] as const;
export type TransportKind = (typeof TRANSPORT_KINDS)[number];

/** Other clients' spellings of a server's `type`, and the transport each one means. */
export const TRANSPORT_ALIASES = {
  "streamable-http": "http",
  streamableHttp: "http",
} as const satisfies Record<string, TransportKind>;
export type TransportAlias = keyof typeof TRANSPORT_ALIASES;

/** Every value a server's `type` key accepts: the transport kinds and their aliases. */
export const TRANSPORT_TYPES: ReadonlyArray<TransportKind | TransportAlias> = [
  ...TRANSPORT_KINDS,
  ...(Object.keys(TRANSPORT_ALIASES) as TransportAlias[]),
];

/** The named modes of `versionNegotiation`; `{ "pin": "<protocol version>" }` is the third form. */
export const VERSION_NEGOTIATION_MODES = ["legacy", "auto"] as const;
export type VersionNegotiationMode = (typeof VERSION_NEGOTIATION_MODES)[number];

/** Log levels, quietest last. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How log lines are written: `pretty`, one readable line per entry, or `json`, pino's JSON lines. */
export const LOG_FORMATS = ["pretty", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The routing strategies that can be named in the config, in options and on the command line. */
export const STRATEGY_NAMES = ["lexical", "two-stage", "embedding", "hybrid", "plain-bm25"] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/**
 * OAuth grants a `url` server's `oauth.grant` names: a user's login (`authorization_code`), machine to
 * machine (`client_credentials`, with a secret or a private key), or an enterprise identity provider's
 * token exchanged for access (`cross_app_access`).
 */
export const OAUTH_GRANTS = ["authorization_code", "client_credentials", "cross_app_access"] as const;
export type OAuthGrant = (typeof OAUTH_GRANTS)[number];

/** What a high finding does to its tool (`security.onFinding`): `quarantine` it (not listed, calls refused), only `warn`, or `off` (no scans). */
export const ON_FINDING_MODES = ["quarantine", "warn", "off"] as const;
export type OnFinding = (typeof ON_FINDING_MODES)[number];

/**
 * What a request does when its audit entry cannot be written (`audit.onWriteError`): `fail` it (the
 * caller gets `STORE_ERROR`, never a result without its row), or `continue`, said loudly and marked in
 * the chain as a gap.
 */
export const AUDIT_WRITE_ERROR_MODES = ["fail", "continue"] as const;
export type AuditWriteErrorMode = (typeof AUDIT_WRITE_ERROR_MODES)[number];

/** `"a", "b" or "c"`: a vocabulary as error messages spell it. */
export function quotedList(words: readonly string[]): string {
  const quoted = words.map((word) => `"${word}"`);
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

/** True when `word` belongs to `words`, narrowing it to the vocabulary's type. */
export function isOneOf<const T extends string>(words: readonly T[], word: unknown): word is T {
  return typeof word === "string" && (words as readonly string[]).includes(word);
}

/**
 * How the agent offers tools (`routing.mode`): `route` (the router's picks, each step), `search` (a
 * `search_tools` tool plus the tools found so far), `all` (every tool), `auto` (search above
 * `routing.searchAbove` tools, route below).
 */
export const ROUTING_MODES = ["auto", "route", "search", "all"] as const;
export type RoutingMode = (typeof ROUTING_MODES)[number];

/** How urgent a request is (`priority`): a fleet-wide limit (`limits.inFlight`) serves `high` first, `low` last. */
export const CALL_PRIORITIES = ["high", "normal", "low"] as const;
export type CallPriority = (typeof CALL_PRIORITIES)[number];
