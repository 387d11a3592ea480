import type { ToolDescriptor } from "./tool-descriptor.js";

/** What the router needs of a catalog entry (`Switchyard.tools()`, `CatalogEntry`). */
export interface CatalogTool {
  /** Catalog name: becomes the descriptor's `id`. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  description: string;
  inputSchema?: unknown;
  title?: string;
}

/** What a server says about itself, when known (`serverInfo.title`, `instructions`). */
export interface ServerAbout {
  title?: string;
  description?: string;
}

/**
 * Router descriptors for catalog tools: the catalog name is the id, and each tool carries what its
 * server says about itself, when given.
 */
export function catalogToolDescriptors(
  tools: readonly CatalogTool[],
  servers: ReadonlyMap<string, ServerAbout> = new Map(),
): ToolDescriptor[] {
  return tools.map((tool) => {
    const descriptor: ToolDescriptor = {
      id: tool.name,
      server: tool.server,
      name: tool.tool,
      description: tool.description,
    };
    if (tool.inputSchema !== undefined) descriptor.inputSchema = tool.inputSchema;
    if (tool.title) descriptor.title = tool.title;
    const about = servers.get(tool.server);
    if (about?.title) descriptor.serverTitle = about.title;
    if (about?.description) descriptor.serverDescription = about.description;
    return descriptor;
  });
}
