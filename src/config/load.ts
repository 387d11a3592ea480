import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { closestNames, SwitchyardError } from "../errors.js";
import { parseYaml } from "../lazy-require.js";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_CONCURRENCY,
  DEFAULT_CONFIG_FILES,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_HEALTH,
  DEFAULT_LAZY_START,
  DEFAULT_MAX_QUEUE,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_RESTART,
  DEFAULT_RETRY,
  DEFAULT_ROOTS,
  DEFAULT_VERSION_NEGOTIATION,
} from "./defaults.js";
import { type ConfigInput, inputVariable, interpolate, usedInputs } from "./interpolate.js";
import { parseJsonc } from "./jsonc.js";
import {
  type ConcurrencyConfig,
  configFileSchema,
  inputsSchema,
  type OAuthConfig,
  type ServerConfig,
  type ServerEntry,
  type StoreSection,
  type Substitution,
  type SwitchyardConfig,
  serverEntrySchema,
} from "./schema.js";
import { isOneOf, TRANSPORT_ALIASES, TRANSPORT_KINDS, type TransportKind } from "./vocabulary.js";

// Once defined here; re-exported for the old import path.
export { DEFAULT_CONFIG_FILES } from "./defaults.js";

const KNOWN_SERVER_KEYS = new Set(Object.keys(serverEntrySchema.shape));
const KNOWN_TOP_KEYS = new Set(Object.keys(configFileSchema.shape));

export interface ResolveOptions {
  /** Folder that relative paths resolve against; default: the working directory. */
  baseDir?: string;
  /** Variables for `${NAME}`; default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** Values for `${input:id}` (VS Code's inputs), by id; else `SWITCHYARD_INPUT_<ID>`, else the input's default. */
  inputs?: Readonly<Record<string, string>>;
}

/**
 * Check and resolve a config object (the shape of the config file).
 * @throws SwitchyardError `CONFIG_INVALID` naming the JSON path of the first bad key and what was expected.
 */
export function resolveConfig(raw: unknown, options: ResolveOptions = {}): SwitchyardConfig {
  const baseDir = path.resolve(options.baseDir ?? process.cwd());
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw invalid("", 'expected an object with "mcpServers" (or "servers")');
  }
  const { inputs: declaredInputs, ...rest } = raw as Record<string, unknown>;
  const declared = new Map(
    (declaredInputs === undefined ? [] : check(inputsSchema, declaredInputs, ["inputs"])).map((entry) => [
      entry.id,
      entry,
    ]),
  );
  const substitutions: Substitution[] = [];
  const input = interpolate(rest, {
    env: options.env ?? process.env,
    configDir: baseDir,
    declared,
    filled: (variable, value, secret) =>
      substitutions.push({ variable, value, ...(secret ? { secret: true } : {}) }),
    ...(options.inputs ? { inputs: options.inputs } : {}),
  }) as Record<string, unknown>;
  const top = check(configFileSchema, input, []);
  const warnings: string[] = [];
  for (const key of Object.keys(input)) {
    if (!KNOWN_TOP_KEYS.has(key)) warnings.push(unknownKey([key], KNOWN_TOP_KEYS));
  }
  const section = top.mcpServers ? "mcpServers" : "servers";
  const entries = top.mcpServers ?? top.servers;
  if (top.mcpServers && top.servers) {
    throw invalid("servers", 'use either "mcpServers" or "servers", not both');
  }
  if (!entries) throw invalid("mcpServers", "expected an object of server entries (none found)");

  const servers = Object.entries(entries).map(([name, entry]) =>
    resolveServer({ name, entry, at: [section, name], baseDir, warnings }),
  );
  const config: SwitchyardConfig = { servers, baseDir, warnings };
  if (top.model) config.model = top.model;
  if (top.agent) config.agent = top.agent;
  if (top.routing) config.routing = top.routing;
  if (top.redact) config.redact = top.redact;
  if (substitutions.length) config.substitutions = substitutions;
  if (top.identity) config.identity = top.identity;
  if (top.policy) config.policy = top.policy;
  if (top.gateway) config.gateway = top.gateway;
  if (top.store !== undefined) config.store = resolveStore(top.store, baseDir);
  config.roots = (top.roots ?? DEFAULT_ROOTS).map((folder) => path.resolve(baseDir, folder));
  return config;
}

/** The `store` section: one of `path` and `url`, the path made absolute. */
function resolveStore(store: StoreSection, baseDir: string): StoreSection {
  if (store === false) return false;
  if (store.path !== undefined && store.url !== undefined)
    throw invalid("store", 'expected either "path" (SQLite) or "url" (PostgreSQL), not both');
  if (store.path !== undefined) return { path: path.resolve(baseDir, store.path) };
  return store.url !== undefined ? { url: store.url } : {};
}

/**
 * Read, parse and resolve a config file (JSON with comments and trailing commas allowed, or YAML by
 * extension); relative paths resolve against its folder.
 * @throws SwitchyardError `CONFIG_INVALID` when the file is missing, unparsable or invalid.
 */
