// One server entry resolved: checked against its schema, each key the entry leaves out taken from its
// default, paths made absolute, the transport chosen, the limit of calls in flight and the OAuth grant checked.

import path from "node:path";
import { check, invalid, unknownKey } from "./check.js";
import { resolveServerCache } from "./sections/cache.js";
import type { OAuthConfig } from "./sections/oauth.js";
import {
  type ConcurrencyConfig,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_CONCURRENCY,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_HEALTH,
  DEFAULT_INSTRUCTIONS_MAX_TOKENS,
  DEFAULT_LAZY_START,
  DEFAULT_MAX_QUEUE,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_RESTART,
  DEFAULT_RETRY,
  DEFAULT_VERSION_NEGOTIATION,
  type ServerConfig,
  type ServerEntry,
  serverEntrySchema,
} from "./sections/server.js";
import { isOneOf, TRANSPORT_ALIASES, TRANSPORT_KINDS, type TransportKind } from "./vocabulary.js";

const KNOWN_SERVER_KEYS = new Set(Object.keys(serverEntrySchema.shape));

/** What {@link resolveServer} needs: the entry, its name and JSON path, the folder, the warnings so far. */
export interface ServerInput {
  name: string;
  entry: unknown;
  at: string[];
  baseDir: string;
  warnings: string[];
}

/** One server entry checked and resolved: defaults filled, paths absolute, transport chosen. */
export function resolveServer({ name, entry: rawEntry, at, baseDir, warnings }: ServerInput): ServerConfig {
  if (typeof rawEntry !== "object" || rawEntry === null || Array.isArray(rawEntry)) {
    throw invalid(at.join("."), 'expected an object with "command" or "url"');
  }
  const unknown = Object.keys(rawEntry)
    .filter((key) => !KNOWN_SERVER_KEYS.has(key))
    .map((key) => unknownKey([...at, key], KNOWN_SERVER_KEYS));
  warnings.push(...unknown);
  const entry = check(serverEntrySchema, rawEntry, at);
  const transport = chooseTransport(entry, at, unknown);
  const cwd = path.resolve(baseDir, entry.cwd ?? ".");
  const command =
    entry.command && /[\\/]/.test(entry.command) ? path.resolve(cwd, entry.command) : entry.command;

  const concurrency = resolveConcurrency(entry, at);
  const server: ServerConfig = {
    name,
    transport: transport.kind,
    transportForced: transport.forced,
    args: entry.args ?? [],
    env: entry.env ?? {},
    cwd,
    ...(entry.cwd !== undefined ? { cwdGiven: true } : {}),
    headers: entry.headers ?? {},
    namespace: entry.namespace ?? name,
    allow: entry.tools?.allow ?? [],
    deny: entry.tools?.deny ?? [],
    descriptions: entry.descriptions ?? {},
    owns: entry.owns ?? [],
    tags: Array.isArray(entry.tags) ? { "*": entry.tags } : (entry.tags ?? {}),
    timeoutMs: entry.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    connectTimeoutMs: entry.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    maxConcurrency: concurrency.mode === "fixed" ? concurrency.limit : concurrency.max,
    concurrency,
    maxQueue: entry.maxQueue ?? DEFAULT_MAX_QUEUE,
    maxResultBytes: entry.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
    retry: withDefaults(DEFAULT_RETRY, entry.retry),
    health: withDefaults(DEFAULT_HEALTH, entry.health),
    restart: withDefaults(DEFAULT_RESTART, entry.restart),
    circuitBreaker: withDefaults(DEFAULT_CIRCUIT_BREAKER, entry.circuitBreaker),
    versionNegotiation: entry.versionNegotiation ?? DEFAULT_VERSION_NEGOTIATION,
    disabled: entry.disabled ?? false,
    lazy: entry.lazy ?? DEFAULT_LAZY_START,
    instructionsMaxTokens:
      entry.instructions === false ? 0 : (entry.instructions?.maxTokens ?? DEFAULT_INSTRUCTIONS_MAX_TOKENS),
  };
  if (entry.maxTotalTimeoutMs !== undefined) server.maxTotalTimeoutMs = entry.maxTotalTimeoutMs;
  if (entry.rateLimit !== undefined) server.rateLimit = entry.rateLimit;
  if (command !== undefined) server.command = command;
  if (entry.url !== undefined) server.url = entry.url;
  if (entry.oauth !== undefined) server.oauth = resolveOAuth(entry.oauth, at, warnings);
  if (entry.cache !== undefined) server.cache = resolveServerCache(entry.cache);
  if (entry.source !== undefined) server.source = entry.source;
  if (entry.fallback !== undefined)
    server.fallback = typeof entry.fallback === "string" ? [entry.fallback] : [...new Set(entry.fallback)];
  return server;
}

