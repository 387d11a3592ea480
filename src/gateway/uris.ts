import {
  qualifiedUri,
  type ResourceEntry,
  type ResourceTemplateEntry,
  unqualifiedUri,
} from "../catalog/resources.js";

// The URIs the gateway serves are unambiguous: its client cannot say which server it means, so a URI
// (or a template) that more than one server lists is served once per server, qualified by its server
// (`switchyard://<server>/<uri>`), and reads of it go to that server alone. A URI only one server lists
// is served as it is.
//
// MCP Apps' `ui://` resources are always served under their server, `ui://<server>/<rest>` (a host
// renders only `ui://` URIs, so they keep the scheme): every app server names its view `ui://widget` or
// the like, and a URI that is unique today collides when a server is added. Each tool's
// `_meta.ui.resourceUri` (and the older `_meta["ui/resourceUri"]`) is rewritten to match; a read of
// `ui://<server>/<rest>` goes to that server as `ui://<rest>`.

const UI_SCHEME = "ui://";

/** A server's `ui://` URI (or template) as the gateway serves it: `ui://<server>/<rest>`; others as they are. */
export function servedUiUri(server: string, uri: string): string {
  return uri.startsWith(UI_SCHEME)
    ? `${UI_SCHEME}${encodeURIComponent(server)}/${uri.slice(UI_SCHEME.length)}`
    : uri;
}

/** The server and its own URI of a served `ui://<server>/<rest>`, when `<server>` is one of `servers`. */
export function unservedUiUri(
  uri: string,
  servers: ReadonlySet<string>,
): { server: string; uri: string } | undefined {
  const match = /^ui:\/\/([^/]+)\/(.*)$/s.exec(uri);
  if (!match) return undefined;
  let server: string;
  try {
    server = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  return servers.has(server) ? { server, uri: `${UI_SCHEME}${match[2]!}` } : undefined;
}

/** A tool's `_meta` as the gateway lists it: its UI resource's URI as the gateway serves it. */
export function servedToolMeta(server: string, meta: Record<string, unknown>): Record<string, unknown> {
  const served = { ...meta };
  const ui = meta.ui as { resourceUri?: unknown } | undefined;
  if (ui && typeof ui === "object" && typeof ui.resourceUri === "string")
    served.ui = { ...ui, resourceUri: servedUiUri(server, ui.resourceUri) };
  if (typeof meta["ui/resourceUri"] === "string")
    served["ui/resourceUri"] = servedUiUri(server, meta["ui/resourceUri"]);
  return served;
}

/** The resources as the gateway lists them: each URI its client can read back. */
export function servedResources(
  entries: readonly ResourceEntry[],
): Array<Omit<ResourceEntry, "server"> & { server: string }> {
  const servers = new Map<string, Set<string>>();
  for (const entry of entries)
    servers.set(entry.uri, (servers.get(entry.uri) ?? new Set()).add(entry.server));
  return entries.map((entry) => {
    if (entry.uri.startsWith(UI_SCHEME)) return { ...entry, uri: servedUiUri(entry.server, entry.uri) };
    return servers.get(entry.uri)!.size > 1
      ? { ...entry, uri: qualifiedUri(entry.server, entry.uri) }
      : entry;
  });
}

/**
 * The templates as the gateway lists them. Two servers' templates may stand for the same URIs when one's
 * literal start is the other's (`file:///{path}` and `file:///docs/{name}`): both are qualified.
 */
export function servedTemplates(
  entries: readonly ResourceTemplateEntry[],
): Array<Omit<ResourceTemplateEntry, "server"> & { server: string }> {
  const start = (template: string) => template.slice(0, template.search(/\{|$/));
  return entries.map((entry) => {
    if (entry.uriTemplate.startsWith(UI_SCHEME))
      return { ...entry, uriTemplate: servedUiUri(entry.server, entry.uriTemplate) };
    const mine = start(entry.uriTemplate);
    const overlaps = entries.some((other) => {
      if (other.server === entry.server || other.uriTemplate.startsWith(UI_SCHEME)) return false;
      const theirs = start(other.uriTemplate);
      return theirs.startsWith(mine) || mine.startsWith(theirs);
    });
    return overlaps ? { ...entry, uriTemplate: qualifiedUri(entry.server, entry.uriTemplate) } : entry;
  });
}

/**
 * A read's contents as the client asked for them: a content whose URI is the server's own for a
 * qualified URI gets the qualified one back.
 */
export function asAsked<T extends { uri: string }>(asked: string, contents: readonly T[]): T[] {
  const qualified = unqualifiedUri(asked);
  if (!qualified) return [...contents];
  return contents.map((content) => (content.uri === qualified.uri ? { ...content, uri: asked } : content));
}
