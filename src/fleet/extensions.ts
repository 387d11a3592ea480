// The protocol's extensions Switchyard speaks, and whether a server declares one: in its capabilities'
// `extensions`, keyed by the extension's identifier, each with its settings object (`{}` at least).
import type { Client } from "@modelcontextprotocol/client";

/** The tasks extension (SEP-2663): tool calls a 2026-07-28 server runs as tasks. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The Skills extension (SEP-2640): skills a server serves its host. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** Whether the server `client` is connected to declares extension `id` (its settings are an object). */
export function declaresExtension(client: Client | undefined, id: string): boolean {
  const extensions = (client?.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  const settings = extensions?.[id];
  return settings !== null && typeof settings === "object";
}
