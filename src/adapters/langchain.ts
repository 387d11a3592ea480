// switchyard/langchain: the catalog as LangChain tools, every call through the Switchyard's pipeline.
import type { BaseMessage } from "@langchain/core/messages";
import { ToolMessage } from "@langchain/core/messages";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { tool } from "@langchain/core/tools";
import type { Switchyard } from "../switchyard.js";
import { type AdapterCallOptions, adapterTools, callThroughPipeline, ToolCallError } from "./call.js";
import { type RoutableMessage, type SelectorOptions, toolSelector } from "./route.js";

export { type AdapterCallOptions, ToolCallError } from "./call.js";
export type { RoutableMessage, SelectorOptions } from "./route.js";

/** Options of {@link langchainTools}. */
export interface LangChainToolsOptions extends AdapterCallOptions {
  /** Only these catalog names (each must be one the identity may call); default: every tool it may call. */
  names?: Iterable<string>;
}

/**
 * The catalog as LangChain structured tools (JSON Schema arguments, as the servers declare them), for
 * `model.bindTools(tools)` and LangGraph's `ToolNode`. Each call goes through `yard.callTool`: arguments
 * validated and coerced, policy, breaker, bulkhead, deadline, retries, records. The result is the text
 * the agent would give the model (shaped to its budget, with its anchor line). A call that fails —
 * bad arguments, a refusal, a server down, a tool error — comes back, when the model asked for it, as a
 * `ToolMessage` with `status: "error"` and the agent's text for that error; invoked without a tool call,
 * it throws a {@link ToolCallError} with that text and its code.
 */
export function langchainTools(
  yard: Switchyard,
  options: LangChainToolsOptions = {},
): DynamicStructuredTool[] {
  return adapterTools(yard, options).map(
    (entry) =>
      tool(
        async (input: unknown, config?: { toolCall?: { id?: string }; signal?: AbortSignal }) => {
          const callId = config?.toolCall?.id;
          const outcome = await callThroughPipeline(
            yard,
            {
              name: entry.name,
              args: input,
              ...(callId ? { callId } : {}),
              ...(config?.signal ? { signal: config.signal } : {}),
            },
            options,
          );
          if (outcome.record.ok) return outcome.content;
          const failure = new ToolCallError(outcome);
          if (!callId) throw failure;
          return new ToolMessage({
            status: "error",
            name: entry.name,
            tool_call_id: callId,
            content: outcome.content,
            additional_kwargs: { switchyard: { code: failure.code } },
          });
        },
        {
          name: entry.name,
          description: entry.description,
          schema: entry.inputSchema,
          verboseParsingErrors: true,
        },
      ) as DynamicStructuredTool,
  );
}

/** The text of a LangChain message's content (text parts joined). */
function textOf(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content
    .map((part) => (typeof part === "string" ? part : part.type === "text" ? String(part.text ?? "") : ""))
    .join("");
}

const ROLES: Record<string, RoutableMessage["role"]> = {
  human: "user",
  ai: "assistant",
  system: "system",
  tool: "tool",
};

/**
 * Routing as a tool selector: `selectTools(messages)` resolves with the tools worth offering for the
 * conversation so far (the Switchyard's router: the config's `routing` section, or `options.router`),
 * as LangChain tools — bind them for this turn with `model.bindTools(await selectTools(messages))`.
 * Tools already called in the conversation stay offered.
 */
export function toolSelectorFor(
  yard: Switchyard,
  options: SelectorOptions & AdapterCallOptions = {},
): (messages: readonly BaseMessage[]) => Promise<DynamicStructuredTool[]> {
  const select = toolSelector(yard, options);
  const all = new Map<number, Map<string, DynamicStructuredTool>>();
  return async (messages) => {
    const used = messages.flatMap((message) =>
      message.getType() === "ai"
        ? ((message as { tool_calls?: Array<{ name: string }> }).tool_calls ?? []).map((call) => call.name)
        : [],
    );
    const names = await select(
      messages.map((message) => ({ role: ROLES[message.getType()] ?? "user", content: textOf(message) })),
      used,
    );
    // The tool objects are made once per catalog version: a turn's selection reuses them.
    let byName = all.get(yard.catalogVersion);
    if (!byName) {
      all.clear();
      byName = new Map(langchainTools(yard, options).map((made) => [made.name, made]));
      all.set(yard.catalogVersion, byName);
    }
    return names.flatMap((name) => byName.get(name) ?? []);
  };
}
