import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { DEFAULT_TOOL_SEARCH_RESULTS } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import { routerFor, syncRouter } from "../routing/catalog-router.js";
import type { Router } from "../routing/router.js";
import {
  descriptionLine,
  SEARCH_QUERY_DESCRIPTION,
  SEARCH_TOOLS_GUIDE,
  SEARCH_TOOLS_NAME,
  searchCatalog,
} from "../routing/search.js";
import type { Switchyard } from "../switchyard.js";
import type { Identity } from "../telemetry/audit.js";

export { SEARCH_TOOLS_NAME } from "../routing/search.js";
/** The search mode's tool that calls a catalog tool by name. */
export const CALL_TOOL_NAME = "call_tool";
/** Most tools one search may ask for (`limit`). */
const MAX_SEARCH_RESULTS = 20;

/**
 * The gateway's search mode, for hosts with tool caps or huge fleets: two tools instead of the catalog.
 * `search_tools { query, limit? }` ranks the catalog with the Switchyard's router (the one the agent and
 * `switchyard route` use, for the config's `routing` section: lexical by default, CJK-aware, kept in
 * step with the catalog) and answers with the best tools the caller may call, their descriptions and
 * input schemas; `call_tool { name, arguments }` calls one through the pipeline.
 */
export class ToolSearch {
  readonly searchName = SEARCH_TOOLS_NAME;
  readonly #yard: Switchyard;
  readonly #router: Router;
  /** Tools a search returns when it gives no `limit`: the config's `routing.searchResults`, as the agent's. */
  readonly #results: number;

  constructor(yard: Switchyard) {
    this.#yard = yard;
    this.#router = routerFor(yard, yard.config.routing);
    this.#results = Math.min(
      yard.config.routing?.searchResults ?? DEFAULT_TOOL_SEARCH_RESULTS,
      MAX_SEARCH_RESULTS,
    );
  }

  /** What `tools/list` offers in search mode. */
  tools(): Tool[] {
    return [
      {
        name: SEARCH_TOOLS_NAME,
        description:
          `${SEARCH_TOOLS_GUIDE} Answers with the best matching tools, their descriptions and input ` +
          `schemas; call one with ${CALL_TOOL_NAME}.`,
        inputSchema: {
          type: "object",
          properties: {
            query: { type: "string", description: SEARCH_QUERY_DESCRIPTION },
            limit: {
              type: "integer",
              minimum: 1,
              maximum: MAX_SEARCH_RESULTS,
              description: `How many tools to return (default ${this.#results}).`,
            },
          },
          required: ["query"],
        },
        annotations: { readOnlyHint: true },
      },
      {
        name: CALL_TOOL_NAME,
        description: `Call a tool found with ${SEARCH_TOOLS_NAME}, by its name, with arguments matching its input schema.`,
        inputSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: `The tool's name, as ${SEARCH_TOOLS_NAME} gave it.` },
            arguments: { type: "object", description: "The tool's arguments." },
          },
          required: ["name"],
        },
      },
    ];
  }

  /** Answer `search_tools`: the best tools for the query that `identity` may call. */
  async search(args: unknown, identity: Identity): Promise<CallToolResult> {
    const { query, limit = this.#results } = (args ?? {}) as {
      query?: unknown;
      limit?: unknown;
    };
    if (typeof query !== "string" || query.trim() === "")
      throw new SwitchyardError(
        "INVALID_ARGUMENTS",
        `${SEARCH_TOOLS_NAME} needs a "query": one tool need, an action and its object (e.g. "read file contents")`,
      );
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_SEARCH_RESULTS)
      throw new SwitchyardError(
        "INVALID_ARGUMENTS",
        `${SEARCH_TOOLS_NAME}: "limit" must be an integer from 1 to ${MAX_SEARCH_RESULTS} (got ${JSON.stringify(limit)})`,
      );
    syncRouter(this.#router);
    const callable = new Set(this.#yard.tools({ identity }).map((tool) => tool.name));
    // Only tools the caller may call are named.
    const hits = await searchCatalog(this.#router, query, {
      limit: limit as number,
      allowed: (id) => callable.has(id),
    });
    const tools = hits.flatMap((hit) => {
      const entry = this.#yard.describeTool(hit.id);
      return entry
        ? [{ name: entry.name, description: entry.description, inputSchema: entry.inputSchema }]
        : [];
    });
    const text = tools.length
      ? [
          `Found ${tools.length === 1 ? "1 tool" : `${tools.length} tools`} for "${query}"; call with ${CALL_TOOL_NAME} { name, arguments }:`,
          ...tools.map(
            (tool) =>
              `- ${tool.name}: ${descriptionLine(tool.description)}\n  input: ${JSON.stringify(tool.inputSchema)}`,
          ),
        ].join("\n")
      : `No tool matched "${query}". Search again with other words (the action and the thing).`;
    return { content: [{ type: "text", text }], structuredContent: { tools } };
  }

  /**
   * The catalog tool and arguments a `call_tool` call names.
   * @throws SwitchyardError `INVALID_ARGUMENTS` when `name` is missing or `arguments` is not an object;
   *   `TOOL_NOT_FOUND` when the catalog has no tool of that name.
   */
  target(args: unknown): { name: string; args: unknown } {
    const { name, arguments: given = {} } = (args ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string" || name === "")
      throw new SwitchyardError(
        "INVALID_ARGUMENTS",
        `${CALL_TOOL_NAME} needs "name": a tool's name as ${SEARCH_TOOLS_NAME} gave it`,
      );
    if (typeof given !== "object" || given === null || Array.isArray(given))
      throw new SwitchyardError("INVALID_ARGUMENTS", `${CALL_TOOL_NAME}: "arguments" must be an object`);
    // The host sees only the two tools here: a name the catalog lacks is found with search_tools.
    if (this.#yard.describeTool(name) === undefined) {
      const near = this.#yard.suggestTools(name);
      throw new SwitchyardError(
        "TOOL_NOT_FOUND",
        `${CALL_TOOL_NAME}: no tool named ${name} in the catalog; ${near.length ? `did you mean ${near.join(", ")}? ` : ""}find tools with ${SEARCH_TOOLS_NAME}`,
        { tool: name },
      );
    }
    return { name, args: given };
  }
}
