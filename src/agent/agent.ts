import type { AnchorFormat } from "../context/shape-result.js";
import { isSwitchyardError, messageOf } from "../errors.js";
import type { ChatMessage, ModelProvider, ModelTool, ToolCall } from "../models/model.js";
import { toModelParameters } from "../models/tool-schema.js";
import { type AgentEvent, type CallRecord, elapsedMs, type StopReason } from "./events.js";
import {
  type CallGuard,
  DEFAULT_MAX_IDENTICAL_CALLS,
  DEFAULT_MAX_STEPS,
  identicalCallLimit,
  type RunState,
  type StopCondition,
  skipUnavailableServers,
  stepLimit,
} from "./guards.js";
import { runToolCall, type ToolHost } from "./run-call.js";

/** The system prompt when none is given. */
export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant with tools. Call tools when they help answer the question; you may call " +
  "several at once when they do not depend on each other, and use one tool's result as the next tool's " +
  "input. Each tool result starts with a line naming the tool and its outcome. If a tool fails, read why " +
  "and fix the call, or answer with what you have. Answer in the user's language.";

/** What the agent needs of a Switchyard: the tools to offer, and a way to call them. */
export interface AgentHost extends ToolHost {
  tools(): Array<{ name: string; description: string; inputSchema: Record<string, unknown> }>;
}

/** What a tool selector sees: the conversation so far. */
export interface SelectionContext {
  messages: readonly ChatMessage[];
  /** Catalog names already called in this conversation. */
  usedTools: ReadonlySet<string>;
}

export interface AgentOptions {
  model: ModelProvider;
  host: AgentHost;
  systemPrompt?: string;
  /** Model turns before the run stops with `max_steps`; default 8. */
  maxSteps?: number;
  /** Times the same tool may be called with the same arguments in one run; default 3. */
  maxIdenticalCalls?: number;
  /** Run a step's tool calls concurrently (default) or one after another. */
  parallelToolCalls?: boolean;
  /** More stop conditions, checked before each model turn after the step limit. */
  stopWhen?: StopCondition[];
  /** More call guards, checked before each tool call after the built-in ones. */
  callGuards?: CallGuard[];
  /** Picks the catalog names to offer each step (a router: see `routeTools`); default: every tool. */
  selectTools?: (context: SelectionContext) => readonly string[] | Promise<readonly string[]>;
  /** The line that opens each tool message; `false` for none. */
  anchor?: AnchorFormat | false;
  /** Characters of a tool result the model sees; default 8,000. */
  resultBudgetChars?: number;
  onEvent?: (event: AgentEvent) => void;
}

/** What a run returns. */
export interface AgentResult {
  answer: string;
  stopReason: StopReason;
  /** Model turns taken. */
  steps: number;
  calls: CallRecord[];
  /** The conversation without the system prompt: pass it as `history` to continue. */
  messages: ChatMessage[];
  /** Why the run failed, when `stopReason` is `error`. */
  error?: string;
}

export interface RunOptions {
  /** Earlier turns of the conversation (a previous result's `messages`). */
  history?: ChatMessage[];
  signal?: AbortSignal;
}

/**
 * The agent loop, one explicit step at a time: offer tools, ask the model, run every tool call it
 * asked for (concurrently), pair each result with its `tool_call_id` in call order right after the
 * assistant message, and go again with the full history — until the model answers or a guard stops it.
 */
