import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client, Prompt, Resource, ResourceTemplateType, Tool } from "@modelcontextprotocol/client";
import { DEFAULT_CATALOG_CACHE_MAX_AGE_MS } from "../config/defaults.js";
import type { ServerConfig } from "../config/schema.js";

/**
 * The catalog of a `lazy: true` server, kept between runs so that `connect` can list its tools
 * without starting it: one file per server launch, under `$XDG_CACHE_HOME/switchyard/servers/`
 * (else `~/.cache/switchyard/servers/`), named by what starts or reaches the server (transport,
 * command, args, URL, working folder). Inside, a fingerprint of the rest that may change what it
 * lists — its environment and headers (hashed, never stored), and the size and modification time of
 * its command or first argument when that is a file — and the version its last handshake gave. It is
 * trusted while the fingerprint is the same and for at most {@link DEFAULT_CATALOG_CACHE_MAX_AGE_MS};
 * the server's own lists replace it as soon as it starts. The CLI's cache (cli/catalog-cache.ts) is
 * another file, of a whole config's catalog.
 */

/** Bumped when the file's shape changes: older files are then ignored. */
const CACHE_FORMAT = 1;

/** What a server listed in its last life, as a lazy start shows it before it runs again. */
export interface CachedServerCatalog {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplateType[];
  prompts: Prompt[];
  instructions?: string;
  /** `serverInfo` of the handshake that listed them. */
  serverInfo?: { name: string; version: string };
  protocolVersion?: string;
  /** Whether the server offered `resources/subscribe`. */
  subscriptions: boolean;
}

interface CacheFile extends CachedServerCatalog {
  format: number;
  fingerprint: string;
  writtenAt: number;
}

export interface CacheOptions {
  env?: NodeJS.ProcessEnv;
  now?: number;
  maxAgeMs?: number;
}

/** The folder of the servers' catalogs: `$XDG_CACHE_HOME/switchyard/servers`, else `~/.cache/…`. */
export function serverCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec: a relative value is invalid and is ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache");
  return path.join(base, "switchyard", "servers");
}

/** The cache file of one server's launch (transport, command, args, URL, working folder). */
export function serverCacheFile(server: ServerConfig, env: NodeJS.ProcessEnv = process.env): string {
  const launch = [server.transport, server.command ?? "", server.args, server.url ?? "", server.cwd];
  const key = createHash("sha256").update(JSON.stringify(launch)).digest("hex").slice(0, 24);
  return path.join(serverCacheDir(env), `${key}.json`);
}

/** The launch and what else may change the server's lists: env, headers, its script file. */
export function serverLaunchFingerprint(server: ServerConfig): string {
  const files = [server.command, server.args[0]]
    .filter((file): file is string => typeof file === "string" && file !== "")
    .map((file) => path.resolve(server.cwd, file))
    .map((file) => {
      try {
        const stat = statSync(file);
        return stat.isFile() ? [file, stat.size, stat.mtimeMs] : undefined;
      } catch {
        return undefined; // a bare command (`node`, `npx`) or an argument that is not a file
      }
    })
    .filter((file) => file !== undefined);
  const sorted = (record: Record<string, string>) =>
    Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1));
  const launch = {
    transport: server.transport,
    command: server.command ?? null,
    args: server.args,
    url: server.url ?? null,
    cwd: server.cwd,
    env: sorted(server.env),
    headers: sorted(server.headers),
    files,
  };
  return createHash("sha256").update(JSON.stringify(launch)).digest("hex");
}

/** The server's cached catalog when it can be trusted; undefined when there is none or it is stale. */
export function readServerCatalog(
  server: ServerConfig,
  options: CacheOptions = {},
): CachedServerCatalog | undefined {
  const { now = Date.now(), maxAgeMs = DEFAULT_CATALOG_CACHE_MAX_AGE_MS } = options;
  let cached: CacheFile;
  try {
    cached = JSON.parse(readFileSync(serverCacheFile(server, options.env), "utf8")) as CacheFile;
  } catch {
    return undefined; // none yet, or unreadable: the server is started instead
  }
  if (cached.format !== CACHE_FORMAT || !Array.isArray(cached.tools)) return undefined;
  const ageMs = now - cached.writtenAt;
  if (!(ageMs >= 0 && ageMs < maxAgeMs)) return undefined;
  if (cached.fingerprint !== serverLaunchFingerprint(server)) return undefined;
  const { format: _format, fingerprint: _fingerprint, writtenAt: _writtenAt, ...catalog } = cached;
  return catalog;
}

/**
 * Keep what a server listed for its next lazy start. A cache that cannot be written is no error: the
 * next connect starts the server, as without one. Returns whether it wrote.
 */
export function writeServerCatalog(
  server: ServerConfig,
  catalog: CachedServerCatalog,
  options: CacheOptions = {},
): boolean {
  const file = serverCacheFile(server, options.env);
  const content: CacheFile = {
    format: CACHE_FORMAT,
    fingerprint: serverLaunchFingerprint(server),
    writtenAt: options.now ?? Date.now(),
    ...catalog,
  };
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(content));
    renameSync(partial, file); // readers see the old file or the new one, never half of one
    return true;
  } catch {
    return false;
  }
}

/** Keep what a started server lists, with what its handshake said, for its next lazy connect. */
export function rememberServerCatalog(
  server: ServerConfig,
  client: Client,
  lists: Pick<CachedServerCatalog, "tools" | "resources" | "resourceTemplates" | "prompts">,
): boolean {
  const serverInfo = client.getServerVersion();
  const protocolVersion = client.getNegotiatedProtocolVersion();
  const instructions = client.getInstructions();
  return writeServerCatalog(server, {
    tools: lists.tools,
    resources: lists.resources,
    resourceTemplates: lists.resourceTemplates,
    prompts: lists.prompts,
    subscriptions: client.getServerCapabilities()?.resources?.subscribe === true,
    ...(instructions !== undefined ? { instructions } : {}),
    ...(serverInfo ? { serverInfo: { name: serverInfo.name, version: serverInfo.version } } : {}),
    ...(protocolVersion ? { protocolVersion } : {}),
  });
}
