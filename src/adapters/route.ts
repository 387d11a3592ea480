// Routing for the adapters: the Switchyard's router, over a conversation in plain (role, text) form.
import { routerFor, routeTools } from "../agent/route-tools.js";
import type { ChatMessage } from "../models/model.js";
import type { RouterOptions } from "../routing/router.js";
import type { Switchyard } from "../switchyard.js";
import type { Identity } from "../telemetry/audit.js";

/** A message as the router reads it: who said it and its text. */
export interface RoutableMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
}

/** Options of a tool selector. */
export interface SelectorOptions {
  /** Router options in place of the config's `routing` section (top k, strategy, pinned tools). */
  router?: RouterOptions;
  /** Offer only what this identity may call; default: the Switchyard's identity. */
  identity?: Identity;
}

/**
 * A function from a conversation to the catalog names worth offering for it: the router the agent
 * uses (the config's `routing` section, kept in step with the catalog), limited to what the identity
 * may call. Tools already called in the conversation stay offered.
 */
export function toolSelector(
  yard: Switchyard,
  options: SelectorOptions = {},
): (messages: readonly RoutableMessage[], usedTools?: Iterable<string>) => Promise<string[]> {
  const select = routeTools(yard, options.router ?? routerFor(yard, yard.config.routing));
  return async (messages, usedTools = []) => {
    const callable = new Set(
      yard
        .tools(options.identity ? { identity: options.identity } : {})
        .filter((tool) => tool.unsupported === undefined && !tool.appOnly)
        .map((tool) => tool.name),
    );
    const chat: ChatMessage[] = messages.map((message) =>
      message.role === "tool"
        ? { role: "tool", toolCallId: "", content: message.content }
        : { role: message.role, content: message.content },
    );
    const names = await select({ messages: chat, usedTools: new Set(usedTools) });
    return names.filter((name) => callable.has(name));
  };
}
