import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  baseToolName,
  type CatalogEntry,
  DEFAULT_CATALOG_CACHE_MAX_AGE_MS,
  type ServerConfig,
  type Switchyard,
  type SwitchyardConfig,
  toolNamePrefix,
} from "../internal.js";
import { PACKAGE_VERSION } from "./version.js";

/**
 * The CLI's catalog cache: what `tools`, `describe` and `call` know of a fleet without starting it.
 *
 * One file per config file, under `$XDG_CACHE_HOME/switchyard/` (else `~/.cache/switchyard/`), written
 * after a command connected the whole fleet and every enabled server was ready. It is trusted only
 * while every enabled server's fingerprint is the same — its resolved config entry (command, args, url,
 * env, headers, namespace, filters …) and, when its command or first argument is a file, that file's
 * size and modification time — and for at most {@link DEFAULT_CATALOG_CACHE_MAX_AGE_MS}.
 */

/** Bumped when the file's shape changes: older files are then ignored. */
const CACHE_FORMAT = 1;

interface CacheFile {
  format: number;
  /** The Switchyard version that wrote it: naming may change between versions. */
  version: string;
  configFile: string;
  /** When it was written, ms since the epoch. */
  writtenAt: number;
  /** Every enabled server: its fingerprint. */
  servers: Record<string, string>;
  /** Every catalog entry, as `describeTool` gives it. */
  tools: CatalogEntry[];
  /** Names that are not `<namespace>_<tool>` because another tool had that name first. */
  disambiguated: string[];
}

/** A catalog read from the cache. */
export interface CachedCatalog {
  tools: CatalogEntry[];
  /** How old it is, in ms. */
  ageMs: number;
  get(name: string): CatalogEntry | undefined;
  /** Whether a name had to be changed to avoid another tool's (the whole fleet decides it). */
  isDisambiguated(name: string): boolean;
}

/** The folder of the cache: `$XDG_CACHE_HOME/switchyard`, else `~/.cache/switchyard`. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec: a relative value is invalid and is ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache");
  return path.join(base, "switchyard");
}

/** The cache file of one config file. */
export function cacheFileFor(configFile: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = createHash("sha256").update(path.resolve(configFile)).digest("hex").slice(0, 16);
  return path.join(cacheDir(env), `catalog-${key}.json`);
}

