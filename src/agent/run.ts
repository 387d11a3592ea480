import { abortable } from "../abort.js";
import { type ContextSettings, markToolResult } from "../context/active.js";
import { type Compaction, compactionOf } from "../context/compact.js";
import { ResultHandles, readMoreHint } from "../context/handles.js";
import { isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { ChatMessage, ModelTool, ToolCall } from "../models/model.js";
import { RunSpans } from "../telemetry/tracer.js";
import type { AgentOptions, AgentResult, OfferedWhy, RunOptions } from "./agent.js";
import { attachResources } from "./attach.js";
import type { CallRecord, StepRecord, SwitchyardEvent } from "./events.js";
import type { CallGuard, StopCondition } from "./guards.js";
import { type LocalTool, type LocalToolState, LocalTools } from "./local-tools.js";
import { takeModelTurn } from "./model-turn.js";
import type { ToolOffer } from "./offer.js";
import { type CallOutcomeReport, runToolCall } from "./run-call.js";
import { cancelMessage, type RunStop, runResult } from "./run-result.js";
import { systemPromptOf } from "./system-prompt.js";

/** What a call refused on the last step is told (the model was offered no tools, and asked anyway). */
const NOT_MADE_ON_LAST_STEP =
  "not made: this was the run's last step (maxSteps), on which no tools can be called.";

/**
 * Where a run is, and so what it does next (as agents-core's `runner/steps.ts`): choose the tools for a
 * model turn; ask the model; run the calls it asked for; weigh its answer (one nudge when it answered
 * before calling anything); stop, with why.
 */
type Step =
  | { type: "offer" }
  | { type: "ask"; offered: ModelTool[]; why: Map<string, OfferedWhy>; last: boolean }
  | { type: "calls"; toolCalls: ToolCall[]; offered: ModelTool[]; last: boolean }
  | { type: "answered"; text: string; offered: ModelTool[]; last: boolean }
  | ({ type: "stop" } & RunStop);

/** What an agent gives each of its runs. */
export interface RunParts {
  options: AgentOptions;
  context: ContextSettings;
  /** Whether results too large for their share are kept behind handles. */
  handles: boolean;
  maxSteps: number;
  stopWhen: readonly StopCondition[];
  guards: readonly CallGuard[];
  /** Count each tool's calls in a run (for `maxCallsPerTool`); false when no limit is set. */
  countTools: boolean;
  /** A call that timed out puts its server out for the rest of the run (`skipServerAfter: "timeout"`). */
  skipAfterTimeout: boolean;
  localTools: readonly LocalTool[];
  offer: ToolOffer;
}

/** One run of an agent: its conversation, its record, and the loop over its steps. */
export class AgentRun {
  readonly #parts: RunParts;
  readonly #question: string;
  readonly #options: RunOptions;
  readonly runId: string;
  readonly #startedAt = new Date().toISOString();
  readonly #started = performance.now();
  readonly #messages: ChatMessage[];
  readonly #calls: CallRecord[] = [];
  readonly #steps: StepRecord[] = [];
  readonly #usedTools: Set<string>;
  /** The fallback nudge's reminder, once sent: a user message the user did not write. */
  readonly #reminders = new Set<ChatMessage>();
  /** How many times each (tool, arguments) pair was sent; the servers and tools found unusable. */
  readonly #callCounts = new Map<string, number>();
  readonly #unavailableServers = new Set<string>();
  readonly #serverOutReasons = new Map<string, string>();
  /** Calls of each catalog tool that passed the guards, whatever their arguments (`maxCallsPerTool`). */
  readonly #toolCalls = new Map<string, number>();
  readonly #countTool = (name: string, delta: 1 | -1) =>
    this.#toolCalls.set(name, (this.#toolCalls.get(name) ?? 0) + delta);
  readonly #unavailableTools = new Set<string>();
  readonly #handles: ResultHandles;
  readonly #state: LocalToolState;
  readonly #locals: LocalTools;
  readonly #spans: RunSpans;
  /** The question stays word for word in every request, even once its round is summarized. */
  #questionIndex = 0;
  #compaction: Compaction;
  /** The fallback nudge is sent at most once per run. */
  #nudged = false;
  readonly #system: string;

  constructor(parts: RunParts, question: string, options: RunOptions, runId: string) {
    this.#parts = parts;
    this.#question = question;
    this.#options = options;
    this.runId = runId;
    this.#messages = [...(options.history ?? [])];
    this.#usedTools = new Set(usedToolNames(this.#messages));
    this.#handles = options.handles ?? new ResultHandles();
    this.#compaction = compactionOf(this.#messages);
    const identity = options.identity ?? parts.options.identity;
    this.#state = {
      step: 0,
      messages: this.#messages,
      reminders: this.#reminders,
      calls: this.#calls,
      callCounts: this.#callCounts,
      unavailableServers: this.#unavailableServers,
      serverOutReasons: this.#serverOutReasons,
      toolCalls: this.#toolCalls,
      unavailableTools: this.#unavailableTools,
      runId,
      handles: this.#handles,
      ...(identity ? { identity } : {}),
      offerable: (name) => parts.offer.offerable(identity, name),
    };
    this.#locals = new LocalTools(parts.localTools, this.#state);
    this.#spans = new RunSpans({ kind: "agent", runId, model: parts.options.model.name });
    const { systemPrompt, host } = parts.options;
    this.#system = systemPromptOf(systemPrompt, host, parts.context.counter, identity);
  }

  /** The run, to its end. Model and tool failures end it with `error`; only a host's own bug throws. */
  async run(): Promise<AgentResult> {
    const { signal, attach } = this.#options;
    this.#emit({
      type: "run_started",
      runId: this.runId,
      kind: "agent",
      time: this.#startedAt,
      input: this.#question,
    });
    let step: Step = { type: "offer" };
    try {
      if (attach?.length) step = await this.#attach(attach);
      this.#messages.push({ role: "user", content: this.#question });
      this.#questionIndex = this.#messages.length - 1;
      this.#compaction = compactionOf(this.#messages);
      while (step.type !== "stop") {
        if (signal?.aborted) step = this.#cancelled();
        else if (step.type === "offer") step = await this.#offer();
        else if (step.type === "ask") step = await this.#ask(step);
        else if (step.type === "calls") step = await this.#runCalls(step);
        else step = await this.#weigh(step);
      }
    } catch (error) {
      // A host or selector that throws the caller's cancel ends the run the same way.
      if (!(isSwitchyardError(error, "CANCELLED") || signal?.aborted)) {
        this.#spans.end("error", error);
        throw error;
      }
      step = this.#cancelled();
    }
    return this.#finish(step);
  }

  /** The first step's offer for the conversation as it stands, with why each tool was picked. */
  async preview(): Promise<Array<OfferedWhy & { description: string; local: boolean }>> {
    this.#state.step = 1;
    const why = new Map<string, OfferedWhy>();
    const offered = await this.#parts.offer.choose(this.#state, this.#usedTools, this.#locals, why);
    return offered.map((tool) => ({
      ...why.get(tool.name),
      name: tool.name,
      description: tool.description,
      local: this.#locals.isLocal(tool.name),
    }));
  }

  async #attach(uris: readonly string[]): Promise<Step> {
    const { host } = this.#parts.options;
    try {
      const note = await attachResources(uris, {
        host,
        runId: this.runId,
        identity: this.#state.identity,
        signal: this.#options.signal,
        onEvent: this.#parts.options.onEvent,
        budgetTokens: this.#parts.context.budget.result,
        counter: this.#parts.context.counter,
        cancelled: () => new SwitchyardError("CANCELLED", cancelMessage(this.#options.signal)),
      });
      this.#messages.push({ role: "user", content: note });
      return { type: "offer" };
    } catch (error) {
      return this.#failed("Attaching the resources failed", error);
    }
  }

  /** Before each model turn: the stop conditions, then the tools to offer (none on the last turn). */
  async #offer(): Promise<Step> {
    const state = this.#state;
    for (const condition of this.#parts.stopWhen) {
      const decision = condition(state);
      if (decision)
        return { type: "stop", reason: decision.reason, answer: decision.message, error: decision.message };
    }
    state.step += 1;
    this.#spans.step(state.step);
    const last = state.step >= this.#parts.maxSteps;
    let offered: ModelTool[] = [];
    const why = new Map<string, OfferedWhy>();
    if (!last) {
      try {
        offered = await this.#unlessAborted(
          this.#parts.offer.choose(state, this.#usedTools, this.#locals, why),
        );
      } catch (error) {
        return this.#failed("Choosing the tools to offer failed", error);
      }
    }
    this.#emit({
      type: "step_started",
      runId: this.runId,
      step: state.step,
      tools: offered.length,
      offered: offered.map((tool) => {
        const picked = why.get(tool.name);
        return picked ? { ...picked, name: tool.name } : tool.name;
      }),
    });
    return { type: "ask", offered, why, last };
  }

  /** One model turn: what it is sent is built from the working record within the window. */
  async #ask({ offered, last }: Extract<Step, { type: "ask" }>): Promise<Step> {
    const { options, context } = this.#parts;
    const signal = this.#options.signal;
    const turn = await takeModelTurn({
      model: options.model,
      systemPrompt: this.#system,
      parallelToolCalls: options.parallelToolCalls !== false,
      context,
      record: this.#messages,
      compaction: this.#compaction,
      question: this.#questionIndex,
      handles: this.#parts.handles ? this.#handles : undefined,
      offered,
      last,
      step: this.#state.step,
      spans: this.#spans,
      signal,
      unlessAborted: (work) => this.#unlessAborted(work),
    });
    if (turn.type === "failed") {
      if (turn.step) this.#steps.push(turn.step);
      if (signal?.aborted || isSwitchyardError(turn.error, "CANCELLED")) return this.#cancelled();
      const reason = messageOf(turn.error);
      const answer = turn.stage === "model" ? `The model failed: ${reason}` : reason;
      return { type: "stop", reason: "error", answer, error: reason, cause: turn.error };
    }
    const { response, toolCalls, tokens } = turn;
    this.#compaction = turn.compaction;
    this.#steps.push(turn.step);
    this.#emit({
      type: "model_answered",
      runId: this.runId,
      step: this.#state.step,
      ms: turn.step.modelMs,
      toolCalls: response.toolCalls.length,
      text: response.content,
      ...(tokens ? { tokens } : {}),
    });
    this.#messages.push(
      toolCalls.length
        ? { role: "assistant", content: response.content, toolCalls }
        : { role: "assistant", content: response.content ?? "" },
    );
    return toolCalls.length
      ? { type: "calls", toolCalls, offered, last }
      : { type: "answered", text: response.content ?? "", offered, last };
  }

  /** An answer. Before any tool was called in the run it may get one reminder (the fallback nudge, nudge.ts). */
  async #weigh({ text, offered, last }: Extract<Step, { type: "answered" }>): Promise<Step> {
    const nudge = this.#parts.options.nudge;
    if (nudge && !this.#nudged && !last && this.#calls.every((call) => this.#locals.isLocal(call.name))) {
      this.#nudged = true;
      const asked = {
        question: this.#question,
        answer: text,
        offered: offered.map((t) => t.name),
        state: this.#state,
      };
      // A nudge that fails leaves the answer as it is.
      const reminder = await Promise.resolve()
        .then(() => nudge(asked))
        .catch(() => undefined);
      if (this.#options.signal?.aborted) return this.#cancelled();
      if (reminder) {
        const message: ChatMessage = { role: "user", content: reminder };
        this.#reminders.add(message);
        this.#messages.push(message);
        return { type: "offer" };
      }
    }
    this.#emit({ type: "answer", runId: this.runId, step: this.#state.step, text });
    return { type: "stop", reason: "answer", answer: text };
  }

  /**
   * Run every tool call the model asked for (concurrently, unless `parallelToolCalls: false`) and pair
   * each result with its `tool_call_id`, in call order. On the last step no tool was offered: calls the
   * model asks for anyway are not made (each still gets its tool message, so the history stays valid).
   */
  async #runCalls({ toolCalls, offered, last }: Extract<Step, { type: "calls" }>): Promise<Step> {
    const names = offered.map((tool) => tool.name);
    const guards = last ? [() => NOT_MADE_ON_LAST_STEP] : this.#parts.guards;
    const one = (call: ToolCall) => this.#call(call, names, guards);
    const results =
      this.#parts.options.parallelToolCalls === false
        ? await this.#spans.within(async () => {
            const reports: CallOutcomeReport[] = [];
            for (const call of toolCalls) reports.push(await one(call));
            return reports;
          })
        : await this.#spans.within(() => Promise.all(toolCalls.map(one)));
    for (const [index, call] of toolCalls.entries()) {
      const result = results[index]!;
      const message: ChatMessage = { role: "tool", toolCallId: call.id, content: result.content };
      markToolResult(message, {
        tool: call.name,
        callId: call.id,
        ok: result.record.ok,
        ...(result.sentKey ? { key: result.sentKey } : {}),
      });
      this.#messages.push(message);
      this.#calls.push(result.record);
      if (!this.#locals.isLocal(call.name)) this.#usedTools.add(call.name);
      if (result.sentKey)
        this.#callCounts.set(result.sentKey, (this.#callCounts.get(result.sentKey) ?? 0) + 1);
      if (result.downServer) {
        this.#unavailableServers.add(result.downServer);
        if (result.downReason && !this.#serverOutReasons.has(result.downServer))
          this.#serverOutReasons.set(result.downServer, result.downReason);
      }
      if (result.unusableTool) this.#unavailableTools.add(result.unusableTool);
    }
    // Calls cut short by the signal have their tool messages; the model is not asked again.
    return this.#options.signal?.aborted ? this.#cancelled() : { type: "offer" };
  }

  /** One call through the host's pipeline, which records it; the agent says what the model was given. */
  async #call(call: ToolCall, offered: string[], guards: readonly CallGuard[]): Promise<CallOutcomeReport> {
    const { options, context } = this.#parts;
    const state = this.#state;
    const local = this.#locals.isLocal(call.name);
    // A result cut to its share is stored whole behind a handle its notes name (local tools' are not).
    const handle = this.#parts.handles && !local ? state.handles.reserve() : undefined;
    const report = await runToolCall(call, {
      host: options.host,
      guards,
      state,
      offered,
      runId: this.runId,
      local: this.#locals.call,
      ...(state.identity ? { identity: state.identity } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      budgetTokens: context.budget.result,
      counter: context.counter,
      ...(handle ? { more: readMoreHint(handle) } : {}),
      ...(options.anchor !== undefined ? { anchor: options.anchor } : {}),
      ...(options.resultBudgetChars !== undefined ? { budgetChars: options.resultBudgetChars } : {}),
      ...(this.#options.signal ? { signal: this.#options.signal } : {}),
      ...(this.#parts.countTools ? { countTool: this.#countTool } : {}),
      ...(this.#parts.skipAfterTimeout ? { skipAfterTimeout: true } : {}),
    });
    if (handle && report.shaping.cut && report.result)
      state.handles.store(call.name, report.result.text, handle);
    // What the model is given for the call, for the records (a local tool's call is not recorded).
    if (!local)
      this.#emit({
        type: "call_shaped",
        runId: this.runId,
        step: state.step,
        id: call.id,
        text: report.content,
      });
    return report;
  }

  #cancelled(): Extract<Step, { type: "stop" }> {
    return { type: "stop", reason: "cancelled", answer: "", error: cancelMessage(this.#options.signal) };
  }

  /** A stop for a step's work that failed (`what`: the answer's start), or cancelled when it was. */
  #failed(what: string, error: unknown): Extract<Step, { type: "stop" }> {
    if (this.#options.signal?.aborted) return this.#cancelled();
    const reason = messageOf(error);
    return { type: "stop", reason: "error", answer: `${what}: ${reason}`, error: reason, cause: error };
  }

  /** End the run: its record, `run_finished`, its spans, its result. */
  #finish(stop: Extract<Step, { type: "stop" }>): AgentResult {
    const { result, record } = runResult({
      runId: this.runId,
      startedAt: this.#startedAt,
      started: this.#started,
      stop,
      steps: this.#steps,
      calls: this.#calls,
      stepCount: this.#state.step,
      messages: this.#messages,
      compaction: this.#compaction,
      handles: this.#handles,
      redactor: this.#parts.options.host.redactor,
    });
    this.#emit({ type: "run_finished", runId: this.runId, record });
    this.#spans.end(stop.reason, stop.reason === "error" ? (stop.cause ?? stop.error) : undefined);
    return result;
  }

  /** Report a run event to `onEvent` (redacted) and to the host's observers. */
  #emit(event: SwitchyardEvent): void {
    const { onEvent, host } = this.#parts.options;
    if (onEvent) onEvent(host.redactor ? host.redactor.event(event) : event);
    host.emit?.(event);
  }

  /** `work`, or `CANCELLED` as soon as the run's signal aborts, whether or not `work` heeds it. */
  #unlessAborted<T>(work: Promise<T>): Promise<T> {
    const signal = this.#options.signal;
    return abortable(work, signal, () => new SwitchyardError("CANCELLED", cancelMessage(signal)));
  }
}

function usedToolNames(messages: readonly ChatMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.name) : [],
  );
}
