import { SwitchyardError } from "../errors.js";
import { shown } from "./router-input.js";
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
 * Router descriptors for catalog tools (`yard.tools()`): the catalog name is the id, and each tool
 * carries what its server says about itself, when given.
 *
 * ```ts
 * const about = new Map(
 *   yard.servers().map((server) => [server.name, { description: yard.serverInstructions(server.name) }]),
 * );
 * const router = new Router(catalogToolDescriptors(yard.tools(), about));
 * ```
 * @param servers What each server says about itself, by server name: a `Map` of `{ title?, description? }`
 *   (`description`: its `instructions`, `yard.serverInstructions(name)`), indexed as the tools' server
 *   fields. Optional; `yard.servers()` itself is their status and is refused.
 * @throws SwitchyardError `INVALID_INPUT` for tools that are not an array of catalog entries (`{ name,
 *   server, tool }`), or `servers` that is not a `Map`, saying how to make one.
 */
export function catalogToolDescriptors(
  tools: readonly CatalogTool[],
  servers: ReadonlyMap<string, ServerAbout> = new Map(),
): ToolDescriptor[] {
  checkCatalog(tools, servers);
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

function checkCatalog(tools: unknown, servers: unknown): void {
  const where = "catalogToolDescriptors";
  if (!Array.isArray(tools))
    throw new SwitchyardError(
      "INVALID_INPUT",
      `${where}: tools must be an array of catalog entries, as yard.tools() returns (got ${shown(tools)})`,
    );
  tools.forEach((tool: unknown, i) => {
    const entry = (typeof tool === "object" && tool !== null ? tool : {}) as Record<string, unknown>;
    for (const key of ["name", "server", "tool"])
      if (typeof entry[key] !== "string")
        throw new SwitchyardError(
          "INVALID_INPUT",
          `${where}: tools[${i}].${key} must be a string (got ${shown(entry[key])}); pass catalog entries { name, server, tool, description, inputSchema? } as yard.tools() returns them`,
        );
  });
  if (typeof (servers as { get?: unknown } | null)?.get !== "function")
    throw new SwitchyardError(
      "INVALID_INPUT",
      `${where}: servers must be a Map of server name → { title?, description? } (got ${shown(servers)}${Array.isArray(servers) ? ": yard.servers() is their status, not what they say about themselves" : ""}); make one with new Map(yard.servers().map((s) => [s.name, { description: yard.serverInstructions(s.name) }])), or leave it out`,
    );
}
