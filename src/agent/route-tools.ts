import { DEFAULT_ROUTING_CONTEXT_CHARS, DEFAULT_ROUTING_CONTEXT_MESSAGES } from "../config/defaults.js";
import type { ChatMessage } from "../models/model.js";
import { followCatalog, followingOf, type RoutableHost } from "../routing/catalog-router.js";
import type { Conversation } from "../routing/conversation.js";
import { Router, type RouterOptions } from "../routing/router.js";
import type { SelectionContext } from "./agent.js";
import type { QueryRewriter } from "./query-rewrite.js";

export {
  type RoutableCatalogChange,
  type RoutableHost,
  type RoutingSection,
  routerFor,
  syncRouter,
} from "../routing/catalog-router.js";

/**
 * A `selectTools` for the agent that offers, each step, the tools a {@link Router} picks for the
 * conversation so far: the latest user message weighs most, earlier ones and tools already used count,
 * used tools stay offered, and a small catalog is offered whole. Give it a router (from
 * {@link routerFor}), or router options for a router of its own; either way the router follows the
 * host's catalog, one server at a time. With a `rewrite` ({@link QueryRewriter}, `routing.rewrite`), the
 * latest user message is first rewritten by the model into tool needs, each ranked as a part of it.
 */
export function routeTools(
  host: RoutableHost,
  router: Router | RouterOptions = {},
  options: { rewrite?: QueryRewriter | undefined } = {},
): (context: SelectionContext) => Promise<readonly string[]> {
  const entry =
    router instanceof Router
      ? (followingOf(router) ?? { router, sync: () => {} })
      : followCatalog(host, router);
  return async ({ messages, usedTools, explain }) => {
    entry.sync();
    const conversation = toConversation(messages, usedTools);
    // A catalog offered whole needs no ranking, so no rewrite either.
    const needs =
      options.rewrite && !entry.router.offersAll
        ? await options.rewrite.needs(conversation.latestUserMessage)
        : [];
    const offered = await entry.router.select(needs.length ? { ...conversation, needs } : conversation);
    // The step's record keeps each tool's score and why it was offered (ranked, pinned, used, all).
    explain?.(
      offered.map((tool) => ({
        name: tool.id,
        reason: tool.reason,
        ...(tool.score !== undefined ? { score: Math.round(tool.score * 1000) / 1000 } : {}),
      })),
    );
    return offered.map((tool) => tool.id);
  };
}

/** The conversation an agent step routes on. */
export function toConversation(
  messages: readonly ChatMessage[],
  usedTools: Iterable<string> = [],
): Conversation {
  const users = messages.filter((message) => message.role === "user").map((message) => message.content);
  const others = messages
    .filter((message) => message.role === "assistant" || message.role === "tool")
    .map((message) => (message.content ?? "").slice(0, DEFAULT_ROUTING_CONTEXT_CHARS))
    .filter(Boolean)
    .slice(-DEFAULT_ROUTING_CONTEXT_MESSAGES);
  return {
    latestUserMessage: users.at(-1) ?? "",
    earlierUserMessages: users.slice(0, -1),
    otherMessages: others,
    usedToolNames: [...usedTools],
  };
}
