import { DEFAULT_SYSTEM_PROMPT } from "../config/defaults.js";
import {
  type ActiveContext,
  type ContextOptions,
  type ContextSettings,
  contextSettings,
  DEFAULT_RESULT_HANDLES,
  fitActiveContext,
  markToolResult,
} from "../context/active.js";
import { budgetFor } from "../context/budget.js";
import { type Compaction, compactionOf, summaryMessage } from "../context/compact.js";
import { ResultHandles, readMoreHint } from "../context/handles.js";
import { type AnchorFormat, shapeToolResult } from "../context/shape-result.js";
import { contextWindowFor, tokenCounterFor } from "../context/tokens.js";
import { isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { ChatMessage, ModelProvider, ModelResponse, ModelTool, ToolCall } from "../models/model.js";
import { toModelParameters } from "../models/tool-schema.js";
import type { Identity } from "../telemetry/audit.js";
import { recordedError } from "../telemetry/events.js";
import type { Redactor } from "../telemetry/redact.js";
import { RunSpans } from "../telemetry/tracer.js";
import {
  type AgentEvent,
  type CallRecord,
  elapsedMs,
  newId,
  type RecordedError,
  type RunRecord,
  type StepRecord,
  type StopReason,
  type SwitchyardEvent,
  type TokenUsage,
} from "./events.js";
import {
  type CallGuard,
  DEFAULT_MAX_IDENTICAL_CALLS,
  DEFAULT_MAX_STEPS,
  DEFAULT_OFFERED_TOOLS_ONLY,
  identicalCallLimit,
  offeredToolsOnly,
  type StopCondition,
  skipUnavailableServers,
  stepLimit,
} from "./guards.js";
import {
  checkLocalTools,
  type LocalTool,
  LocalToolHost,
  type LocalToolState,
  readResultTool,
} from "./local-tools.js";
import type { Nudge } from "./nudge.js";
import { type CallOutcomeReport, runToolCall, type ToolHost } from "./run-call.js";
import type { ToolSearch } from "./tool-search.js";

/** The system prompt when none is given (it lives in config/defaults.ts). */
export { DEFAULT_SYSTEM_PROMPT };

/** Added to the system prompt on the last step a run allows (`maxSteps`), when no tools are offered. */
export const LAST_STEP_NOTE =
  "This is your last turn: no more tools can be called. Answer now from what you have; say what is " +
  "missing if you could not find it.";

/** What a call refused on the last step is told (the model was offered no tools, and asked anyway). */
const NOT_MADE_ON_LAST_STEP =
  "not made: this was the run's last step (maxSteps), on which no tools can be called.";

/** What the agent needs of a Switchyard: the tools to offer, a way to call them, and where to report. */
export interface AgentHost extends ToolHost {
  /**
   * The catalog — for the run's identity, when it has one (a Switchyard lists only what its policy
   * lets that identity call); a tool with `unsupported` set (it needs what the client cannot do) is
   * never offered.
   */
  tools(options?: { identity?: Identity }): Array<{
    name: string;
    description: string;
    inputSchema: Record<string, unknown>;
    unsupported?: string;
  }>;
  /**
   * Receives the run's events for the host's observers (a Switchyard's `emit`). Call events of calls
   * that reached `callTool` are the host's own to report; the agent sends it the rest.
   */
  emit?(event: SwitchyardEvent): void;
  /**
   * Goes up with every change of what `tools()` lists (a Switchyard's `catalogVersion`): while it stays,
   * the agent reuses the catalog it read last instead of reading `tools()` again each step.
   */
  readonly catalogVersion?: number;
  /**
   * Redacts the run's record and the events `onEvent` gets (a Switchyard's `redactor`); the host
   * redacts what its own observers get.
   */
  readonly redactor?: Redactor;
  /** Reads a resource by URI (a Switchyard's `readResource`): what `run(…, { attach })` needs. */
  readResource?(uri: string, options?: { signal?: AbortSignal }): Promise<AttachedResource>;
}

/** A resource as the host read it: which server, and its contents (text, or base64 `blob`). */
export interface AttachedResource {
  server: string;
  uri: string;
  contents: ReadonlyArray<{
    uri: string;
    mimeType?: string | undefined;
    text?: string | undefined;
    blob?: string | undefined;
  }>;
}

/** Opens the user message that carries a run's attached resources, before its question. */
export const ATTACHED_RESOURCES_NOTE =
  "Resources attached to the next question (read from the servers for it; use them as context):";

/** A catalog entry as the agent offers it. */
type CatalogTool = ReturnType<AgentHost["tools"]>[number];

/** The tools a run may be offered, by name, as read at the host's `catalogVersion`. */
interface OfferableCatalog {
  version: number | undefined;
  byName: Map<string, CatalogTool>;
}

/** Why a selector picked a tool, as a step's record keeps it. */
export interface OfferedWhy {
  name: string;
  score?: number;
  reason?: string;
}

/** What a tool selector sees: the conversation so far. */
export interface SelectionContext {
  messages: readonly ChatMessage[];
  /** Catalog names already called in this conversation. */
  usedTools: ReadonlySet<string>;
  /**
   * The run's state: the same object local tools are given, so per-run data may be kept keyed by it;
   * absent when a selector is called outside a run.
   */
  state?: LocalToolState;
  /**
   * Say why the tools were picked (a router's score and reason per name): the step's record
   * (`step_started`'s `offered`) then carries them beside the names. Optional for a selector.
   */
  explain?(picked: readonly OfferedWhy[]): void;
}

export interface AgentOptions {
  model: ModelProvider;
  host: AgentHost;
  systemPrompt?: string;
  /**
   * Model turns in a run; default 8. The last one is offered no tools: the model must answer from what
   * it has, and tool calls it still asks for are not made (the run stops with `max_steps`).
   */
  maxSteps?: number;
  /** Times the same tool may be called with the same arguments in one run; default 3. */
  maxIdenticalCalls?: number;
  /** Run a step's tool calls concurrently (default) or one after another. */
  parallelToolCalls?: boolean;
  /** More stop conditions, checked before each model turn after the step limit. */
  stopWhen?: StopCondition[];
  /**
   * Refuse (without running it) a call to a tool not offered at the step that asked for it, telling the
   * model which tools it was offered (`offeredToolsOnly`); default true.
   */
  offeredToolsOnly?: boolean;
  /** More call guards, checked before each tool call after the built-in ones. */
  callGuards?: CallGuard[];
  /** Picks the catalog names to offer each step (a router: see `routeTools`); default: every tool. */
  selectTools?: (context: SelectionContext) => readonly string[] | Promise<readonly string[]>;
  /** The line that opens each tool message; `false` for none. */
  anchor?: AnchorFormat | false;
  /**
   * Characters of one tool result's body the model sees, as well as its share of the window in tokens
   * (`budgetFor`'s `result`); default: no limit in characters.
   */
  resultBudgetChars?: number;
  /**
   * What the model is sent each step (the active context), built from the run's full record within the
   * window: result handles, collapsed repeats, compaction of the oldest rounds (see {@link ContextOptions}).
   */
  context?: ContextOptions;
  /** Every event of the run, in order (`run_started` … `run_finished`), call events included. */
  onEvent?: (event: AgentEvent) => void;
  /**
   * Who the agent's runs are for, unless a run says (`run(q, { identity })`): only the tools the host
   * lists for it are offered, and its calls are decided for it. Default: the host's own identity.
   */
  identity?: Identity;
  /**
   * Tools the agent answers itself, offered beside the catalog's (at the steps where each one's
   * `offered` says so) and never sent to a server; the built-in `read_result` is always among them.
   * Their calls are paired, guarded, shaped and recorded like any other, with `server: "switchyard"`.
   * A local tool hides a catalog tool of the same name (that one is not offered).
   * @throws SwitchyardError `INVALID_INPUT` (from the constructor) for a name that is not model-safe or
   *   that two local tools share (`read_result` included).
   */
  localTools?: LocalTool[];
  /**
   * Tool search (`ToolSearch`, tool-search.ts): in the runs it searches, the model is offered its
   * `search_tools` tool plus the pinned and found tools, and the offer only grows, in a stable order. It
   * is the selection (`selectTools` is then ignored: give the routed selection to its `route`).
   */
  toolSearch?: ToolSearch;
  /**
   * The fallback nudge (`fallbackNudge`, nudge.ts): asked when the model answers before any tool was
   * called in the run; a text it returns is sent as a user message and the model asked again, at most
   * once per run. Default: none (`createAgent` gives one unless `agent.nudge` is `false`).
   */
  nudge?: Nudge;
}

/** What a run returns. */
export interface AgentResult {
  /** The run's id: every event of the run carries it, and so do the host's call events. */
  runId: string;
  answer: string;
  stopReason: StopReason;
  /** Model turns taken. */
  steps: number;
  calls: CallRecord[];
  /**
   * The working record: the whole conversation without the system prompt, every message as it was made
   * (a result too large for its share as the model saw it, its whole text in `handles`).
   */
  messages: ChatMessage[];
  /**
   * The conversation to continue from (`run(next, { history, handles })`): `messages`, or, once the run
   * compacted, a summary message (`role: "system"`) and the messages kept whole after it.
   */
  history: ChatMessage[];
  /** The conversation's stored results (result handles): pass them on with `history`. */
  handles: ResultHandles;
  /** Why the run failed, when `stopReason` is `error` (or what it was stopped by: `max_steps`, `cancelled`). */
  error?: string;
  /** The run, step by step: what was offered, the model's time and tokens, every call. */
  record: RunRecord;
}

export interface RunOptions {
  /**
   * Earlier turns of the conversation (a previous result's `history`, or its `messages`). A leading
   * summary message (`summaryMessage`: a previous run's compacted rounds) goes into the system prompt.
   */
  history?: ChatMessage[];
  /** The stored results the history's handles name (a previous result's `handles`); default: none. */
  handles?: ResultHandles;
  /**
   * Cancels the run: a model request in progress is aborted, tool calls in progress are cancelled (their
   * servers are sent `notifications/cancelled`), nothing more is asked of the model, and the run ends
   * with `stopReason: "cancelled"`.
   */
  signal?: AbortSignal;
  /** Who this run is for; default: the agent's `identity`, else the host's. */
  identity?: Identity;
  /**
   * Resource URIs to read (through the host's `readResource`) and give the model as context: one user
   * message before the question, each resource shaped to a result's share of the window (JSON kept
   * valid, binary described). A resource that cannot be read ends the run with `error`, before the
   * model is asked anything.
   */
  attach?: readonly string[];
}

/** What one run carries from step to step. */
interface RunContext {
  runId: string;
  state: LocalToolState;
  /** The host the run's calls go through: local tools answered, the others sent to the agent's host. */
  tools: LocalToolHost;
  /** Report to `onEvent` and, unless `ownEventsOnly`, to the host's observers. */
  emit: (event: SwitchyardEvent, ownEventsOnly?: boolean) => void;
  signal?: AbortSignal;
}

/**
 * The agent loop, one explicit step at a time: offer tools, ask the model, run every tool call it
 * asked for (concurrently), pair each result with its `tool_call_id` in call order right after the
 * assistant message, and go again with the full history — until the model answers or a guard stops it.
 * The last step a run allows is offered no tools, so that it ends with an answer.
 */
export class Agent {
  readonly #options: AgentOptions;
  readonly #maxSteps: number;
  readonly #stopWhen: StopCondition[];
  readonly #guards: CallGuard[];
  readonly #toolCache = new WeakMap<object, ModelTool>();
  /**
   * The offerable catalog by name, as read at the host's `catalogVersion` for one identity (5,000
   * tools: ~1 ms a read).
   */
  #catalog: OfferableCatalog | undefined;
  /** The same, for runs with an identity of their own (runs for several users at once). */
  readonly #catalogs = new WeakMap<Identity, OfferableCatalog>();
  readonly #localTools: LocalTool[];
  readonly #context: ContextSettings;
  readonly #handles: boolean;

  constructor(options: AgentOptions) {
    this.#options = options;
    const context = options.context ?? {};
    const counter = context.counter ?? tokenCounterFor(options.model.name);
    const budget = budgetFor(contextWindowFor(options.model.name, context.window), {
      ...(context.answerTokens !== undefined ? { answerTokens: context.answerTokens } : {}),
    });
    this.#context = contextSettings(budget, counter, context);
    this.#handles = context.handles ?? DEFAULT_RESULT_HANDLES;
    this.#localTools = [
      readResultTool({ tokens: budget.result, counter }),
      ...(options.toolSearch ? [options.toolSearch.tool] : []),
      ...(options.localTools ?? []),
    ];
    checkLocalTools(this.#localTools);
    this.#maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.#stopWhen = [stepLimit(this.#maxSteps), ...(options.stopWhen ?? [])];
    this.#guards = [
      ...((options.offeredToolsOnly ?? DEFAULT_OFFERED_TOOLS_ONLY) ? [offeredToolsOnly()] : []),
      skipUnavailableServers(),
      identicalCallLimit(options.maxIdenticalCalls ?? DEFAULT_MAX_IDENTICAL_CALLS),
      ...(options.callGuards ?? []),
    ];
  }

  /**
   * Answer one question. Never throws for model or tool failures: they end the run with
   * `stopReason: "error"` and the reason in `error`. When `signal` aborts, the run stops at once and ends
   * with `stopReason: "cancelled"`: the model is asked nothing more, calls in flight are cancelled, and
   * the result's `messages` pair every tool call with a tool message, so the history can be continued.
   */
  async run(question: string, options: RunOptions = {}): Promise<AgentResult> {
    const runId = newId("run");
    const identity = options.identity ?? this.#options.identity;
    const startedAt = new Date().toISOString();
    const runStarted = performance.now();
    const attachments = options.attach?.length
      ? await this.#attach(options.attach, options.signal).catch((error: unknown) => ({ error }))
      : undefined;
    const messages: ChatMessage[] = [
      ...(options.history ?? []),
      ...(typeof attachments === "string" ? [{ role: "user" as const, content: attachments }] : []),
      { role: "user", content: question },
    ];
    const calls: CallRecord[] = [];
    const steps: StepRecord[] = [];
    const callCounts = new Map<string, number>();
    const unavailableServers = new Set<string>();
    const unavailableTools = new Set<string>();
    const usedTools = new Set(usedToolNames(messages));
    const handles = options.handles ?? new ResultHandles();
    let compaction: Compaction = compactionOf(messages);
    /** The question stays word for word in every request, even once its round is summarized. */
    const questionIndex = messages.length - 1;
    const state: LocalToolState = {
      step: 0,
      messages,
      calls,
      callCounts,
      unavailableServers,
      unavailableTools,
      runId,
      handles,
      ...(identity ? { identity } : {}),
      offerable: (name) =>
        (identity ? this.#catalogs.get(identity) : this.#catalog)?.byName.has(name) === true,
    };
    const host = this.#options.host;
    const redactor = host.redactor;
    const spans = new RunSpans({ kind: "agent", runId, model: this.#options.model.name });
    const tools = new LocalToolHost(host, this.#localTools, state);
    const emit = (event: SwitchyardEvent, ownEventsOnly = false) => {
      const onEvent = this.#options.onEvent;
      if (onEvent) onEvent(redactor ? redactor.event(event) : event);
      if (!ownEventsOnly) host.emit?.(event);
    };
    const signal = options.signal;
    const context: RunContext = { runId, state, tools, emit, ...(signal ? { signal } : {}) };
    const record = (outcome: string, error?: RecordedError): RunRecord => {
      const tokens = sumTokens(steps);
      return {
        id: runId,
        kind: "agent",
        startedAt,
        ms: elapsedMs(runStarted),
        outcome,
        steps,
        calls,
        ...(tokens ? { tokens } : {}),
        ...(error ? { error } : {}),
      };
    };
    /** End the run; `cause` is the error behind `error`, when there is one (it gives the record its code). */
    const finish = (stopReason: StopReason, answer: string, error?: string, cause?: unknown): AgentResult => {
      const run = record(
        stopReason,
        cause !== undefined
          ? recordedError(cause)
          : error === undefined
            ? undefined
            : { code: stopCode(stopReason), message: error },
      );
      emit({ type: "run_finished", runId, record: run });
      spans.end(stopReason, stopReason === "error" ? (cause ?? error) : undefined);
      return {
        runId,
        answer,
        stopReason,
        steps: state.step,
        calls: redactor ? redactor.value(calls) : calls,
        messages,
        history: compaction.summary
          ? [summaryMessage(compaction.summary), ...messages.slice(compaction.upTo)]
          : messages,
        handles,
        ...(error ? { error } : {}),
        record: redactor ? redactor.value(run) : run,
      };
    };

    const cancelled = () => finish("cancelled", "", cancelMessage(signal));
    /** The fallback nudge is sent at most once per run. */
    let nudged = false;

    emit({ type: "run_started", runId, kind: "agent", time: startedAt, input: question });
    if (typeof attachments === "object") {
      if (signal?.aborted) return cancelled();
      const why = messageOf(attachments.error);
      return finish("error", `Attaching the resources failed: ${why}`, why, attachments.error);
    }
    try {
      for (;;) {
        if (signal?.aborted) return cancelled();
        for (const condition of this.#stopWhen) {
          const decision = condition(state);
          if (decision) return finish(decision.reason, decision.message, decision.message);
        }
        state.step += 1;
        spans.step(state.step);
        const last = state.step >= this.#maxSteps;
        let offered: ModelTool[] = [];
        const why = new Map<string, OfferedWhy>();
        if (!last) {
          try {
            offered = await unlessAborted(this.#offer(state, usedTools, tools, why), signal);
          } catch (error) {
            if (signal?.aborted) return cancelled();
            return finish(
              "error",
              `Choosing the tools to offer failed: ${messageOf(error)}`,
              messageOf(error),
              error,
            );
          }
        }
        emit({
          type: "step_started",
          runId,
          step: state.step,
          tools: offered.length,
          offered: offered.map((tool) => {
            const picked = why.get(tool.name);
            return picked ? { ...picked, name: tool.name } : tool.name;
          }),
        });

        // What the model is sent: built from the working record within the window.
        const prompt = this.#options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
        let active: ActiveContext;
        try {
          active = await unlessAborted(
            fitActiveContext(
              {
                system: last ? `${prompt}\n\n${LAST_STEP_NOTE}` : prompt,
                tools: offered,
                record: messages,
                compaction,
                question: questionIndex,
                ...(this.#handles ? { handles } : {}),
                ...(signal ? { signal } : {}),
              },
              this.#context,
            ),
            signal,
          );
        } catch (error) {
          if (signal?.aborted || isSwitchyardError(error, "CANCELLED")) return cancelled();
          return finish("error", messageOf(error), messageOf(error), error);
        }
        compaction = active.compaction;
        const contextRecord = {
          promptEstimate: active.estimate,
          ...(active.compacted ? { compacted: active.compacted } : {}),
        };

        const started = performance.now();
        let response: ModelResponse;
        try {
          // A model that does not heed the signal is not waited for either.
          response = await unlessAborted(
            spans.model(this.#options.model.name, () =>
              this.#options.model.complete({
                messages: active.messages,
                tools: offered,
                parallelToolCalls: this.#options.parallelToolCalls !== false,
                ...(signal ? { signal } : {}),
              }),
            ),
            signal,
          );
        } catch (error) {
          steps.push({
            step: state.step,
            offered: offered.length,
            toolCalls: 0,
            modelMs: elapsedMs(started),
            ...contextRecord,
          });
          if (signal?.aborted || isSwitchyardError(error, "CANCELLED")) return cancelled();
          return finish("error", `The model failed: ${messageOf(error)}`, messageOf(error), error);
        }
        const modelMs = elapsedMs(started);
        const tokens = response.usage
          ? { input: response.usage.promptTokens, output: response.usage.completionTokens }
          : undefined;
        // What the server counted corrects the estimate for the next request.
        if (tokens) this.#context.counter.calibrate(active.estimate, tokens.input);
        steps.push({
          step: state.step,
          offered: offered.length,
          toolCalls: response.toolCalls.length,
          modelMs,
          ...contextRecord,
          ...(tokens ? { tokens } : {}),
        });
        emit({
          type: "model_answered",
          runId,
          step: state.step,
          ms: modelMs,
          toolCalls: response.toolCalls.length,
          text: response.content,
          ...(tokens ? { tokens } : {}),
        });

        const toolCalls = uniqueIds(response.toolCalls, state.step);
        messages.push(
          toolCalls.length
            ? { role: "assistant", content: response.content, toolCalls }
            : { role: "assistant", content: response.content ?? "" },
        );
        if (toolCalls.length === 0) {
          // The fallback nudge (nudge.ts): an answer before any tool was called may get one reminder.
          const nudge = this.#options.nudge;
          if (nudge && !nudged && !last && calls.every((call) => tools.isLocal(call.name))) {
            nudged = true;
            const asked = {
              question,
              answer: response.content ?? "",
              offered: offered.map((t) => t.name),
              state,
            };
            // A nudge that fails leaves the answer as it is.
            const reminder = await Promise.resolve()
              .then(() => nudge(asked))
              .catch(() => undefined);
            if (signal?.aborted) return cancelled();
            if (reminder) {
              messages.push({ role: "user", content: reminder });
              continue;
            }
          }
          const answer = response.content ?? "";
          emit({ type: "answer", runId, step: state.step, text: answer });
          return finish("answer", answer);
        }

        // On the last step no tool was offered: calls the model asks for anyway are not made (each
        // still gets its tool message, so the history stays valid), and the step limit ends the run.
        const results = await spans.within(() =>
          this.#runCalls(
            toolCalls,
            context,
            offered.map((tool) => tool.name),
            last ? [() => NOT_MADE_ON_LAST_STEP] : this.#guards,
          ),
        );
        for (const [index, call] of toolCalls.entries()) {
          const result = results[index]!;
          const message: ChatMessage = { role: "tool", toolCallId: call.id, content: result.content };
          markToolResult(message, {
            tool: call.name,
            callId: call.id,
            ok: result.record.ok,
            ...(result.sentKey ? { key: result.sentKey } : {}),
          });
          messages.push(message);
          calls.push(result.record);
          if (!tools.isLocal(call.name)) usedTools.add(call.name);
          if (result.sentKey) callCounts.set(result.sentKey, (callCounts.get(result.sentKey) ?? 0) + 1);
          if (result.downServer) unavailableServers.add(result.downServer);
          if (result.unusableTool) unavailableTools.add(result.unusableTool);
        }
        // Calls cut short by the signal have their tool messages; the model is not asked again.
        if (signal?.aborted) return cancelled();
      }
    } catch (error) {
      // A host or selector that throws the caller's cancel ends the run the same way.
      if (isSwitchyardError(error, "CANCELLED") || signal?.aborted) return cancelled();
      spans.end("error", error);
      throw error;
    }
  }

  /** The user message of a run's attached resources: each read through the host, then shaped. */
  async #attach(uris: readonly string[], signal: AbortSignal | undefined): Promise<string> {
    const host = this.#options.host;
    if (!host.readResource)
      throw new SwitchyardError(
        "INVALID_INPUT",
        "this agent's host cannot read resources: nothing to attach",
      );
    const read = host.readResource.bind(host);
    const resources = await unlessAborted(
      Promise.all(uris.map((uri) => read(uri, signal ? { signal } : {}))),
      signal,
    );
    const parts = resources.map(({ server, uri, contents }) => {
      if (contents.length === 0) return `[server ${server}] [resource ${uri}: empty]`;
      const shaped = shapeToolResult({
        tool: uri,
        outcome: "ok",
        text: "",
        content: contents.map((resource) => ({ type: "resource", resource })),
        budgetTokens: this.#context.budget.result,
        counter: this.#context.counter,
        anchor: false,
        more: "read the resource itself for the rest",
      });
      // The shaped text opens with the resource's own line ("[resource <uri> (<type>)]").
      return `[server ${server}] ${shaped.text}`;
    });
    return [ATTACHED_RESOURCES_NOTE, ...parts].join("\n\n");
  }

  async #runCalls(
    toolCalls: ToolCall[],
    context: RunContext,
    offered: string[],
    guards: readonly CallGuard[],
  ): Promise<CallOutcomeReport[]> {
    const { runId, state, emit } = context;
    const host = context.tools;
    const one = async (call: ToolCall) => {
      const entry = host.describeTool(call.name);
      // The host's pipeline reports the calls it is given; the agent's own observer hears of every call.
      // A local tool's call never reaches the host's pipeline: the agent reports it to the host too.
      const local = host.isLocal(call.name);
      emit(
        {
          type: "call_started",
          runId,
          step: state.step,
          id: call.id,
          name: call.name,
          ...(entry ? { server: entry.server, tool: entry.tool } : {}),
          arguments: call.arguments,
        },
        !local,
      );
      // A result cut to its share is stored whole behind a handle its notes name (local tools' are not).
      const handle = this.#handles && !local ? state.handles.reserve() : undefined;
      const report = await runToolCall(call, {
        host,
        guards,
        state,
        offered,
        runId,
        ...(state.identity ? { identity: state.identity } : {}),
        budgetTokens: this.#context.budget.result,
        counter: this.#context.counter,
        ...(handle ? { more: readMoreHint(handle) } : {}),
        ...(this.#options.anchor !== undefined ? { anchor: this.#options.anchor } : {}),
        ...(this.#options.resultBudgetChars !== undefined
          ? { budgetChars: this.#options.resultBudgetChars }
          : {}),
        ...(context.signal ? { signal: context.signal } : {}),
      });
      if (handle && report.shaping.cut && report.result)
        state.handles.store(call.name, report.result.text, handle);
      emit({ type: "call_finished", step: state.step, ...report.record }, report.sent && !local);
      // What the model is given for the call, for the records (a local tool's call is not recorded).
      if (!local) emit({ type: "call_shaped", runId, step: state.step, id: call.id, text: report.content });
      return report;
    };
    if (this.#options.parallelToolCalls === false) {
      const reports = [];
      for (const call of toolCalls) reports.push(await one(call));
      return reports;
    }
    return Promise.all(toolCalls.map(one));
  }

  async #offer(
    state: LocalToolState,
    usedTools: ReadonlySet<string>,
    local: LocalToolHost,
    why?: Map<string, OfferedWhy>,
  ): Promise<ModelTool[]> {
    const version = this.#options.host.catalogVersion;
    const identity = state.identity;
    let cached = identity ? this.#catalogs.get(identity) : this.#catalog;
    if (!cached || version === undefined || cached.version !== version) {
      // A catalog tool named like a local tool is hidden: every call by that name is the local tool's.
      const offerable = this.#options.host
        .tools(identity ? { identity } : undefined)
        .filter((tool) => tool.unsupported === undefined && !local.isLocal(tool.name));
      cached = { version, byName: new Map(offerable.map((tool) => [tool.name, tool])) };
      if (identity) this.#catalogs.set(identity, cached);
      else this.#catalog = cached;
    }
    const byName = cached.byName;
    let tools = [...byName.values()];
    const select = this.#options.toolSearch?.selectTools ?? this.#options.selectTools;
    if (select) {
      // In the selector's order: a router's puts pinned and used tools first, then the best matches.
      const explain = (picked: readonly OfferedWhy[]) => {
        for (const one of picked) why?.set(one.name, one);
      };
      const chosen = new Set(await select({ messages: state.messages, usedTools, state, explain }));
      tools = [...chosen].flatMap((name) => byName.get(name) ?? []);
    }
    const catalog = tools.map((tool) => {
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
    // After the catalog's, so that a local tool offered from some step on only adds to the prompt's end.
    const offer = [...catalog, ...local.offered()];
    // Tool search: the tools of earlier steps keep their places, so each request's tools array starts
    // with the previous one's (prompt caching).
    return this.#options.toolSearch ? this.#options.toolSearch.arrange(state, offer) : offer;
  }
}

/** The code a run record's error carries for a stop reason. */
function stopCode(reason: StopReason): string {
  switch (reason) {
    case "max_steps":
      return "MAX_STEPS";
    case "error":
      return "RUN_FAILED";
    case "cancelled":
      return "CANCELLED";
    default:
      return "STOPPED";
  }
}

/** What a cancelled run says: that it was cancelled, and by what when the signal's reason tells. */
function cancelMessage(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  const why =
    typeof reason === "string"
      ? reason
      : reason instanceof Error && reason.message && reason.message !== "This operation was aborted"
        ? reason.message
        : undefined;
  return `The run was cancelled${why ? `: ${why}` : ""}.`;
}

/**
 * `work`, or a rejection with `CANCELLED` as soon as `signal` aborts, whether or not `work` heeds it
 * (its own outcome is then ignored).
 */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  const cancelled = () => new SwitchyardError("CANCELLED", cancelMessage(signal));
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(cancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function sumTokens(steps: readonly StepRecord[]): TokenUsage | undefined {
  const reported = steps.filter((step) => step.tokens);
  if (reported.length === 0) return undefined;
  return reported.reduce(
    (sum, step) => ({ input: sum.input + step.tokens!.input, output: sum.output + step.tokens!.output }),
    { input: 0, output: 0 },
  );
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
