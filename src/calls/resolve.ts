import type { Catalog, CatalogEntry } from "../catalog/catalog.js";
import { type PromptEntry, type ResourceCatalog, unqualifiedUri } from "../catalog/resources.js";
import { didYouMean, SwitchyardError } from "../errors.js";
import type { PolicyTarget } from "./policy.js";
import type { LocalCall, RequestInput } from "./request.js";

/** What a request is for, once resolved: the server that is asked, and the thing on it. */
export interface Resolved {
  /** The catalog name (a tool's, a prompt's) or the URI. */
  name: string;
  server: string;
  /** The server's own name of it: the tool's or the prompt's, or the URI as the server knows it. */
  tool: string;
  entry?: CatalogEntry;
  prompt?: PromptEntry;
  /** A resource request's URI (a completion's template), as the server knows it. */
  uri?: string;
  /** A tool the run answers itself. */
  local?: LocalCall;
  /** What the policy decides on. */
  target: PolicyTarget;
  /**
   * A tool of a server that never listed its tools (it failed to start) and has a `fallback`: why it
   * cannot be called there (calls/fallback.ts).
   */
  unlisted?: SwitchyardError;
}

/** What resolving reads: the catalogs, and which servers there are and how they stand. */
export interface ResolveParts {
  catalog: Catalog;
  lists: ResourceCatalog;
  /** The state of a configured server; undefined for a name not in the config. */
  serverState(name: string): { status: string; error?: string } | undefined;
  serverNames(): Iterable<string>;
  /** Whether a URI template (RFC 6570) matches a URI. */
  matchesTemplate(template: string, uri: string): boolean;
}

/**
 * Find what a request is for: a tool (the run's own first, then the catalog), a resource (on the
 * server given, else the one that lists it or whose template matches it), a prompt, a completion's
 * prompt or template.
 * @throws SwitchyardError `TOOL_NOT_FOUND`, `SERVER_UNAVAILABLE` (the name is a down server's),
 *   `CAPABILITY_MISSING` (a tool that cannot be called from here), `RESOURCE_NOT_FOUND`,
 *   `RESOURCE_AMBIGUOUS`, `PROMPT_NOT_FOUND`, `TOOL_QUARANTINED` or `INVALID_INPUT`.
 */
export function resolveRequest(input: RequestInput, parts: ResolveParts): Resolved {
  switch (input.kind) {
    case "tool":
      return resolveTool(input.name, input.local?.(input.name), parts);
    case "prompt":
      return resolvePrompt(input.name, parts);
    case "complete": {
      if (input.ref.type === "ref/prompt") {
        const resolved = resolvePrompt(input.ref.name, parts);
        return resolved;
      }
      return resolveTemplate(input.ref.uri, input.server, parts);
    }
    case "skills":
      return resolveResource("skills/list", input.server, parts);
    default:
      return resolveResource(input.uri, input.server, parts);
  }
}

function resolveTool(name: string, local: LocalCall | undefined, parts: ResolveParts): Resolved {
  if (local)
    return {
      name,
      server: local.server,
      tool: name,
      local,
      target: { name, server: local.server, tool: name },
    };
  const entry = parts.catalog.get(name);
  if (!entry) throw unavailableTool(name, parts) ?? notFound(name, parts);
  if (entry.unsupported !== undefined) {
    throw new SwitchyardError(
      "CAPABILITY_MISSING",
      `${entry.name} (tool ${entry.tool} on server ${entry.server}) cannot be called from here: it ${entry.unsupported}`,
      { server: entry.server, tool: entry.tool, capability: "tasks", delivery: "final", serverFault: false },
    );
  }
  const quarantined = quarantineOf(entry);
  if (quarantined) throw quarantined;
  return { name, server: entry.server, tool: entry.tool, entry, target: entry };
}

/**
 * A name not in the catalog that would be a tool of a server that is down (it failed to connect, so
 * its tools were never listed): the name is in its namespace.
 */
function unavailableTool(name: string, parts: ResolveParts): SwitchyardError | undefined {
  const server = parts.catalog.serverFor(name);
  if (server === undefined) return undefined;
  const state = parts.serverState(server)!;
  return new SwitchyardError(
    "SERVER_UNAVAILABLE",
    `${name} would be a tool of server ${server}, which is ${state.status}${state.error ? `: ${state.error}` : ""}; its tools are not available until it connects (fix it, then reconnect)`,
    { server, tool: name, delivery: "final", serverFault: false },
  );
}

function notFound(name: string, parts: ResolveParts): SwitchyardError {
  const hint = didYouMean(name, parts.catalog.names()) || "list the tools to see what there is";
  return new SwitchyardError("TOOL_NOT_FOUND", `no tool named ${name} in the catalog; ${hint}`, {
    tool: name,
    delivery: "final",
    serverFault: false,
  });
}

