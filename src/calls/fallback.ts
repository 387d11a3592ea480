import { Deadline } from "../abort.js";
import type { Catalog, CatalogEntry } from "../catalog/catalog.js";
import { baseToolName } from "../catalog/naming.js";
import { isSwitchyardError } from "../errors.js";
import { checkToolArguments } from "./arguments.js";
import { admit, type PolicyStageOptions } from "./policy-step.js";
import type { RequestContext } from "./request.js";
import type { Resolved } from "./resolve.js";
import type { ManagedServer } from "./server.js";
import type { JsonSchema } from "./validate.js";

/** What choosing a fallback reads: the catalog, the servers, and the policy stage's parts. */
export interface FallbackParts extends PolicyStageOptions {
  catalog: Catalog;
  server(name: string): ManagedServer | undefined;
}

/** A tool call moved to a fallback server: what it resolves to there, and its request as admitted there. */
export interface FallbackCall {
  resolved: Resolved;
  context: RequestContext;
}

/**
 * Whether the primary's failure says it could not serve the call, so that a fallback may: its breaker
 * refused it, or it was unavailable before anything was sent. A call that may have run there (its
 * server went away during it) goes to a fallback only when the tool is safe to repeat.
 */
export function couldNotServe(error: unknown, repeatable: boolean): boolean {
  if (!isSwitchyardError(error)) return false;
  if (error.code === "CIRCUIT_OPEN") return true;
  if (error.code !== "SERVER_UNAVAILABLE") return false;
  return repeatable || error.delivery === "not_sent" || error.serverFault === false;
}

/**
 * The first of the primary's fallbacks that can serve this tool call: it is not down, it has a tool of
 * the same own name (listed, not quarantined), the call's arguments pass that tool's schema, and the
 * policy admits the call there (an approval it asks for is asked). A fallback that fails any of these is
 * passed over; none left: undefined (the call fails as the primary failed it). The call keeps its
 * deadline: the fallback gets what is left of it.
 */
export async function chooseFallback(
  fallbacks: readonly string[],
  resolved: Resolved,
  context: RequestContext,
  parts: FallbackParts,
): Promise<FallbackCall | undefined> {
  for (const name of fallbacks) {
    const left = context.deadline.left();
    if (left <= 0) return undefined;
    const server = parts.server(name);
    if (!server || server.down) continue;
    const entry = toolOn(parts.catalog, name, resolved.tool);
    if (!entry) continue;
    const there: Resolved = { name: entry.name, server: name, tool: entry.tool, entry, target: entry };
    let args: Record<string, unknown>;
    try {
      args = checkToolArguments(there, entry.inputSchema as JsonSchema, context.args);
    } catch {
      continue;
    }
    const moved: RequestContext = {
      ...context,
      name: entry.name,
      server: name,
      tool: entry.tool,
      entry,
      args,
      deadline: new Deadline(left),
    };
    try {
      await admit(moved, entry, parts);
    } catch {
      moved.deadline.dispose();
      continue;
    }
    return { resolved: there, context: moved };
  }
  return undefined;
}

/**
 * A tool call that could not be resolved because its server never listed its tools (it failed to
 * start), when that server has fallbacks: resolved to the server with the tool's own name as the
 * name's namespace implies, `unlisted` holding the failure. Undefined for any other failure.
 */
export function unlistedTool(name: string, error: unknown, parts: FallbackParts): Resolved | undefined {
  if (!isSwitchyardError(error, "SERVER_UNAVAILABLE") || error.server === undefined) return undefined;
  const server = parts.server(error.server);
  if (!server?.fallback) return undefined;
  const tool = name.slice(baseToolName(server.namespace, "").length);
  return { name, server: error.server, tool, target: { name, server: error.server, tool }, unlisted: error };
}

/** A server's tool by its own name, when it can be called (listed, not quarantined, supported). */
function toolOn(catalog: Catalog, server: string, tool: string): CatalogEntry | undefined {
  return catalog
    .entries()
    .find((entry) => entry.server === server && entry.tool === tool && entry.unsupported === undefined);
}
