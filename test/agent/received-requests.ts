// What a scripted model server received, read back for context tests: counted with the model's
// tokenizer, and checked for tool messages that lost their assistant message.
import { expect } from "vitest";
import { tokenCounterFor } from "../../src/context/tokens.js";
import type { ChatMessage } from "../../src/index.js";
import type { ReceivedRequest } from "../../src/testing/index.js";

/** An OpenAI model name, so that tokens are counted exactly (the agent and the test count alike). */
export const MODEL = "gpt-4o-mini";
export const counter = tokenCounterFor(MODEL);

/** A received request's messages, back in Switchyard's form. */
export function asChat(request: ReceivedRequest): ChatMessage[] {
  return request.messages.map((m): ChatMessage => {
    if (m.role === "tool")
      return { role: "tool", toolCallId: String(m.tool_call_id), content: String(m.content) };
    if (m.role === "assistant") {
      const calls =
        (m.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>) ?? [];
      return {
        role: "assistant",
        content: (m.content as string | null) ?? null,
        ...(calls.length
          ? {
              toolCalls: calls.map((c) => ({
                id: c.id,
                name: c.function.name,
                arguments: c.function.arguments,
              })),
            }
          : {}),
      };
    }
    return { role: m.role as "user" | "system", content: String(m.content) };
  });
}

/** Tokens of a received request: its messages and its tools. */
export function requestTokens(request: ReceivedRequest): number {
  const tools = (request.tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description ?? "",
    parameters: t.function.parameters,
  }));
  return counter.countMessages(asChat(request)) + counter.countTools(tools);
}

/** Every tool message follows, in the same block, the assistant message that asked for it. */
export function expectPaired(request: ReceivedRequest): void {
  let asked = new Set<string>();
  for (const m of request.messages) {
    if (m.role === "assistant") {
      asked = new Set(((m.tool_calls as Array<{ id: string }>) ?? []).map((c) => c.id));
    } else if (m.role === "tool") {
      expect(
        asked.has(String(m.tool_call_id)),
        `tool message ${m.tool_call_id} follows its assistant message`,
      ).toBe(true);
    } else asked = new Set();
  }
}
