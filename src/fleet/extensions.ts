// The protocol's extensions Switchyard speaks, and whether a server declares one: in its capabilities'
// `extensions`, keyed by the extension's identifier, each with its settings object (`{}` at least).

/** The tasks extension (SEP-2663): tool calls a 2026-07-28 server runs as tasks. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The Skills extension (SEP-2640): skills a server serves its host. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** MCP Apps (SEP-1865): tools linked to `ui://` views a host renders. */
export const UI_EXTENSION = "io.modelcontextprotocol/ui";

/** The MIME type of an MCP App's HTML view, which a host that renders apps declares. */
export const MCP_APP_MIME_TYPE = "text/html;profile=mcp-app";

/**
 * Whether capabilities (a server's, or a client's) declare extension `id`: its settings object, or
 * `true` from a peer that writes the declaration short. Absent, `null` and `false` declare nothing.
 */
export function declaresExtension(capabilities: object | undefined, id: string): boolean {
  const settings = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions?.[id];
  return settings === true || (settings !== null && typeof settings === "object");
}
