import type { Prompt, PromptArgument, Resource, ResourceTemplateType } from "@modelcontextprotocol/client";
import { DEFAULT_MAX_SUGGESTIONS } from "../config/defaults.js";
import type { ServerConfig } from "../config/schema.js";
import { closestNames } from "../errors.js";
import { withoutHidden } from "../trust/clean.js";
import { stripHidden } from "../trust/hidden-text.js";
import { assignToolName } from "./naming.js";

/** One resource of one server: a URI may be listed by two servers, so an entry is (server, uri). */
export interface ResourceEntry {
  server: string;
  uri: string;
  /** The resource's name on its server. */
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** One resource template (RFC 6570) of one server. */
export interface ResourceTemplateEntry {
  server: string;
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** One prompt under its fleet-wide name (`<namespace>_<prompt>`, by the rules tool names follow). */
export interface PromptEntry {
  /** Unique, model-safe name. */
  name: string;
  server: string;
  /** The prompt's own name on its server. */
  prompt: string;
  title?: string;
  description: string;
  arguments: PromptArgument[];
}

/**
 * One change of the resources or the prompts the catalog lists, for one server. `resources`: URIs
 * and URI templates; `prompts`: catalog names. A server that goes down shows as all of them removed.
 */
export interface ListChange {
  kind: "resources" | "prompts";
  /** The version of the resources-and-prompts lists after the change (not `catalogVersion`). */
  version: number;
  server: string;
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * How a URI resolved: on one server (with the URI as that server knows it, when the one asked for
 * named the server), on several (ambiguous), or nowhere (with near URIs).
 */
export type ResourceLookup =
  | { found: true; server: string; uri?: string; entry?: ResourceEntry }
  | { found: false; servers: string[]; suggestions: string[] };

/**
 * URIs that name their server, `switchyard://<server>/<the server's own URI>`: how the gateway serves a
 * URI (or template) that more than one server lists, so that its clients can read every one of them.
 */
export const QUALIFIED_URI_SCHEME = "switchyard:";

/** `uri` of `server`, named so that it resolves to that server alone. */
export function qualifiedUri(server: string, uri: string): string {
  return `${QUALIFIED_URI_SCHEME}//${encodeURIComponent(server)}/${uri}`;
}

/** The server and the server's own URI of a {@link qualifiedUri}; undefined for any other URI. */
export function unqualifiedUri(uri: string): { server: string; uri: string } | undefined {
  const match = /^switchyard:\/\/([^/]+)\/(.+)$/s.exec(uri);
  if (!match) return undefined;
  try {
    return { server: decodeURIComponent(match[1]!), uri: match[2]! };
  } catch {
    return undefined;
  }
}

/**
 * The resources, resource templates and prompts of the fleet's servers, live like the tools: what
 * servers that can take calls list, with change events. Prompts get names by the tools' naming rules
 * (`namespace`), kept for the catalog's life; resources keep their URI beside their server. The
 * servers' `tools.allow`/`deny` filters are for tools only.
 */
export class ResourceCatalog {
  readonly #namespaces = new Map<string, string | false>();
  readonly #resources = new Map<string, ResourceEntry[]>();
  readonly #templates = new Map<string, ResourceTemplateEntry[]>();
  readonly #prompts = new Map<string, PromptEntry[]>();
  /** `server\0prompt` → name: names are reserved even while their prompt is gone. */
  readonly #promptNames = new Map<string, string>();
  readonly #listed = new Set<string>();
  readonly #listeners = new Set<(change: ListChange) => void>();
  #version = 0;

  constructor(servers: ServerConfig[]) {
    for (const server of servers) this.#namespaces.set(server.name, server.namespace);
  }

  /** Goes up with each change of what `resources()`, `resourceTemplates()` or `prompts()` list. */
  get version(): number {
    return this.#version;
  }

