// What a server lists: its tools always; its resources, resource templates and prompts when its
// capabilities offer them. Every page of each (the SDK's list calls follow the cursors).
import type { Client, Prompt, Resource, ResourceTemplateType, Tool } from "@modelcontextprotocol/client";
import { readableFailure } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";

/** What a server lists in one life (every page, before the catalog's filters). */
export interface ServerLists {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplateType[];
  prompts: Prompt[];
}

/**
 * List every page of the server's tools, then of its resources, resource templates and prompts, each
 * only when its capabilities offer it. A server that fails the latter lists still connects: its tools
 * work; the failure is logged and the list left empty.
 * @throws what listing the tools throws, and any failure once `signal` is aborted.
 */
export async function listServer(
  client: Client,
  { signal, logger }: { signal: AbortSignal; logger: Logger },
): Promise<ServerLists> {
  const lists: ServerLists = {
    tools: (await client.listTools(undefined, { signal })).tools,
    resources: [],
    resourceTemplates: [],
    prompts: [],
  };
  const offers = client.getServerCapabilities() ?? {};
  const list = async <T>(what: string, run: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await run();
    } catch (error) {
      if (signal.aborted) throw error;
      logger.warn({}, `could not list the server's ${what}: ${readableFailure(error)}`);
      return [];
    }
  };
  if (offers.resources) {
    lists.resources = await list(
      "resources",
      async () => (await client.listResources(undefined, { signal })).resources,
    );
    lists.resourceTemplates = await list(
      "resource templates",
      async () => (await client.listResourceTemplates(undefined, { signal })).resourceTemplates,
    );
  }
  if (offers.prompts)
    lists.prompts = await list(
      "prompts",
      async () => (await client.listPrompts(undefined, { signal })).prompts,
    );
  return lists;
}

/**
 * The resource templates listed again, after `notifications/resources/list_changed` (the SDK lists only
 * the resources); `previous` when that fails (logged at debug).
 */
export async function listResourceTemplatesAgain(
  client: Client,
  previous: ResourceTemplateType[],
  logger: Logger,
): Promise<ResourceTemplateType[]> {
  try {
    return (await client.listResourceTemplates()).resourceTemplates;
  } catch (failure) {
    logger.debug({}, `could not list resource templates again: ${readableFailure(failure)}`);
    return previous;
  }
}
