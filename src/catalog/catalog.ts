import type { Tool } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config/schema.js";
import { globMatcher } from "./glob.js";
import { assignToolName } from "./naming.js";

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
}

interface ServerRules {
  namespace: string | false;
  allowed: (tool: string) => boolean;
  descriptions: Record<string, string>;
}

/**
 * Every tool of the fleet under a unique model-safe name, mapped back to (server, tool) through this
 * table, never by splitting the name. A name, once given, stays with its tool for the catalog's life,
 * across `tools/list_changed` refreshes and server restarts.
 */
export class Catalog {
  readonly #rules = new Map<string, ServerRules>();
  readonly #entries = new Map<string, CatalogEntry>();
  /** `server\0tool` → name: names are reserved even while their tool is gone. */
  readonly #names = new Map<string, string>();
  #version = 0;

  /** Goes up each time any server's tools change. */
  get version(): number {
    return this.#version;
  }

  constructor(servers: ServerConfig[]) {
    for (const server of servers) {
      const allow = globMatcher(server.allow);
      const deny = globMatcher(server.deny);
      this.#rules.set(server.name, {
        namespace: server.namespace,
        allowed: (tool) => (server.allow.length === 0 || allow(tool)) && !deny(tool),
        descriptions: server.descriptions,
      });
    }
  }

  /**
   * Load the tools of several servers at once, in a deterministic order (server name, then tool name),
   * so that the same fleet always gets the same names.
   */
  load(toolsByServer: ReadonlyMap<string, readonly Tool[]>): void {
    for (const server of [...toolsByServer.keys()].sort())
      this.setServerTools(server, toolsByServer.get(server)!);
  }

  /** Replace one server's tools; unchanged tools keep their names, new ones get fresh names. */
  setServerTools(server: string, tools: readonly Tool[]): void {
    const rules = this.#rules.get(server);
    if (!rules) throw new Error(`unknown server ${server}`);
    this.#version += 1;
    for (const [name, entry] of this.#entries) if (entry.server === server) this.#entries.delete(name);

    const taken = new Set(this.#names.values());
    const kept = tools.filter((tool) => rules.allowed(tool.name)).sort((a, b) => compare(a.name, b.name));
    for (const tool of kept) {
      const key = `${server}\0${tool.name}`;
      let name = this.#names.get(key);
      if (name === undefined) {
        name = assignToolName({ namespace: rules.namespace, server, tool: tool.name }, taken);
        this.#names.set(key, name);
        taken.add(name);
      }
      this.#entries.set(name, toEntry(name, server, tool, rules.descriptions[tool.name]));
    }
  }

  /** The entry for a catalog name, if any. */
  get(name: string): CatalogEntry | undefined {
    return this.#entries.get(name);
  }

  /** Every entry, sorted by name. */
  entries(): CatalogEntry[] {
    return [...this.#entries.values()].sort((a, b) => compare(a.name, b.name));
  }

  /** Catalog names that are closest to `name`, for "did you mean" messages. */
  suggest(name: string, limit = 3): string[] {
    const wanted = name.toLowerCase();
    const scored = this.entries()
      .map((entry) => ({ name: entry.name, score: similarity(wanted, entry.name.toLowerCase()) }))
      .sort((a, b) => b.score - a.score);
    // Only names about as close as the closest one: a shared prefix alone is not a suggestion.
    const floor = Math.max(0.5, (scored[0]?.score ?? 0) * 0.8);
    return scored
      .filter((candidate) => candidate.score >= floor)
      .slice(0, limit)
      .map((candidate) => candidate.name);
  }
}

function toEntry(name: string, server: string, tool: Tool, override: string | undefined): CatalogEntry {
  const entry: CatalogEntry = {
    name,
    server,
    tool: tool.name,
    description: override ?? tool.description ?? "",
    inputSchema: tool.inputSchema,
  };
  if (tool.outputSchema) entry.outputSchema = tool.outputSchema;
  if (tool.annotations) entry.annotations = tool.annotations;
  if (tool.title) entry.title = tool.title;
  return entry;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Dice coefficient over character bigrams: cheap and good enough for typos. */
function similarity(a: string, b: string): number {
  const grams = (s: string) =>
    new Set(Array.from({ length: Math.max(s.length - 1, 0) }, (_, i) => s.slice(i, i + 2)));
  const left = grams(a);
  const right = grams(b);
  if (left.size === 0 || right.size === 0) return a === b ? 1 : 0;
  let shared = 0;
  for (const gram of left) if (right.has(gram)) shared += 1;
  return (2 * shared) / (left.size + right.size);
}
