import { Deadline } from "../abort.js";
import type { Catalog, CatalogEntry } from "../catalog/catalog.js";
import { toolNamePrefix } from "../catalog/naming.js";
import { isSwitchyardError } from "../errors.js";
import { checkedByRun, checkToolArguments } from "./arguments.js";
import type { ToolResult } from "./normalize.js";
import { admit, type PolicyStageOptions } from "./policy-step.js";
import type { RequestRecord } from "./recorder.js";
import type { RequestContext, RequestInput, RequestResult } from "./request.js";
import type { Resolved } from "./resolve.js";
import { isRepeatable } from "./retry.js";
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

/** Sends an admitted request to the server `resolved` names (the pipeline's guarded send). */
export type SendTo = (resolved: Resolved, context: RequestContext) => Promise<RequestResult>;

/**
 * A tool call whose server names fallbacks: to the first that can serve it when the server is down
 * now, else to the server — and, when it could not serve it (see {@link couldNotServe}), to a fallback.
 * With none that can, the call fails as the server failed it.
 */
export async function serveWithFallback(
  fallbacks: readonly string[],
  resolved: Resolved,
  context: RequestContext,
  record: RequestRecord,
  parts: FallbackParts,
  send: SendTo,
): Promise<RequestResult> {
  if (parts.server(resolved.server)!.down) {
    const moved = await chooseFallback(fallbacks, resolved, context, parts);
    if (moved) return sendFallback(moved, record, send);
  }
  try {
    return await send(resolved, context);
  } catch (error) {
    if (!couldNotServe(error, isRepeatable(resolved.entry?.annotations))) throw error;
    const moved = await chooseFallback(fallbacks, resolved, context, parts);
    if (!moved) throw error;
    return sendFallback(moved, record, send);
  }
}

/**
 * A tool call of a server that never listed its tools ({@link unlistedTool}): only a fallback can
 * serve it, checked and admitted there (the run's `check` first); with none, it fails as resolving did.
 */
export async function serveUnlisted(
  input: Extract<RequestInput, { kind: "tool" }>,
  resolved: Resolved,
  context: RequestContext,
  record: RequestRecord,
  parts: FallbackParts,
  send: SendTo,
): Promise<RequestResult> {
  const given = checkedByRun(input, resolved, context, { type: "object" });
  context.args = (given ?? {}) as Record<string, unknown>;
  const moved = await chooseFallback(parts.server(resolved.server)!.fallback!, resolved, context, parts);
  if (!moved) throw resolved.unlisted;
  return sendFallback(moved, record, send);
}

/** A tool call sent to a fallback: recorded as served by it, and its result says so (`servedBy`). */
async function sendFallback(
  moved: FallbackCall,
  record: RequestRecord,
  send: SendTo,
): Promise<RequestResult> {
  const servedBy = moved.context.server;
  record.servedBy(servedBy);
  record.admitted(moved.context);
  try {
    return { ...((await send(moved.resolved, moved.context)) as ToolResult), servedBy };
  } finally {
    moved.context.deadline.dispose();
  }
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
  const tool = name.slice(toolNamePrefix(server.namespace).length);
  return { name, server: error.server, tool, target: { name, server: error.server, tool }, unlisted: error };
}

/** A server's tool by its own name, when it can be called (listed, not quarantined, supported). */
function toolOn(catalog: Catalog, server: string, tool: string): CatalogEntry | undefined {
  const entry = catalog.entryOf(server, tool);
  return entry?.unsupported === undefined ? entry : undefined;
}