/**
 * The limit of calls in flight: `maxConcurrency: n` fixes it (as before the adaptive limit existed);
 * absent or `"auto"`, it adapts within `concurrency` (defaults: DEFAULT_CONCURRENCY).
 */
function resolveConcurrency(entry: ServerEntry, at: string[]): ConcurrencyConfig {
  if (typeof entry.maxConcurrency === "number") {
    if (entry.concurrency !== undefined)
      throw invalid(
        [...at, "concurrency"].join("."),
        `the adaptive limit's bounds do not apply with a fixed "maxConcurrency": ${entry.maxConcurrency}; remove one of them (or set "maxConcurrency": "auto")`,
      );
    return { mode: "fixed", limit: entry.maxConcurrency };
  }
  const given = entry.concurrency ?? {};
  const min = given.min ?? Math.min(DEFAULT_CONCURRENCY.min, given.max ?? DEFAULT_CONCURRENCY.min);
  const max = given.max ?? Math.max(DEFAULT_CONCURRENCY.max, min);
  if (min > max)
    throw invalid([...at, "concurrency"].join("."), `expected "min" (${min}) to be at most "max" (${max})`);
  const initial = given.initial ?? Math.min(max, Math.max(min, DEFAULT_CONCURRENCY.initial));
  if (initial < min || initial > max)
    throw invalid(
      [...at, "concurrency", "initial"].join("."),
      `expected a number from "min" (${min}) to "max" (${max}), got ${initial}`,
    );
  return {
    mode: "adaptive",
    min,
    max,
    initial,
    tolerance: given.tolerance ?? DEFAULT_CONCURRENCY.tolerance,
    slackMs: given.slackMs ?? DEFAULT_CONCURRENCY.slackMs,
  };
}

/** A section with every key the config left out (or set to undefined) taken from its defaults. */
function withDefaults<T extends Record<string, unknown>>(
  defaults: Readonly<T>,
  given: { [K in keyof T]?: T[K] | undefined } | undefined,
): T {
  const filled: T = { ...defaults };
  for (const key of Object.keys(defaults) as Array<keyof T>) {
    const value = given?.[key];
    if (value !== undefined) filled[key] = value;
  }
  return filled;
}

/** The entry's transport; `unknown` (its unknown keys' warnings) is said too when none can be chosen: "comand". */
function chooseTransport(
  entry: ServerEntry,
  at: string[],
  unknown: readonly string[],
): { kind: TransportKind; forced: boolean } {
  const declared = entry.transport ?? normalizeType(entry.type);
  const where = at.join(".");
  if (declared === "stdio" || (declared === undefined && entry.url === undefined)) {
    if (entry.command === undefined) {
      throw invalid(
        where,
        `expected "command" (a stdio server) or "url" (an HTTP server)${unknown.map((line) => `; ${line}`).join("")}`,
      );
    }
    return { kind: "stdio", forced: declared !== undefined };
  }
  if (entry.url === undefined) throw invalid(`${where}.url`, `expected a URL for a "${declared}" server`);
  return { kind: declared ?? "http", forced: declared !== undefined };
}

function normalizeType(type: ServerEntry["type"]): TransportKind | undefined {
  if (type === undefined || isOneOf(TRANSPORT_KINDS, type)) return type;
  return TRANSPORT_ALIASES[type];
}

function resolveOAuth(
  section: NonNullable<ServerEntry["oauth"]>,
  at: string[],
  warnings: string[],
): OAuthConfig {
  const where = [...at, "oauth"].join(".");
  const { grant = "authorization_code", scopes = [], ...rest } = section;
  const oauth: OAuthConfig = { grant, scopes };
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) Object.assign(oauth, { [key]: value });
  }
  const needs = (keys: Array<keyof OAuthConfig>, why: string) => {
    const missing = keys.filter((key) => oauth[key] === undefined);
    if (missing.length)
      throw invalid(
        where,
        `the "${grant}" grant needs ${missing.map((key) => `"${key}"`).join(" and ")} (${why})`,
      );
  };
  if (grant === "client_credentials") {
    needs(["clientId"], "the client registered with the authorization server");
    if (!oauth.clientSecret && !oauth.privateKey)
      throw invalid(
        where,
        'the "client_credentials" grant needs "clientSecret" (client_secret_basic) or "privateKey" (a PEM key for private_key_jwt)',
      );
  }
  if (grant === "cross_app_access") {
    needs(
      ["clientId", "clientSecret", "idp"],
      "the client at the MCP server's authorization server, and the identity provider",
    );
  }
  if (grant !== "authorization_code" && !oauth.issuer)
    warnings.push(
      `${where}: no "issuer": the client's credentials go to whichever authorization server the server names; set "issuer" to send them to that one only`,
    );
  if (oauth.privateKey && grant !== "client_credentials")
    warnings.push(`${where}.privateKey: used by the "client_credentials" grant only; ignored`);
  return oauth;
}
