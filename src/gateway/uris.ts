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

/** The resources as the gateway lists them: each URI its client can read back. */
export function servedResources(
  entries: readonly ResourceEntry[],
): Array<Omit<ResourceEntry, "server"> & { server: string }> {
  const servers = new Map<string, Set<string>>();
  for (const entry of entries)
    servers.set(entry.uri, (servers.get(entry.uri) ?? new Set()).add(entry.server));
  return entries.map((entry) =>
    servers.get(entry.uri)!.size > 1 ? { ...entry, uri: qualifiedUri(entry.server, entry.uri) } : entry,
  );
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
    const mine = start(entry.uriTemplate);
    const overlaps = entries.some((other) => {
      if (other.server === entry.server) return false;
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
