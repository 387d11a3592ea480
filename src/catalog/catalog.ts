import type { Tool } from "@modelcontextprotocol/client";
import { DEFAULT_MAX_SUGGESTIONS } from "../config/defaults.js";
import type { ServerConfig } from "../config/schema.js";
import { closestNames } from "../errors.js";
import { withoutHidden } from "../trust/clean.js";
import type { Finding } from "../trust/finding.js";
import { type Contest, type NameClaim, settleContests } from "./contests.js";
import { globMatcher } from "./glob.js";
import { assignToolName, baseToolName } from "./naming.js";
import { pinnedDefinition, type TrustGate } from "./trust-gate.js";

/** One tool in the catalog under its fleet-wide name. */
export interface CatalogEntry {
  /** Unique, model-safe name (`^[a-zA-Z0-9_-]{1,64}$`). */
  name: string;
  /** The server's config key. */
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  /** The description offered to the model (the config's override, else the server's). */
  description: string;
  inputSchema: Tool["inputSchema"];
  outputSchema?: Tool["outputSchema"];
  annotations?: Tool["annotations"];
  title?: string;
  /**
   * Why the tool cannot be called from here, when it cannot: it is listed, never offered to a model,
   * and calls to it are refused with `CAPABILITY_MISSING`. Tools that must run as tasks
   * (`execution.taskSupport: "required"`) are called (followed as tasks), so nothing sets it today.
   */
  unsupported?: string;
  /**
   * The server's `_meta` of the tool (hidden text stripped), as the gateway passes it on: an MCP App's
   * `ui.resourceUri` and `ui.visibility` among what it may hold.
   */
  _meta?: Record<string, unknown>;
  /**
   * The server offers the tool to its app alone (MCP Apps, `_meta.ui.visibility` without `"model"`):
   * listed and callable (the gateway's clients' apps call it), never offered to a model.
   */
  appOnly?: true;
  /**
   * The high findings that quarantine the tool (trust/): it is not listed (`entries()`), and calls to it
   * are refused with `TOOL_QUARANTINED`, until the server changes it back or `trust` accepts it.
   */
  quarantine?: readonly Finding[];
}

/**
 * One change of what the catalog lists: tools of one server added, removed or changed (catalog
 * names). A server that goes down shows as all its tools removed, one that comes back as added.
 */
export interface CatalogChange {
  /** The catalog's version after the change. */
  version: number;
  server: string;
  added: string[];
  removed: string[];
  /** Listed before and after, with a new description, schema or annotations. */
  changed: string[];
}

interface ServerRules {
  namespace: string | false;
  allowed: (tool: string) => boolean;
  /** The config's `owns`: its tools that keep their name when another server's tool wants it too. */
  owns: (tool: string) => boolean;
  descriptions: Record<string, string>;
}

/**
 * Every tool of the fleet under a unique model-safe name, mapped back to (server, tool) through this
 * table, never by splitting the name. A name, once given, stays with its tool for the catalog's life,
 * across `tools/list_changed` refreshes and server restarts.
 *
 * The catalog is live: it lists the tools of the servers that can take calls (ready, or restarting
 * and keeping their calls waiting), and tells listeners of every change, with a version number.
 */
export class Catalog {
  readonly #rules = new Map<string, ServerRules>();
  readonly #entries = new Map<string, CatalogEntry>();
  /** `server\0tool` → name: names are reserved even while their tool is gone. */
  readonly #names = new Map<string, string>();
  /** Servers whose tools are listed. */
  readonly #listed = new Set<string>();
  /** Names tools of several servers wanted, settled by the config (no owner: withheld for the catalog's life). */
  readonly #contests = new Map<string, Contest>();
  readonly #listeners = new Set<(change: CatalogChange) => void>();
  #version = 0;

  /** Goes up with each change of what the catalog lists. */
  get version(): number {
    return this.#version;
  }