function resolvePrompt(name: string, parts: ResolveParts): Resolved {
  const prompt = parts.lists.getPrompt(name);
  if (!prompt) {
    const hint = didYouMean(
      name,
      parts.lists.prompts().map((entry) => entry.name),
    );
    throw new SwitchyardError(
      "PROMPT_NOT_FOUND",
      `no prompt named ${name} in the catalog${hint ? `; ${hint}` : ""}`,
    );
  }
  return {
    name: prompt.name,
    server: prompt.server,
    tool: prompt.prompt,
    prompt,
    target: { kind: "prompt", name: prompt.name, server: prompt.server, tool: prompt.prompt },
  };
}

function resolveResource(uri: string, server: string | undefined, parts: ResolveParts): Resolved {
  checkServer(server, parts);
  const lookup = parts.lists.resolve(uri, server, parts.matchesTemplate);
  if (lookup.found) return resourceOn(lookup.server, lookup.uri ?? uri, uri);
  if (server !== undefined) {
    const state = parts.serverState(server)!;
    throw new SwitchyardError(
      "SERVER_UNAVAILABLE",
      `server ${server} is ${state.status}${state.error ? `: ${state.error}` : ""}; ${uri} cannot be read`,
      { server, delivery: "final", serverFault: false },
    );
  }
  if (lookup.servers.length > 1) {
    throw new SwitchyardError(
      "RESOURCE_AMBIGUOUS",
      `resource ${uri} is on servers ${lookup.servers.join(", ")}; say which one (server: "${lookup.servers[0]}", or --server)`,
    );
  }
  throw new SwitchyardError(
    "RESOURCE_NOT_FOUND",
    `no server lists resource ${uri} (or a template that matches it)${lookup.suggestions.length ? `; ${didYouMean(uri, lookup.suggestions)}` : ""}`,
  );
}

function resourceOn(server: string, uri: string, asked: string): Resolved {
  return {
    name: asked,
    server,
    tool: uri,
    uri,
    target: { kind: "resource", name: asked, server, tool: uri },
  };
}

/** A completion's `ref/resource`: the template (its URI template) one server lists. */
function resolveTemplate(asked: string, named: string | undefined, parts: ResolveParts): Resolved {
  checkServer(named, parts);
  const qualified = unqualifiedUri(asked);
  const template = qualified?.uri ?? asked;
  const server = named ?? qualified?.server;
  const servers = [
    ...new Set(
      parts.lists
        .resourceTemplates()
        .filter(
          (entry) => entry.uriTemplate === template && (server === undefined || entry.server === server),
        )
        .map((entry) => entry.server),
    ),
  ];
  if (servers.length === 1) {
    const on = servers[0]!;
    return {
      name: template,
      server: on,
      tool: template,
      uri: template,
      target: { kind: "resource", name: template, server: on, tool: template, template: true },
    };
  }
  if (servers.length > 1) {
    throw new SwitchyardError(
      "RESOURCE_AMBIGUOUS",
      `resource template ${template} is on servers ${servers.join(", ")}; say which one (server: "${servers[0]}")`,
    );
  }
  const hint = didYouMean(
    template,
    parts.lists.resourceTemplates().map((entry) => entry.uriTemplate),
  );
  throw new SwitchyardError(
    "RESOURCE_NOT_FOUND",
    `no server lists the resource template ${template}${hint ? `; ${hint}` : ""}`,
  );
}

/** A `server` option must name a configured server. */
function checkServer(server: string | undefined, parts: ResolveParts): void {
  if (server === undefined || parts.serverState(server) !== undefined) return;
  const hint = didYouMean(String(server), parts.serverNames());
  throw new SwitchyardError("INVALID_INPUT", `no server named ${String(server)}${hint ? ` (${hint})` : ""}`);
}

/** `TOOL_QUARANTINED` for a tool the catalog holds in quarantine, saying why and how to accept it. */
export function quarantineOf(entry: CatalogEntry | undefined): SwitchyardError | undefined {
  if (!entry?.quarantine) return undefined;
  const why = entry.quarantine.map((finding) => `${finding.kind}: ${finding.detail}`).join("; ");
  return new SwitchyardError(
    "TOOL_QUARANTINED",
    `${entry.name} (tool ${entry.tool} on server ${entry.server}) is quarantined, nothing was sent: ${why}. If you trust it as it is, run switchyard trust ${entry.server} --tool ${entry.tool}`,
    { server: entry.server, tool: entry.tool, delivery: "final", serverFault: false },
  );
}