export class Agent {
  readonly #options: AgentOptions;
  readonly #stopWhen: StopCondition[];
  readonly #guards: CallGuard[];
  readonly #toolCache = new WeakMap<object, ModelTool>();

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#stopWhen = [stepLimit(options.maxSteps ?? DEFAULT_MAX_STEPS), ...(options.stopWhen ?? [])];
    this.#guards = [
      skipUnavailableServers(),
      identicalCallLimit(options.maxIdenticalCalls ?? DEFAULT_MAX_IDENTICAL_CALLS),
      ...(options.callGuards ?? []),
    ];
  }

  /**
   * Answer one question. Never throws for model or tool failures: they end the run with
   * `stopReason: "error"` and the reason in `error`.
   * @throws SwitchyardError `CANCELLED` when `signal` aborts.
   */
  async run(question: string, options: RunOptions = {}): Promise<AgentResult> {
    const messages: ChatMessage[] = [...(options.history ?? []), { role: "user", content: question }];
    const calls: CallRecord[] = [];
    const callCounts = new Map<string, number>();
    const unavailableServers = new Set<string>();
    const usedTools = new Set(usedToolNames(messages));
    const state: RunState = { step: 0, messages, calls, callCounts, unavailableServers };
    const emit = (event: AgentEvent) => this.#options.onEvent?.(event);
    const finish = (stopReason: StopReason, answer: string, error?: string): AgentResult => {
      emit({ type: "stopped", step: state.step, reason: stopReason, ...(error ? { message: error } : {}) });
      return { answer, stopReason, steps: state.step, calls, messages, ...(error ? { error } : {}) };
    };

    for (;;) {
      for (const condition of this.#stopWhen) {
        const decision = condition(state);
        if (decision) return finish(decision.reason, decision.message, decision.message);
      }
      state.step += 1;
      let offered: ModelTool[];
      try {
        offered = await this.#offer(messages, usedTools);
      } catch (error) {
        return finish("error", `Choosing the tools to offer failed: ${messageOf(error)}`, messageOf(error));
      }
      emit({ type: "step_started", step: state.step, tools: offered.length });

      const started = performance.now();
      let response: Awaited<ReturnType<ModelProvider["complete"]>>;
      try {
        response = await this.#options.model.complete({
          messages: [
            { role: "system", content: this.#options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
            ...messages,
          ],
          tools: offered,
          parallelToolCalls: this.#options.parallelToolCalls !== false,
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (error) {
        if (isSwitchyardError(error, "CANCELLED")) throw error;
        return finish("error", `The model failed: ${messageOf(error)}`, messageOf(error));
      }
      emit({
        type: "model_answered",
        step: state.step,
        ms: elapsedMs(started),
        toolCalls: response.toolCalls.length,
        text: response.content,
      });

      const toolCalls = uniqueIds(response.toolCalls, state.step);
      messages.push(
        toolCalls.length
          ? { role: "assistant", content: response.content, toolCalls }
          : { role: "assistant", content: response.content ?? "" },
      );
      if (toolCalls.length === 0) {
        const answer = response.content ?? "";
        emit({ type: "answer", step: state.step, text: answer });
        return finish("answer", answer);
      }

      const results = await this.#runCalls(toolCalls, {
        state,
        offered: offered.map((tool) => tool.name),
        emit,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      for (const [index, call] of toolCalls.entries()) {
        const result = results[index]!;
        messages.push({ role: "tool", toolCallId: call.id, content: result.content });
        calls.push(result.record);
        usedTools.add(call.name);
        if (result.sentKey) callCounts.set(result.sentKey, (callCounts.get(result.sentKey) ?? 0) + 1);
        if (result.downServer) unavailableServers.add(result.downServer);
      }
    }
  }

  async #runCalls(
    toolCalls: ToolCall[],
    context: { state: RunState; offered: string[]; emit: (event: AgentEvent) => void; signal?: AbortSignal },
  ) {
    const { state, emit } = context;
    const one = async (call: ToolCall) => {
      emit({
        type: "call_started",
        step: state.step,
        id: call.id,
        name: call.name,
        arguments: call.arguments,
      });
      const report = await runToolCall(call, {
        host: this.#options.host,
        guards: this.#guards,
        state,
        offered: context.offered,
        ...(this.#options.anchor !== undefined ? { anchor: this.#options.anchor } : {}),
        ...(this.#options.resultBudgetChars !== undefined
          ? { budgetChars: this.#options.resultBudgetChars }
          : {}),
        ...(context.signal ? { signal: context.signal } : {}),
      });
      emit({ type: "call_finished", step: state.step, ...report.record });
      return report;
    };
    if (this.#options.parallelToolCalls === false) {
      const reports = [];
      for (const call of toolCalls) reports.push(await one(call));
      return reports;
    }
    return Promise.all(toolCalls.map(one));
  }

  async #offer(messages: ChatMessage[], usedTools: ReadonlySet<string>): Promise<ModelTool[]> {
    const all = this.#options.host.tools();
    const chosen = this.#options.selectTools
      ? new Set(await this.#options.selectTools({ messages, usedTools }))
      : undefined;
    return all
      .filter((tool) => !chosen || chosen.has(tool.name))
      .map((tool) => {
        let modelTool = this.#toolCache.get(tool.inputSchema);
        if (!modelTool || modelTool.name !== tool.name || modelTool.description !== tool.description) {
          modelTool = {
            name: tool.name,
            description: tool.description,
            parameters: toModelParameters(tool.inputSchema),
          };
          this.#toolCache.set(tool.inputSchema, modelTool);
        }
        return modelTool;
      });
  }
}

/** Some servers repeat or omit tool call ids; results are paired by id, so each must be unique. */
function uniqueIds(calls: ToolCall[], step: number): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call, index) => {
    const id = call.id && !seen.has(call.id) ? call.id : `call_${step}_${index}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

function usedToolNames(messages: readonly ChatMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.name) : [],
  );
}
