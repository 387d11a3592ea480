// A config object resolved: its placeholders filled, its top level checked, each server entry resolved
// (resolve-server.ts), the other sections kept, the store's path and the roots made absolute.

import path from "node:path";
import { check, invalid, unknownKey } from "./check.js";
import { checkFallbacks } from "./fallbacks.js";
import { interpolate } from "./interpolate.js";
import { resolveServer } from "./resolve-server.js";
import {
  configFileSchema,
  inputsSchema,
  type Substitution,
  type SwitchyardConfig,
} from "./sections/config-file.js";
import { registriesSchema } from "./sections/registries.js";
import type { StoreSection } from "./sections/store.js";

const KNOWN_TOP_KEYS = new Set(Object.keys(configFileSchema.shape));

/** Options of {@link resolveConfig}. */
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
  // A registry's token is needed only by `search` and `add`: left unfilled, so that a variable unset
  // where nobody adds servers does not stop the config from loading.
  const { inputs: declaredInputs, registries, ...rest } = raw as Record<string, unknown>;
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
    // What fills a server's env or headers is the server's credentials as often as not: secret either way.
    filled: (variable, value, secret, at) =>
      substitutions.push({ variable, value, ...(secret || isServerSecretPath(at) ? { secret: true } : {}) }),
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
  checkFallbacks(servers, section);
  const config: SwitchyardConfig = { servers, baseDir, warnings };
  if (top.model) config.model = top.model;
  if (top.agent) config.agent = top.agent;
  if (top.routing) config.routing = resolveRouting(top.routing, baseDir);
  if (top.redact) config.redact = top.redact;
  if (top.security) config.security = top.security;
  if (top.audit) config.audit = top.audit;
  if (substitutions.length) config.substitutions = substitutions;
  if (top.identity) config.identity = top.identity;
  if (top.policy) config.policy = top.policy;
  if (top.gateway) config.gateway = top.gateway;
  if (top.limits) config.limits = top.limits;
  if (registries !== undefined) config.registries = check(registriesSchema, registries, ["registries"]);
  if (top.store !== undefined) config.store = resolveStore(top.store, baseDir);
  // Roots are exactly what the config says: none unless set (a server told of a folder it was not
  // configured with may take it as where it may work — server-filesystem then serves that folder).
  if (top.roots) config.roots = top.roots.map((folder) => path.resolve(baseDir, folder));
  return config;
}

/** Whether a string at this path of the config is a server's `env` or `headers` value. */
function isServerSecretPath(at: readonly string[]): boolean {
  return (at[0] === "mcpServers" || at[0] === "servers") && (at[2] === "env" || at[2] === "headers");
}

/** The `routing` section, its local models' paths made absolute. */
function resolveRouting(
  routing: NonNullable<SwitchyardConfig["routing"]>,
  baseDir: string,
): NonNullable<SwitchyardConfig["routing"]> {
  const { embeddings, reranker } = routing;
  return {
    ...routing,
    ...(embeddings?.path === undefined
      ? {}
      : { embeddings: { ...embeddings, path: path.resolve(baseDir, embeddings.path) } }),
    ...(reranker ? { reranker: { ...reranker, path: path.resolve(baseDir, reranker.path) } } : {}),
  };
}

/** The `store` section: one of `path` and `url`, the path made absolute. */
function resolveStore(store: StoreSection, baseDir: string): StoreSection {
  if (store === false) return false;
  if (store.path !== undefined && store.url !== undefined)
    throw invalid("store", 'expected either "path" (SQLite) or "url" (PostgreSQL), not both');
  if (store.path !== undefined) return { path: path.resolve(baseDir, store.path) };
  return store.url !== undefined ? { url: store.url } : {};
}
