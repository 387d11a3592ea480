// switchyard/ai-sdk: the catalog as AI SDK tools, every call through the Switchyard's pipeline.
import type { ModelMessage, PrepareStepFunction, Tool, ToolSet } from "ai";
import { jsonSchema, tool } from "ai";
import type { Switchyard } from "../switchyard.js";
import { type AdapterCallOptions, adapterTools, callThroughPipeline, ToolCallError } from "./call.js";
import { type RoutableMessage, type SelectorOptions, toolSelector } from "./route.js";

export { type AdapterCallOptions, ToolCallError } from "./call.js";
export type { RoutableMessage, SelectorOptions } from "./route.js";

/** Options of {@link aiSdkTools}. */
export interface AiSdkToolsOptions extends AdapterCallOptions {
  /** Only these catalog names (each must be one the identity may call); default: every tool it may call. */
  names?: Iterable<string>;
}

/**
 * The catalog as an AI SDK `ToolSet` for `generateText` / `streamText` (`tools: aiSdkTools(yard)`):
 * each tool's JSON Schema as its `inputSchema`, each call through `yard.callTool` — arguments validated
 * and coerced, policy, breaker, bulkhead, deadline, retries, records — with the step's `abortSignal`
 * as the call's signal and its `toolCallId` as the call's id. The output is the text the agent would
 * give the model (shaped to its budget, with its anchor line). A call that fails — bad arguments, a
 * refusal, a server down, a tool error — throws a {@link ToolCallError} (its `code`; its message the
 * agent's text for it), which the AI SDK hands the model as the call's tool error.
 */
export function aiSdkTools(yard: Switchyard, options: AiSdkToolsOptions = {}): ToolSet {
  const set: Record<string, Tool> = {};
  for (const entry of adapterTools(yard, options)) {
    set[entry.name] = tool({
      description: entry.description,
      inputSchema: jsonSchema<Record<string, unknown>>(entry.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: async (input, { toolCallId, abortSignal }) => {
        const outcome = await callThroughPipeline(
          yard,
          {
            name: entry.name,
            args: input,
            callId: toolCallId,
            ...(abortSignal ? { signal: abortSignal } : {}),
          },
          options,
        );
        if (outcome.record.ok) return outcome.content;
        throw new ToolCallError(outcome);
      },
    });
  }
  return set;
}

/** The text of a model message (text parts, and tool outputs, joined). */
function textOf(message: ModelMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content
    .map((part) => {
      if (part.type === "text") return part.text;
      if (part.type === "tool-result") {
        const output = part.output as { type: string; value?: unknown };
        return typeof output.value === "string" ? output.value : JSON.stringify(output.value ?? "");
      }
      return "";
    })
    .join("");
}

/** The catalog names of the tools called so far in these messages. */
function usedTools(messages: readonly ModelMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === "assistant" && typeof message.content !== "string"
      ? message.content.flatMap((part) => (part.type === "tool-call" ? [part.toolName] : []))
      : [],
  );
}

/**
 * Routing as a step preparer: `prepareStep: routedStep(yard)` offers, at each step, the tools the
 * Switchyard's router picks for the conversation so far (`activeTools`; the config's `routing` section,
 * or `options.router`), of those the identity may call. Tools already called stay offered.
 */
export function routedStep(yard: Switchyard, options: SelectorOptions = {}): PrepareStepFunction<ToolSet> {
  const select = activeToolsFor(yard, options);
  return async ({ messages }) => ({ activeTools: await select(messages) });
}

/**
 * The routed subset as names, for `activeTools` (`activeTools: await activeToolsFor(yard)(messages)`) or
 * a `prepareStep` of one's own.
 */
export function activeToolsFor(
  yard: Switchyard,
  options: SelectorOptions = {},
): (messages: readonly ModelMessage[]) => Promise<string[]> {
  const select = toolSelector(yard, options);
  return (messages) =>
    select(
      messages.map((message): RoutableMessage => ({ role: message.role, content: textOf(message) })),
      usedTools(messages),
    );
}
