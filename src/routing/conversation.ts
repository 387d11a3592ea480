import {
  DEFAULT_EARLIER_USER_MESSAGE_WEIGHT,
  DEFAULT_OTHER_MESSAGE_WEIGHT,
  DEFAULT_USED_TOOL_WEIGHT,
} from "../config/defaults.js";
import type { QueryPart, RoutingQuery } from "./query.js";

/** What the router sees of a conversation when it picks tools for the next model step. */
export interface Conversation {
  /** The message the model is about to answer: it weighs most. */
  latestUserMessage: string;
  /** Earlier user messages, oldest first. */
  earlierUserMessages?: readonly string[];
  /** Assistant replies and tool results worth a little weight (kept short by the caller), oldest first. */
  otherMessages?: readonly string[];
  /** Catalog names (tool ids) of the tools the model already called, oldest first. */
  usedToolNames?: readonly string[];
  /** The latest user message rewritten into tool needs (`routing.rewrite`; see RoutingQuery's `needs`). */
  needs?: readonly string[];
}

/** How much the parts of a conversation weigh beside the latest user message (weight 1). */
export interface ConversationWeights {
  /** Each earlier user message; default {@link DEFAULT_EARLIER_USER_MESSAGE_WEIGHT}. */
  earlierUserMessage?: number;
  /** Each assistant or tool message; default {@link DEFAULT_OTHER_MESSAGE_WEIGHT}. */
  otherMessage?: number;
  /** The text of each tool already used; default {@link DEFAULT_USED_TOOL_WEIGHT}. */
  usedTool?: number;
}

export {
  DEFAULT_EARLIER_USER_MESSAGE_WEIGHT,
  DEFAULT_OTHER_MESSAGE_WEIGHT,
  DEFAULT_USED_TOOL_WEIGHT,
} from "../config/defaults.js";

/**
 * The routing query of a conversation: the latest user message, with earlier messages and the names
 * of used tools as weighted context.
 */
export function conversationQuery(
  conversation: Conversation,
  options: { weights?: ConversationWeights; toolText?: (id: string) => string | undefined } = {},
): RoutingQuery {
  const weights = options.weights ?? {};
  const context: QueryPart[] = [];
  const add = (texts: readonly string[] | undefined, weight: number) => {
    for (const text of texts ?? []) if (text.trim()) context.push({ text, weight });
  };
  add(conversation.earlierUserMessages, weights.earlierUserMessage ?? DEFAULT_EARLIER_USER_MESSAGE_WEIGHT);
  add(conversation.otherMessages, weights.otherMessage ?? DEFAULT_OTHER_MESSAGE_WEIGHT);
  add(
    conversation.usedToolNames?.map((id) => options.toolText?.(id) ?? id),
    weights.usedTool ?? DEFAULT_USED_TOOL_WEIGHT,
  );
  const needs = conversation.needs?.length ? { needs: conversation.needs } : {};
  return context.length > 0
    ? { text: conversation.latestUserMessage, context, ...needs }
    : { text: conversation.latestUserMessage, ...needs };
}

/** A line that opens a turn of a transcript: `user: …`, `assistant: …`, `system: …`, `tool: …`. */
const TURN = /^\s*(user|assistant|system|tool)\s*[:：]\s?(.*)$/i;

/**
 * Read a conversation written as a transcript, one turn per `role: text` line (a turn may run over
 * several lines). Returns `undefined` when the text does not open with a role or has no user turn, so
 * plain requests stay plain.
 */
export function parseTranscript(text: string): Conversation | undefined {
  const lines = text.split("\n");
  if (!TURN.test(lines[0] ?? "")) return undefined;
  const turns: Array<{ role: string; text: string }> = [];
  for (const line of lines) {
    const match = TURN.exec(line);
    if (match) turns.push({ role: match[1]!.toLowerCase(), text: match[2]! });
    else turns[turns.length - 1]!.text += `\n${line}`;
  }
  const users = turns.filter((turn) => turn.role === "user").map((turn) => turn.text);
  const latest = users.pop();
  if (latest === undefined) return undefined;
  return {
    latestUserMessage: latest,
    earlierUserMessages: users,
    otherMessages: turns.filter((turn) => turn.role !== "user").map((turn) => turn.text),
  };
}

/** The routing query of a text: a transcript becomes a conversation, anything else a plain request. */
export function queryFromText(text: string): RoutingQuery {
  const conversation = parseTranscript(text);
  return conversation ? conversationQuery(conversation) : { text };
}