  /** Be told of every change; returns the function that stops it. A listener must not throw. */
  onChange(listener: (change: ListChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** List or unlist a server's resources and prompts as it comes up or goes down. */
  setServerListed(server: string, listed: boolean): void {
    if (this.#listed.has(server) === listed) return;
    const resources = this.#resourceKeys(server);
    const prompts = this.#promptKeys(server);
    if (listed) this.#listed.add(server);
    else this.#listed.delete(server);
    this.#changed("resources", server, resources, this.#resourceKeys(server));
    this.#changed("prompts", server, prompts, this.#promptKeys(server));
  }

  /** Replace one server's resources and resource templates. */
  setServerResources(
    server: string,
    resources: readonly Resource[],
    templates: readonly ResourceTemplateType[],
  ): void {
    this.#known(server);
    const before = this.#resourceKeys(server);
    this.#resources.set(
      server,
      [...resources].sort((a, b) => compare(a.uri, b.uri)).map((resource) => toResource(server, resource)),
    );
    this.#templates.set(
      server,
      [...templates]
        .sort((a, b) => compare(a.uriTemplate, b.uriTemplate))
        .map((template) => toTemplate(server, template)),
    );
    this.#changed("resources", server, before, this.#resourceKeys(server));
  }

  /** Replace one server's prompts; unchanged prompts keep their names, new ones get fresh names. */
  setServerPrompts(server: string, prompts: readonly Prompt[]): void {
    const namespace = this.#known(server);
    const before = this.#promptKeys(server);
    const taken = new Set(this.#promptNames.values());
    const entries: PromptEntry[] = [];
    for (const prompt of [...prompts].sort((a, b) => compare(a.name, b.name))) {
      const key = `${server}\0${prompt.name}`;
      let name = this.#promptNames.get(key);
      if (name === undefined) {
        name = assignToolName({ namespace, server, tool: prompt.name }, taken);
        this.#promptNames.set(key, name);
        taken.add(name);
      }
      entries.push(toPrompt(name, server, prompt));
    }
    this.#prompts.set(server, entries);
    this.#changed("prompts", server, before, this.#promptKeys(server));
  }

  /** Every listed resource, by URI then server. */
  resources(): ResourceEntry[] {
    return this.#all(this.#resources).sort((a, b) => compare(a.uri, b.uri) || compare(a.server, b.server));
  }

  /** Every listed resource template, by template then server. */
  resourceTemplates(): ResourceTemplateEntry[] {
    return this.#all(this.#templates).sort(
      (a, b) => compare(a.uriTemplate, b.uriTemplate) || compare(a.server, b.server),
    );
  }

  /** Every listed prompt, by catalog name. */
  prompts(): PromptEntry[] {
    return this.#all(this.#prompts).sort((a, b) => compare(a.name, b.name));
  }

  /** The listed prompt of a catalog name, if any. */
  getPrompt(name: string): PromptEntry | undefined {
    // Catalog names are unique: the first found is the one, with no list made or sorted. A server that
    // is not listed (down, or still connecting) has none, as in `prompts()`.
    for (const [server, entries] of this.#prompts) {
      if (!this.#listed.has(server)) continue;
      const found = entries.find((entry) => entry.name === name);
      if (found) return found;
    }
    return undefined;
  }

  /** Prompt names closest to `name`, for "did you mean". */
  suggestPrompts(name: string, limit = DEFAULT_MAX_SUGGESTIONS): string[] {
    return closestNames(
      name,
      this.prompts().map((entry) => entry.name),
      limit,
    );
  }

  /**
   * Which server has `uri`: the one given (when it is listed), else the one a {@link qualifiedUri}
   * names, else the servers that list it, else those whose templates match it (`matches`, RFC 6570).
   * One server: found; several: not found, with the servers; none: not found, with near URIs.
   */
  resolve(
    uri: string,
    server: string | undefined,
    matches: (template: string, uri: string) => boolean,
  ): ResourceLookup {
    const qualified = unqualifiedUri(uri);
    if (
      qualified &&
      this.#namespaces.has(qualified.server) &&
      (server ?? qualified.server) === qualified.server
    ) {
      const lookup = this.resolve(qualified.uri, qualified.server, matches);
      return lookup.found ? { ...lookup, uri: qualified.uri } : lookup;
    }
    const listed = this.resources().filter((entry) => entry.uri === uri);
    if (server !== undefined) {
      if (!this.#listed.has(server)) return { found: false, servers: [], suggestions: [] };
      const entry = listed.find((candidate) => candidate.server === server);
      return { found: true, server, ...(entry ? { entry } : {}) };
    }
    if (listed.length === 1) return { found: true, server: listed[0]!.server, entry: listed[0]! };
    if (listed.length > 1)
      return { found: false, servers: listed.map((entry) => entry.server), suggestions: [] };
    const byTemplate = [
      ...new Set(
        this.resourceTemplates()
          .filter((template) => matches(template.uriTemplate, uri))
          .map((template) => template.server),
      ),
    ];
    if (byTemplate.length === 1) return { found: true, server: byTemplate[0]! };
    return {
      found: false,
      servers: byTemplate,
      suggestions: byTemplate.length
        ? []
        : closestNames(
            uri,
            this.resources().map((entry) => entry.uri),
            DEFAULT_MAX_SUGGESTIONS,
          ),
    };
  }

  #known(server: string): string | false {
    const namespace = this.#namespaces.get(server);
    if (namespace === undefined) throw new Error(`unknown server ${server}`);
    return namespace;
  }

  #all<T>(lists: Map<string, T[]>): T[] {
    return [...lists].filter(([server]) => this.#listed.has(server)).flatMap(([, entries]) => entries);
  }

  /** What a server lists of resources and templates (none while it is not listed): key → content. */
  #resourceKeys(server: string): Map<string, string> {
    const keys = new Map<string, string>();
    if (!this.#listed.has(server)) return keys;
    for (const entry of this.#resources.get(server) ?? []) keys.set(entry.uri, JSON.stringify(entry));
    for (const entry of this.#templates.get(server) ?? []) keys.set(entry.uriTemplate, JSON.stringify(entry));
    return keys;
  }

  #promptKeys(server: string): Map<string, string> {
    const keys = new Map<string, string>();
    if (!this.#listed.has(server)) return keys;
    for (const entry of this.#prompts.get(server) ?? []) keys.set(entry.name, JSON.stringify(entry));
    return keys;
  }

  #changed(
    kind: ListChange["kind"],
    server: string,
    before: Map<string, string>,
    after: Map<string, string>,
  ): void {
    const added = [...after.keys()].filter((key) => !before.has(key));
    const removed = [...before.keys()].filter((key) => !after.has(key));
    const changed = [...after.keys()].filter((key) => before.has(key) && before.get(key) !== after.get(key));
    if (!added.length && !removed.length && !changed.length) return;
    this.#version += 1;
    const change: ListChange = { kind, version: this.#version, server, added, removed, changed };
    for (const listener of this.#listeners) listener(change);
  }
}

function toResource(server: string, resource: Resource): ResourceEntry {
  const entry: ResourceEntry = { server, uri: resource.uri, name: resource.name };
  // Shown to hosts' models (the gateway's listings): no hidden or control characters.
  if (resource.title !== undefined) entry.title = stripHidden(resource.title);
  if (resource.description !== undefined) entry.description = stripHidden(resource.description);
  if (resource.mimeType !== undefined) entry.mimeType = resource.mimeType;
  if (resource.size !== undefined) entry.size = resource.size;
  return entry;
}

function toTemplate(server: string, template: ResourceTemplateType): ResourceTemplateEntry {
  const entry: ResourceTemplateEntry = { server, uriTemplate: template.uriTemplate, name: template.name };
  if (template.title !== undefined) entry.title = stripHidden(template.title);
  if (template.description !== undefined) entry.description = stripHidden(template.description);
  if (template.mimeType !== undefined) entry.mimeType = template.mimeType;
  return entry;
}

function toPrompt(name: string, server: string, prompt: Prompt): PromptEntry {
  const entry: PromptEntry = {
    name,
    server,
    prompt: prompt.name,
    description: stripHidden(prompt.description ?? ""),
    arguments: withoutHidden(prompt.arguments ?? []),
  };
  if (prompt.title !== undefined) entry.title = stripHidden(prompt.title);
  return entry;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
