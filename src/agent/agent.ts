import { DEFAULT_SYSTEM_PROMPT } from "../config/defaults.js";
import {
  type ContextOptions,
  type ContextSettings,
  contextSettings,
  DEFAULT_RESULT_HANDLES,
} from "../context/active.js";
import { budgetFor } from "../context/budget.js";
import type { ResultHandles } from "../context/handles.js";
import type { AnchorFormat } from "../context/shape-result.js";
import { contextWindowFor, tokenCounterFor } from "../context/tokens.js";
import type { ChatMessage, ModelProvider } from "../models/model.js";
import type { Identity } from "../telemetry/audit.js";
import { newId } from "../telemetry/events.js";
import type { Redactor } from "../telemetry/redact.js";
import type { AgentEvent, CallRecord, RunRecord, StopReason, SwitchyardEvent } from "./events.js";
import {
  type CallGuard,
  DEFAULT_MAX_CALLS_PER_TOOL,
  DEFAULT_MAX_IDENTICAL_CALLS,
  DEFAULT_MAX_STEPS,
  DEFAULT_OFFERED_TOOLS_ONLY,
  DEFAULT_SKIP_SERVER_AFTER,
  identicalCallLimit,
  offeredToolsOnly,
  type StopCondition,
  skipUnavailableServers,
  stepLimit,
  toolCallLimit,
} from "./guards.js";
import { checkLocalTools, type LocalTool, type LocalToolState, readResultTool } from "./local-tools.js";
import type { Nudge } from "./nudge.js";
import { ToolOffer } from "./offer.js";
import { AgentRun, type RunParts } from "./run.js";
import type { ToolHost } from "./run-call.js";
import type { InstructionsSource } from "./system-prompt.js";
import type { ToolSearch } from "./tool-search.js";

export { ATTACHED_RESOURCES_NOTE } from "./attach.js";
export { LAST_STEP_NOTE } from "./model-turn.js";
/** The system prompt when none is given (it lives in config/defaults.ts). */
export { DEFAULT_SYSTEM_PROMPT };

/**
 * What the agent needs of a Switchyard: the tools to offer, its request pipeline (every call, every
 * attached resource), and where to report.
 */
export interface AgentHost extends ToolHost, InstructionsSource {
  /**
   * The catalog — for the run's identity, when it has one (a Switchyard lists only what its policy
   * lets that identity call); a tool with `unsupported` set (it needs what the client cannot do) or
   * `appOnly` (an MCP App's tool for the app alone) is never offered.
   */
  tools(options?: { identity?: Identity }): Array<{
    name: string;
    description: string;
    inputSchema: Record<string, unknown>;
    unsupported?: string;
    appOnly?: boolean;
  }>;
  /**
   * Receives the run's own events for the host's observers (a Switchyard's `emit`): the requests' are
   * the pipeline's to report.
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
  /**
   * Calls of one tool a run may make, whatever their arguments; the next is refused and the model told
   * to answer with what it has. Default 5; 0: no limit. Local tools (`read_result` …) are not counted.
   */
  maxCallsPerTool?: number;
  /**
   * `"timeout"` (default): once a call to a server timed out in a run, the server's tools are refused for
   * the rest of that run, the refusal naming the server and why (a new run calls it again); `"never"`:
   * it is called again. A server found down (unavailable, circuit open, unauthorized) is skipped either way.
   */
  skipServerAfter?: "timeout" | "never";
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

/**
 * The agent loop, one explicit step at a time (run.ts): offer tools, ask the model, run every tool call
 * it asked for (concurrently), pair each result with its `tool_call_id` in call order right after the
 * assistant message, and go again with the full history — until the model answers or a guard stops it.
 * The last step a run allows is offered no tools, so that it ends with an answer.
 */
export class Agent {
  readonly #parts: RunParts;

  constructor(options: AgentOptions) {
    const context = options.context ?? {};
    const counter = context.counter ?? tokenCounterFor(options.model.name);
    const budget = budgetFor(contextWindowFor(options.model.name, context.window), {
      ...(context.answerTokens !== undefined ? { answerTokens: context.answerTokens } : {}),
    });
    const localTools = [
      readResultTool({ tokens: budget.result, counter }),
      ...(options.toolSearch ? [options.toolSearch.tool] : []),
      ...(options.localTools ?? []),
    ];
    checkLocalTools(localTools);
    const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    const maxCallsPerTool = options.maxCallsPerTool ?? DEFAULT_MAX_CALLS_PER_TOOL;
    this.#parts = {
      options,
      context: contextSettings(budget, counter, context) as ContextSettings,
      handles: context.handles ?? DEFAULT_RESULT_HANDLES,
      maxSteps,
      stopWhen: [stepLimit(maxSteps), ...(options.stopWhen ?? [])],
      guards: [
        ...((options.offeredToolsOnly ?? DEFAULT_OFFERED_TOOLS_ONLY) ? [offeredToolsOnly()] : []),
        skipUnavailableServers(),
        identicalCallLimit(options.maxIdenticalCalls ?? DEFAULT_MAX_IDENTICAL_CALLS),
        ...(maxCallsPerTool > 0 ? [toolCallLimit(maxCallsPerTool)] : []),
        ...(options.callGuards ?? []),
      ],
      countTools: maxCallsPerTool > 0,
      skipAfterTimeout: (options.skipServerAfter ?? DEFAULT_SKIP_SERVER_AFTER) === "timeout",
      localTools,
      offer: new ToolOffer({
        host: options.host,
        selectTools: options.selectTools,
        toolSearch: options.toolSearch,
      }),
    };
  }

  /**
   * Answer one question. Never throws for model or tool failures: they end the run with
   * `stopReason: "error"` and the reason in `error`. When `signal` aborts, the run stops at once and ends
   * with `stopReason: "cancelled"`: the model is asked nothing more, calls in flight are cancelled, and
   * the result's `messages` pair every tool call with a tool message, so the history can be continued.
   */
  run(question: string, options: RunOptions = {}): Promise<AgentResult> {
    return new AgentRun(this.#parts, question, options, newId("run")).run();
  }

  /**
   * What a run would offer the model first for a conversation (its last user message the question):
   * the catalog tools its selector picks, in order, with the router's score and reason when it picked
   * them, then the local tools offered — exactly what `run` would send, nothing called.
   */
  async preview(
    messages: readonly ChatMessage[],
    options: { identity?: Identity } = {},
  ): Promise<Array<OfferedWhy & { description: string; local: boolean }>> {
    return new AgentRun(this.#parts, "", { history: [...messages], ...options }, newId("run")).preview();
  }
}