export function loadConfigFile(
  file: string,
  env?: Record<string, string | undefined>,
  options: { inputs?: Readonly<Record<string, string>> } = {},
): SwitchyardConfig {
  const absolute = path.resolve(file);
  const raw = readConfigFile(absolute);
  try {
    return resolveConfig(raw, {
      baseDir: path.dirname(absolute),
      ...(env ? { env } : {}),
      ...(options.inputs ? { inputs: options.inputs } : {}),
    });
  } catch (error) {
    if (error instanceof SwitchyardError) {
      throw new SwitchyardError(error.code, `${path.basename(absolute)}: ${error.message}`, {
        ...(error.path !== undefined ? { path: error.path } : {}),
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * The inputs (`${input:id}`) a config file uses that nothing answers yet — neither `SWITCHYARD_INPUT_<ID>`
 * nor a default — for a program to ask the user before loading it.
 * @throws SwitchyardError `CONFIG_INVALID` when the file is missing or unparsable.
 */
export function pendingConfigInputs(
  file: string,
  env: Record<string, string | undefined> = process.env,
): ConfigInput[] {
  const raw = readConfigFile(path.resolve(file));
  if (typeof raw !== "object" || raw === null) return [];
  const { inputs, ...rest } = raw as Record<string, unknown>;
  const parsed = inputsSchema.safeParse(inputs ?? []);
  const declared = new Map((parsed.success ? parsed.data : []).map((entry) => [entry.id, entry]));
  return [...usedInputs(rest)]
    .filter((id) => env[inputVariable(id)] === undefined && declared.get(id)?.default === undefined)
    .map((id) => {
      const entry = declared.get(id);
      return {
        id,
        ...(entry?.description !== undefined ? { description: entry.description } : {}),
        ...(entry?.password !== undefined ? { password: entry.password } : {}),
      };
    });
}

function readConfigFile(absolute: string): unknown {
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (cause) {
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `cannot read config file ${absolute}: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  if (/\.ya?ml$/i.test(absolute)) {
    try {
      return parseYaml(text);
    } catch (cause) {
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `${absolute} is not valid YAML: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
  }
  const parsed = parseJsonc(text);
  if (parsed.ok) return parsed.value;
  throw new SwitchyardError(
    "CONFIG_INVALID",
    `${absolute} is not valid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.problem}`,
  );
}

/**
 * Find the config file: the explicit path, else `$SWITCHYARD_CONFIG`, else the default names in `cwd`.
 * @throws SwitchyardError `CONFIG_INVALID` when none is found, saying how to give one.
 */
export function findConfigFile(explicit: string | undefined, cwd = process.cwd()): string {
  const named = explicit ?? process.env.SWITCHYARD_CONFIG;
  if (named) {
    const absolute = path.resolve(cwd, named);
    if (!existsSync(absolute))
      throw new SwitchyardError("CONFIG_INVALID", `config file not found: ${absolute}`);
    return absolute;
  }
  for (const name of DEFAULT_CONFIG_FILES) {
    const candidate = path.join(cwd, name);
    if (existsSync(candidate)) return candidate;
  }
  throw new SwitchyardError(
    "CONFIG_INVALID",
    `no config file: pass --config <file>, set SWITCHYARD_CONFIG, or create ${DEFAULT_CONFIG_FILES[0]} in ${cwd}`,
  );
}

interface ServerInput {
  name: string;
  entry: unknown;
  at: string[];
  baseDir: string;
  warnings: string[];
}

function resolveServer({ name, entry: rawEntry, at, baseDir, warnings }: ServerInput): ServerConfig {
  if (typeof rawEntry !== "object" || rawEntry === null || Array.isArray(rawEntry)) {
    throw invalid(at.join("."), 'expected an object with "command" or "url"');
  }
  for (const key of Object.keys(rawEntry)) {
    if (!KNOWN_SERVER_KEYS.has(key)) warnings.push(unknownKey([...at, key], KNOWN_SERVER_KEYS));
  }
  const entry = check(serverEntrySchema, rawEntry, at);
  const transport = chooseTransport(entry, at);
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
    headers: entry.headers ?? {},
    namespace: entry.namespace ?? name,
    allow: entry.tools?.allow ?? [],
    deny: entry.tools?.deny ?? [],
    descriptions: entry.descriptions ?? {},
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
  };
  if (entry.maxTotalTimeoutMs !== undefined) server.maxTotalTimeoutMs = entry.maxTotalTimeoutMs;
  if (command !== undefined) server.command = command;
  if (entry.url !== undefined) server.url = entry.url;
  if (entry.oauth !== undefined) server.oauth = resolveOAuth(entry.oauth, at, warnings);
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

function chooseTransport(entry: ServerEntry, at: string[]): { kind: TransportKind; forced: boolean } {
  const declared = entry.transport ?? normalizeType(entry.type);
  const where = at.join(".");
  if (declared === "stdio" || (declared === undefined && entry.url === undefined)) {
    if (entry.command === undefined) {
      throw invalid(where, 'expected "command" (a stdio server) or "url" (an HTTP server)');
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

function check<S extends z.ZodType>(schema: S, value: unknown, at: string[]): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = [...at, ...issue.path.map(String)].join(".");
  throw invalid(where, issue.message);
}

/** "mcpServers.x.comand: unknown key, ignored (did you mean command?)" */
function unknownKey(at: string[], known: ReadonlySet<string>): string {
  const key = at.at(-1)!;
  const near = closestKey(key, known);
  return `${at.join(".")}: unknown key, ignored${near ? ` (did you mean ${near}?)` : ""}`;
}

/** The known key a mistyped one most likely meant: the same but for case or a unit suffix, else the closest. */
function closestKey(key: string, known: ReadonlySet<string>): string | undefined {
  const lower = key.toLowerCase();
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    if (other === lower || other === `${lower}ms` || other === `${lower}s`) return candidate;
  }
  return closestNames(key, known, 1)[0];
}

function invalid(where: string, expected: string): SwitchyardError {
  return new SwitchyardError("CONFIG_INVALID", where ? `${where}: ${expected}` : expected, { path: where });
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