/** What changes when a server may list other tools: its resolved entry and its script file. */
export function serverFingerprint(server: ServerConfig): string {
  const files = [server.command, server.args[0]]
    .filter((file): file is string => typeof file === "string" && file !== "")
    .map((file) => path.resolve(server.cwd, file))
    .map((file) => {
      try {
        const stat = statSync(file);
        return stat.isFile() ? { file, size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
      } catch {
        return undefined; // a bare command (`node`, `npx`) or an argument that is not a file
      }
    })
    .filter((file) => file !== undefined);
  return createHash("sha256").update(stableJson({ server, files })).digest("hex");
}

/**
 * The cached catalog of a config file, when it can be trusted: same enabled servers with the same
 * fingerprints, written by this version, and younger than `maxAgeMs`. Anything else: undefined.
 */
export function readCatalogCache(
  configFile: string,
  config: SwitchyardConfig,
  options: { now?: number; maxAgeMs?: number; env?: NodeJS.ProcessEnv } = {},
): CachedCatalog | undefined {
  const { now = Date.now(), maxAgeMs = DEFAULT_CATALOG_CACHE_MAX_AGE_MS } = options;
  let cached: CacheFile;
  try {
    cached = JSON.parse(readFileSync(cacheFileFor(configFile, options.env), "utf8")) as CacheFile;
  } catch {
    return undefined; // none yet, or unreadable: the fleet is asked instead
  }
  if (cached.format !== CACHE_FORMAT || cached.version !== PACKAGE_VERSION) return undefined;
  if (cached.configFile !== path.resolve(configFile)) return undefined;
  const ageMs = now - cached.writtenAt;
  if (!(ageMs >= 0 && ageMs < maxAgeMs)) return undefined;
  const enabled = config.servers.filter((server) => !server.disabled);
  if (Object.keys(cached.servers).length !== enabled.length) return undefined;
  for (const server of enabled) {
    if (cached.servers[server.name] !== serverFingerprint(server)) return undefined;
  }
  const byName = new Map(cached.tools.map((entry) => [entry.name, entry]));
  const disambiguated = new Set(cached.disambiguated);
  return {
    tools: cached.tools,
    ageMs,
    get: (name) => byName.get(name),
    isDisambiguated: (name) => disambiguated.has(name),
  };
}

/**
 * Write the catalog of a Switchyard that connected the whole config, when every enabled server is
 * ready (a failed server's tools are unknown: the next command asks again). Returns whether it wrote.
 * A cache that cannot be written is no error: the next command connects, as without one.
 */
export function writeCatalogCache(
  configFile: string,
  config: SwitchyardConfig,
  yard: Switchyard,
  options: { now?: number; env?: NodeJS.ProcessEnv } = {},
): boolean {
  const enabled = config.servers.filter((server) => !server.disabled);
  const states = new Map(yard.servers().map((state) => [state.name, state.status]));
  // A lazy server not started yet lists its cached catalog: as good as a ready one's.
  const listed = (status: string | undefined) => status === "ready" || status === "lazy";
  if (!enabled.every((server) => listed(states.get(server.name)))) return false;
  const namespaces = new Map(enabled.map((server) => [server.name, server.namespace]));
  const tools = yard
    .tools({ policy: false }) // the whole catalog: each command filters it for its identity
    .map((tool) => yard.describeTool(tool.name))
    .filter((entry) => entry !== undefined);
  const cached: CacheFile = {
    format: CACHE_FORMAT,
    version: PACKAGE_VERSION,
    configFile: path.resolve(configFile),
    writtenAt: options.now ?? Date.now(),
    servers: Object.fromEntries(enabled.map((server) => [server.name, serverFingerprint(server)])),
    tools,
    disambiguated: tools
      .filter(
        (entry) => entry.name !== baseToolName(namespaces.get(entry.server) ?? entry.server, entry.tool),
      )
      .map((entry) => entry.name),
  };
  const file = cacheFileFor(configFile, options.env);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(cached));
    renameSync(partial, file); // readers see the old file or the new one, never half of one
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a server's tools get the same names when it is connected alone as in the whole fleet: no
 * other enabled server can make a name that starts like its names (`namespace: false`, the same
 * namespace, or one that extends it, as `orders` and `orders_archive` do). Then only collisions among
 * its own tools can change a name, and they are settled the same way alone.
 */
export function namesStandAlone(config: SwitchyardConfig, server: ServerConfig): boolean {
  if (server.namespace === false) return false;
  const prefix = toolNamePrefix(server.namespace);
  return config.servers
    .filter((other) => !other.disabled && other.name !== server.name)
    .every((other) => {
      if (other.namespace === false) return false;
      const theirs = toolNamePrefix(other.namespace);
      return !theirs.startsWith(prefix) && !prefix.startsWith(theirs);
    });
}

/**
 * The one server a catalog name belongs to, if it can be known without the whole fleet: from the
 * cache (unless the name was disambiguated, which only the whole fleet settles), else from the name's
 * `<namespace>_` prefix when exactly one server's names start that way and stand alone. The caller
 * still checks that the server lists the name once connected.
 */
export function serverForTool(
  config: SwitchyardConfig,
  name: string,
  cache: CachedCatalog | undefined,
): string | undefined {
  if (cache) {
    const entry = cache.get(name);
    return entry && !cache.isDisambiguated(name) ? entry.server : undefined;
  }
  const enabled = config.servers.filter((server) => !server.disabled);
  const matches = enabled.filter(
    (server) => server.namespace !== false && name.startsWith(toolNamePrefix(server.namespace)),
  );
  if (matches.length !== 1 || !namesStandAlone(config, matches[0]!)) return undefined;
  return matches[0]!.name;
}

/** JSON with object keys sorted, so that the same value always hashes the same. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
