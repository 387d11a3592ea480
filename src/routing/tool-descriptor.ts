/**
 * A tool as the router sees it: plain data, so the same router ranks the live catalog and an offline
 * `tools.json`. Only `id`, `server` and `name` are required.
 */
export interface ToolDescriptor {
  /** Unique key of the tool: its catalog name, or the `id` of an offline set. Rankings return it. */
  id: string;
  /** The server (or group) the tool belongs to; updates replace one server's tools at a time. */
  server: string;
  /** The tool's own name on its server (`query_orders`, `getUserInfo`). */
  name: string;
  /** Human-readable tool title, when the server gives one. */
  title?: string;
  description?: string;
  /** The tool's JSON Schema for its arguments: parameter names, descriptions and enums are indexed. */
  inputSchema?: unknown;
  /** The server's own title (`serverInfo.title`), when known. */
  serverTitle?: string;
  /** What the server says about itself (its `instructions`), when known. */
  serverDescription?: string;
}
