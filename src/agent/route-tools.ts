import type { ChatMessage } from "../models/model.js";
import { type CatalogTool, catalogToolDescriptors, type ServerAbout } from "../routing/catalog-tools.js";
import type { Conversation } from "../routing/conversation.js";
import { Router, type RouterOptions } from "../routing/router.js";
import type { SelectionContext } from "./agent.js";

/** What the router glue needs of a Switchyard. */
export interface RoutableHost {
  tools(): CatalogTool[];
  catalogKey(): string;
  serverInstructions(name: string): string | undefined;
}

/** Characters of each assistant or tool message the router sees (they weigh little anyway). */
const CONTEXT_CHARS = 300;
/** Assistant and tool messages the router sees, the most recent ones. */
const CONTEXT_MESSAGES = 4;

/**
 * A `selectTools` for the agent that offers, each step, the tools a {@link Router} picks for the
 * conversation so far: the latest user message weighs most, earlier ones and tools already used count,
 * used tools stay offered, and a small catalog is offered whole. The router's index is rebuilt only
 * when the catalog changes.
 */
export function routeTools(
  host: RoutableHost,
  options: RouterOptions = {},
): (context: SelectionContext) => Promise<readonly string[]> {
  let key: string | undefined;
  let router: Router | undefined;
  return async ({ messages, usedTools }) => {
    if (!router || key !== host.catalogKey()) {
      key = host.catalogKey();
      const tools = host.tools();
      const about = new Map<string, ServerAbout>();
      for (const server of new Set(tools.map((tool) => tool.server))) {
        const instructions = host.serverInstructions(server);
        if (instructions) about.set(server, { description: instructions });
      }
      router = new Router(catalogToolDescriptors(tools, about), options);
    }
    const offered = await router.select(toConversation(messages, usedTools));
    return offered.map((tool) => tool.id);
  };
}

function toConversation(messages: readonly ChatMessage[], usedTools: ReadonlySet<string>): Conversation {
  const users = messages.filter((message) => message.role === "user").map((message) => message.content);
  const others = messages
    .filter((message) => message.role === "assistant" || message.role === "tool")
    .map((message) => (message.content ?? "").slice(0, CONTEXT_CHARS))
    .filter(Boolean)
    .slice(-CONTEXT_MESSAGES);
  return {
    latestUserMessage: users.at(-1) ?? "",
    earlierUserMessages: users.slice(0, -1),
    otherMessages: others,
    usedToolNames: [...usedTools],
  };
}