  /** Be told of every change; returns the function that stops it. A listener must not throw. */
  onChange(listener: (change: CatalogChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Whether a server's tools are listed (it can take calls). */
  isListed(server: string): boolean {
    return this.#listed.has(server);
  }

  /** List or unlist a server's tools as it comes up or goes down. */
  setServerListed(server: string, listed: boolean): void {
    if (this.#listed.has(server) === listed) return;
    const before = this.#listedEntries(server);
    if (listed) this.#listed.add(server);
    else this.#listed.delete(server);
    this.#changed(server, before);
  }

  readonly #onWarning: (message: string) => void;
  /** Renamed tools already warned about, as `server\0tool`. */
  readonly #warned = new Set<string>();

  readonly #trust: TrustGate | undefined;

  /**
   * @param onWarning told once per tool whose name had to change (a collision under `namespace: false`).
   * @param trust asked before a server's tools are listed: scans, pins, quarantine.
   */
  constructor(servers: ServerConfig[], onWarning: (message: string) => void = () => {}, trust?: TrustGate) {
    this.#onWarning = onWarning;
    this.#trust = trust;
    for (const server of servers) {
      const allow = globMatcher(server.allow);
      const deny = globMatcher(server.deny);
      const owns = globMatcher(server.owns);
      this.#rules.set(server.name, {
        namespace: server.namespace,
        allowed: (tool) => (server.allow.length === 0 || allow(tool)) && !deny(tool),
        owns: (tool) => server.owns.length > 0 && owns(tool),
        descriptions: server.descriptions,
      });
    }
  }

  /**
   * Load the tools of several servers that are up, at once, in a deterministic order (server name,
   * then tool name), so that the same fleet always gets the same names; their tools are listed.
   */
  load(toolsByServer: ReadonlyMap<string, readonly Tool[]>): void {
    const servers = [...toolsByServer.keys()].sort();
    this.#settle(servers, toolsByServer);
    const named = new Map(servers.map((server) => [server, this.#named(server, toolsByServer.get(server)!)]));
    // Every server's names known to the trust gate before any is reviewed: a name that looks like a
    // later server's is seen in this one pass.
    for (const server of servers) this.#trust?.know(server, reviewed(named.get(server)!));
    for (const server of servers) {
      this.#place(server, named.get(server)!);
      this.setServerListed(server, true);
    }
  }

  /** Replace one server's tools; unchanged tools keep their names, new ones get fresh names. */
  setServerTools(server: string, tools: readonly Tool[]): void {
    this.#place(server, this.#named(server, tools));
  }

  /**
   * The names that tools of several servers being loaded want, none holding it yet: each goes where the
   * config says, never to the server that sorts first (see contests.ts).
   */
  #settle(servers: readonly string[], toolsByServer: ReadonlyMap<string, readonly Tool[]>): void {
    const held = new Set(this.#names.values());
    const claims: NameClaim[] = [];
    for (const server of servers) {
      const rules = this.#rules.get(server);
      if (!rules) continue;
      for (const tool of toolsByServer.get(server)!) {
        if (!rules.allowed(tool.name) || this.#names.has(`${server}\0${tool.name}`)) continue;
        const base = baseToolName(rules.namespace, tool.name);
        if (held.has(base) || this.#contests.has(base)) continue;
        claims.push({
          server,
          tool: tool.name,
          base,
          owns: rules.owns(tool.name),
          ownNamespace: rules.namespace === server,
        });
      }
    }
    for (const [name, contest] of settleContests(claims)) this.#contests.set(name, contest);
  }

  /** A server's allowed tools, sorted, each with its catalog name (kept for the catalog's life). */
  #named(server: string, tools: readonly Tool[]): Named[] {
    const rules = this.#rules.get(server);
    if (!rules) throw new Error(`unknown server ${server}`);
    const taken = new Set(this.#names.values());
    for (const contest of this.#contests.values()) if (contest.owner !== server) taken.add(contest.name);
    const kept = tools.filter((tool) => rules.allowed(tool.name)).sort((a, b) => compare(a.name, b.name));
    return kept.map((tool) => {
      const key = `${server}\0${tool.name}`;
      let name = this.#names.get(key);
      if (name === undefined) {
        name = assignToolName({ namespace: rules.namespace, server, tool: tool.name }, taken);
        this.#names.set(key, name);
        taken.add(name);
        this.#warnIfRenamed(server, tool.name, rules.namespace, name);
      }
      return { name, tool };
    });
  }

  /** Put a server's named tools in the catalog, after the trust gate's review, and tell the listeners. */
  #place(server: string, named: readonly Named[]): void {
    const rules = this.#rules.get(server)!;
    const before = this.#listedEntries(server);
    for (const [name, entry] of this.#entries) if (entry.server === server) this.#entries.delete(name);
    const quarantined = this.#trust?.review(server, reviewed(named));
    for (const { name, tool } of named) {
      const entry = toEntry(name, server, tool, rules.descriptions[tool.name]);
      if (quarantined?.has(tool.name)) entry.quarantine = this.#trust!.quarantine(server, tool.name) ?? [];
      this.#entries.set(name, entry);
    }
    this.#changed(server, before);
  }

  /** A tool that could not have its plain name because another server's tool has it: say so, once. */
  #warnIfRenamed(server: string, tool: string, namespace: string | false, name: string): void {
    const base = baseToolName(namespace, tool);
    if (name === base || this.#warned.has(`${server}\0${tool}`)) return;
    this.#warned.add(`${server}\0${tool}`);
    const contest = this.#contests.get(base);
    if (contest) {
      this.#onWarning(
        contest.owner === undefined
          ? `tool ${tool} of server ${server} is named ${name}: ${base} is withheld — ${contest.why}`
          : `tool ${tool} of server ${server} is named ${name}: ${base} is server ${contest.owner}'s (${contest.why}); give this server a namespace of its own to choose the names`,
      );
      return;
    }
    const holder = [...this.#names].find(([, given]) => given === base)?.[0].split("\0")[0];
    const why = namespace === false ? 'both servers use "namespace": false' : `both are named ${base}`;
    this.#onWarning(
      `tool ${tool} of server ${server} is named ${name}: ${base} is taken by server ${holder ?? "another"}'s tool (${why}); give one of them a namespace to choose the names`,
    );
  }

  #listedEntries(server: string): Map<string, CatalogEntry> {
    const listed = new Map<string, CatalogEntry>();
    if (!this.#listed.has(server)) return listed;
    for (const entry of this.#entries.values())
      if (entry.server === server && !entry.quarantine) listed.set(entry.name, entry);
    return listed;
  }

  /** Compare what a server had listed with what it lists now, and tell the listeners if it differs. */
  #changed(server: string, before: Map<string, CatalogEntry>): void {
    const after = this.#listedEntries(server);
    const added = [...after.keys()].filter((name) => !before.has(name));
    const removed = [...before.keys()].filter((name) => !after.has(name));
    const changed = [...after.keys()].filter(
      (name) => before.has(name) && !sameEntry(before.get(name)!, after.get(name)!),
    );
    if (!added.length && !removed.length && !changed.length) return;
    this.#version += 1;
    const change: CatalogChange = { version: this.#version, server, added, removed, changed };
    for (const listener of this.#listeners) listener(change);
  }

  /** The entry for a catalog name, if any. */
  get(name: string): CatalogEntry | undefined {
    return this.#entries.get(name);
  }

  /** A server's tool by its own name, when it is listed (its server can take calls, not quarantined). */
  entryOf(server: string, tool: string): CatalogEntry | undefined {
    const name = this.#names.get(`${server}\0${tool}`);
    const entry = name === undefined ? undefined : this.#entries.get(name);
    return entry?.server === server && entry.tool === tool && this.#listed.has(server) && !entry.quarantine
      ? entry
      : undefined;
  }

  /** Every listed entry (servers that can take calls; quarantined tools are not), sorted by name. */
  entries(): CatalogEntry[] {
    return [...this.#entries.values()]
      .filter((entry) => this.#listed.has(entry.server) && !entry.quarantine)
      .sort((a, b) => compare(a.name, b.name));
  }

  /** The quarantined tools of the servers that can take calls, sorted by name. */
  quarantined(): CatalogEntry[] {
    return [...this.#entries.values()]
      .filter((entry) => this.#listed.has(entry.server) && entry.quarantine)
      .sort((a, b) => compare(a.name, b.name));
  }

  /** Every name the catalog has given (listed or not), for "did you mean" messages. */
  names(): IterableIterator<string> {
    return this.#entries.keys();
  }

  /** Catalog names that are closest to `name`, for "did you mean" messages. */
  suggest(name: string, limit = DEFAULT_MAX_SUGGESTIONS): string[] {
    const offered = [...this.#entries.values()]
      .filter((entry) => !entry.quarantine)
      .map((entry) => entry.name);
    return closestNames(name, offered, limit);
  }

  /**
   * The server a name not in the catalog would belong to when that server is not listed (it failed to
   * connect, so its tools were never named): the unlisted server whose namespace the name starts with.
   */
  serverFor(name: string): string | undefined {
    let best: { server: string; prefix: number } | undefined;
    for (const [server, rules] of this.#rules) {
      if (rules.namespace === false || this.#listed.has(server)) continue;
      const prefix = baseToolName(rules.namespace, "");
      if (name.startsWith(prefix) && prefix.length > (best?.prefix ?? 0))
        best = { server, prefix: prefix.length };
    }
    return best?.server;
  }
}

/** A server's tool and the catalog name it has. */
interface Named {
  name: string;
  tool: Tool;
}

/** Named tools as the trust gate reads them. */
const reviewed = (named: readonly Named[]) =>
  named.map(({ name, tool }) => ({ name, definition: pinnedDefinition(tool) }));

/** A tool as the model sees it: the config's description, else the server's, with no hidden text anywhere. */
function toEntry(name: string, server: string, tool: Tool, override: string | undefined): CatalogEntry {
  const entry: CatalogEntry = {
    name,
    server,
    tool: tool.name,
    description: override ?? withoutHidden(tool.description ?? ""),
    inputSchema: withoutHidden(tool.inputSchema),
  };
  if (tool.outputSchema) entry.outputSchema = withoutHidden(tool.outputSchema);
  if (tool.annotations) entry.annotations = tool.annotations;
  if (tool.title) entry.title = withoutHidden(tool.title);
  if (tool._meta) entry._meta = withoutHidden(tool._meta);
  if (isAppOnly(tool._meta)) entry.appOnly = true;
  return entry;
}

/** MCP Apps: a tool whose `_meta.ui.visibility` lists who may see it, and not the model. */
function isAppOnly(meta: Tool["_meta"]): boolean {
  const visibility = (meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return Array.isArray(visibility) && !visibility.includes("model");
}

function sameEntry(a: CatalogEntry, b: CatalogEntry): boolean {
  return (
    a.description === b.description &&
    a.title === b.title &&
    JSON.stringify([a.inputSchema, a.outputSchema, a.annotations, a._meta]) ===
      JSON.stringify([b.inputSchema, b.outputSchema, b.annotations, b._meta])
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
