import {
  DEFAULT_COLLAPSE_REPEATS,
  DEFAULT_COMPACT_AT_SHARE,
  DEFAULT_COMPACT_TO_SHARE,
  DEFAULT_KEEP_ROUNDS,
  DEFAULT_RESULT_HANDLES,
  DEFAULT_SUMMARY_MAX_TOKENS,
  DEFAULT_SUMMARY_SHARE,
} from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import type { ChatMessage, ModelProvider, ModelTool } from "../models/model.js";
import type { ContextBudget } from "./budget.js";
import {
  type Compaction,
  extractiveSummary,
  lastRoundsStart,
  modelSummarizer,
  roundStarts,
  SUMMARY_HEADING,
  type Summarizer,
} from "./compact.js";
import type { ResultHandles } from "./handles.js";
import type { TokenCounter } from "./tokens.js";

export {
  DEFAULT_COLLAPSE_REPEATS,
  DEFAULT_COMPACT_AT_SHARE,
  DEFAULT_COMPACT_TO_SHARE,
  DEFAULT_KEEP_ROUNDS,
  DEFAULT_RESULT_HANDLES,
  DEFAULT_SUMMARY_MAX_TOKENS,
  DEFAULT_SUMMARY_SHARE,
};

/** How an agent keeps what it sends the model within the window (`AgentOptions.context`, config `agent.context`). */
export interface ContextOptions {
  /** The model's context window in tokens; default: `contextWindowFor(model.name)`. */
  window?: number;
  /** Tokens kept free for the answer; default `DEFAULT_ANSWER_RESERVE_TOKENS` (see `budgetFor`). */
  answerTokens?: number;
  /** Compact once a request would take more than this share of the window; default {@link DEFAULT_COMPACT_AT_SHARE}. */
  compactAt?: number;
  /** Compact down to about this share of the window; default {@link DEFAULT_COMPACT_TO_SHARE}. */
  compactTo?: number;
  /** Rounds (model turns with their results) that compaction keeps whole; default {@link DEFAULT_KEEP_ROUNDS}. */
  keepRounds?: number;
  /** Store a result too large for its share behind a handle `read_result` reads; default {@link DEFAULT_RESULT_HANDLES}. */
  handles?: boolean;
  /** Replace an earlier result of the same call by a stub pointing at the latest; default {@link DEFAULT_COLLAPSE_REPEATS}. */
  collapseRepeats?: boolean;
  /** Who summarizes compacted rounds: a model (asked without tools), or extractively (default). */
  summarizer?: ModelProvider | "extractive";
  /** Counts tokens; default `tokenCounterFor(model.name)`. */
  counter?: TokenCounter;
}

/** The settings {@link fitActiveContext} works with, resolved. */
export interface ContextSettings {
  budget: ContextBudget;
  counter: TokenCounter;
  compactAt: number;
  compactTo: number;
  keepRounds: number;
  collapseRepeats: boolean;
  summarizer: Summarizer;
  /** Tokens a summary may take. */
  summaryTokens: number;
}

/** The share of the window a setting names, checked. */
function shareOf(name: string, value: number | undefined, fallback: number): number {
  const share = value ?? fallback;
  if (!(share > 0 && share <= 1)) {
    throw new SwitchyardError(
      "INVALID_INPUT",
      `context.${name} must be a share of the window above 0 and at most 1, got ${share}`,
    );
  }
  return share;
}

/**
 * The settings for a budget and the options.
 * @throws SwitchyardError `INVALID_INPUT` for a share outside (0, 1], `compactTo` above `compactAt`, or a
 *   `keepRounds` that is not a whole number above 0.
 */
export function contextSettings(
  budget: ContextBudget,
  counter: TokenCounter,
  options: Omit<ContextOptions, "summarizer"> & {
    summarizer?: Summarizer | ModelProvider | "extractive";
  } = {},
): ContextSettings {
  const compactAt = shareOf("compactAt", options.compactAt, DEFAULT_COMPACT_AT_SHARE);
  const compactTo = shareOf("compactTo", options.compactTo, Math.min(DEFAULT_COMPACT_TO_SHARE, compactAt));
  if (compactTo > compactAt) {
    throw new SwitchyardError(
      "INVALID_INPUT",
      `context.compactTo (${compactTo}) must not be above context.compactAt (${compactAt})`,
    );
  }
  const keepRounds = options.keepRounds ?? DEFAULT_KEEP_ROUNDS;
  if (!Number.isInteger(keepRounds) || keepRounds < 1) {
    throw new SwitchyardError(
      "INVALID_INPUT",
      `context.keepRounds must be a whole number above 0, got ${keepRounds}`,
    );
  }
  const summarizer = options.summarizer;
  return {
    budget,
    counter,
    compactAt,
    compactTo,
    keepRounds,
    collapseRepeats: options.collapseRepeats ?? DEFAULT_COLLAPSE_REPEATS,
    summarizer:
      summarizer === undefined || summarizer === "extractive"
        ? extractiveSummary
        : typeof summarizer === "function"
          ? summarizer
          : modelSummarizer(summarizer),
    summaryTokens: Math.max(
      64,
      Math.min(DEFAULT_SUMMARY_MAX_TOKENS, Math.floor(budget.request * DEFAULT_SUMMARY_SHARE)),
    ),
  };
}

/** What the agent knows of a tool message it made: which call it answers, and how that call went. */
export interface ResultInfo {
  /** The catalog name called. */
  tool: string;
  /** The call's id (its `tool_call_id`). */
  callId: string;
  /** The canonical key of (tool, arguments); absent for a call that never reached a tool. */
  key?: string;
  /** True when the tool answered (not an error, a refusal or a failure). */
  ok: boolean;
}

const resultInfo = new WeakMap<ChatMessage, ResultInfo>();
const stubs = new WeakMap<ChatMessage, { latest: string; stub: ChatMessage }>();

/** Note what a tool message answers, so that later repeats of its call can collapse it. */
export function markToolResult(message: ChatMessage, info: ResultInfo): void {
  resultInfo.set(message, info);
}

/**
 * `messages` with each tool result that a later, answered call of the same tool with the same arguments
 * supersedes replaced by a one-line stub naming that call (the messages given are not changed). Only
 * tool messages noted with {@link markToolResult} collapse.
 */
export function collapseRepeats(messages: readonly ChatMessage[]): {
  messages: ChatMessage[];
  stubs: number;
} {
  const latest = new Map<string, string>();
  const out = [...messages];
  let count = 0;
  for (let i = out.length - 1; i >= 0; i--) {
    const message = out[i]!;
    const info = message.role === "tool" ? resultInfo.get(message) : undefined;
    if (!info?.key) continue;
    const later = latest.get(info.key);
    if (later === undefined) {
      if (info.ok) latest.set(info.key, info.callId);
      continue;
    }
    let cached = stubs.get(message);
    if (cached?.latest !== later) {
      cached = {
        latest: later,
        stub: {
          role: "tool",
          toolCallId: info.callId,
          content: `[tool ${info.tool} → repeated: the same call was made again later (call ${later}); its result there is the current one]`,
        },
      };
      stubs.set(message, cached);
    }
    out[i] = cached.stub;
    count += 1;
  }
  return { messages: out, stubs: count };
}

/** One step's request as {@link fitActiveContext} is asked for it. */
export interface ActiveContextInput {
  /** The system prompt for this step. */
  system: string;
  /** The tools offered at this step. */
  tools: readonly ModelTool[];
  /** The working record: every message of the conversation, as made. */
  record: readonly ChatMessage[];
  /** What of the record is summarized so far. */
  compaction: Compaction;
  /** Index in the record of the question being answered, kept word for word; default: the last user message. */
  question?: number;
  /** Where a result left out to fit is stored (so it stays readable); none: it is only left out. */
  handles?: ResultHandles;
  signal?: AbortSignal;
}

/** The messages the model is sent at one step, and what it took to fit them. */
export interface ActiveContext {
  /** The system message, then the kept messages. */
  messages: ChatMessage[];
  /** Tokens of the request (messages and tools), as the counter estimates them. */
  estimate: number;
  /** The compaction after this step (the one given, or a newer one). */
  compaction: Compaction;
  /** Messages of the record summarized at this step (0: none). */
  compacted: number;
  /** Earlier results replaced by stubs. */
  stubs: number;
  /** Results left out whole to fit (the last resort, when the kept rounds alone do not fit). */
  leftOut: number;
}

/** The active context for a compaction: system prompt (with the summary), then the kept messages, repeats collapsed. */
export function buildActiveContext(
  input: ActiveContextInput,
  compaction: Compaction,
  settings: ContextSettings,
): Omit<ActiveContext, "compacted" | "leftOut"> {
  const { record } = input;
  let kept = record.slice(compaction.upTo);
  let stubCount = 0;
  if (settings.collapseRepeats) ({ messages: kept, stubs: stubCount } = collapseRepeats(kept));
  // The question being answered stays word for word, even when its round was summarized.
  const question = input.question ?? lastUserIndex(record);
  if (question >= 0 && question < compaction.upTo) kept.unshift(record[question]!);
  const system = compaction.summary
    ? `${input.system}\n\n${SUMMARY_HEADING}\n${compaction.summary}`
    : input.system;
  const messages: ChatMessage[] = [{ role: "system", content: system }, ...kept];
  const estimate = settings.counter.countMessages(messages) + settings.counter.countTools(input.tools);
  return { messages, estimate, compaction, stubs: stubCount };
}

/**
 * Build what the model is sent at one step within the budget: the system prompt, the offered tools and
 * the conversation, never over `budget.request` (the window less the answer's reserve). Past
 * `compactAt` of the window, the oldest rounds are summarized into the system prompt down to about
 * `compactTo`, keeping the last `keepRounds` rounds whole; when even those do not fit, fewer rounds are
 * kept, and as a last resort the oldest kept results are left out (stored behind handles). A tool
 * message always follows the assistant message that asked for it.
 * @throws SwitchyardError `INVALID_INPUT` when the system prompt, the tools and the question alone do
 *   not fit (the message says what to lower).
 */
export async function fitActiveContext(
  input: ActiveContextInput,
  settings: ContextSettings,
): Promise<ActiveContext> {
  const { budget } = settings;
  const start = input.compaction.upTo;
  let active = buildActiveContext(input, input.compaction, settings);
  // In a small window the answer's reserve may take more than the share past `compactAt`.
  if (active.estimate > Math.min(budget.request, budget.window * settings.compactAt)) {
    const target = Math.min(budget.request, Math.floor(budget.window * settings.compactTo));
    const next = await compact(input, active.compaction, settings.keepRounds, target, settings);
    if (next) active = buildActiveContext(input, next, settings);
  }
  if (active.estimate > budget.request) {
    // The kept rounds alone are too large: keep fewer (at least the last).
    const next = await compact(input, active.compaction, 1, budget.request, settings);
    if (next) active = buildActiveContext(input, next, settings);
  }
  let leftOut = 0;
  if (active.estimate > budget.request) ({ active, leftOut } = leaveOutResults(active, input, settings));
  if (active.estimate > budget.request) {
    const tools = settings.counter.countTools(input.tools);
    throw new SwitchyardError(
      "INVALID_INPUT",
      `The request does not fit the model's context window: ${active.estimate} tokens (the system prompt, the summary, the question and ${input.tools.length} tools taking ${tools}) for ${budget.request} (a window of ${budget.window} less ${budget.answer} kept for the answer). Offer fewer tools (routing.topK), shorten the system prompt, or set model.contextWindow if the model's window is larger.`,
    );
  }
  return { ...active, compacted: active.compaction.upTo - start, leftOut };
}

/**
 * Summarize the oldest rounds so that the rest (with the summary) fits in about `target` tokens,
 * keeping the last `keep` rounds whole; undefined when there is nothing to summarize.
 */
async function compact(
  input: ActiveContextInput,
  current: Compaction,
  keep: number,
  target: number,
  settings: ContextSettings,
): Promise<Compaction | undefined> {
  const { record } = input;
  const { counter } = settings;
  const last = lastRoundsStart(record, keep, current.upTo);
  const cuts = roundStarts(record, current.upTo).filter((cut) => cut > current.upTo && cut <= last);
  if (cuts.length === 0) return undefined;
  // What stays beside the kept messages: the system prompt with a summary of its full size, and the tools.
  const base = buildActiveContext(input, { upTo: record.length }, settings);
  const fixed = base.estimate - counter.countMessages(base.messages.slice(1)) + settings.summaryTokens;
  const empty = counter.countMessages([]);
  const suffix = new Array<number>(record.length + 1).fill(0);
  for (let i = record.length - 1; i >= current.upTo; i--) {
    suffix[i] = suffix[i + 1]! + counter.countMessages([record[i]!]) - empty;
  }
  const cut = cuts.find((candidate) => fixed + suffix[candidate]! <= target) ?? cuts.at(-1)!;
  const summary = await settings.summarizer({
    messages: record.slice(current.upTo, cut),
    ...(current.summary ? { previous: current.summary } : {}),
    budgetTokens: settings.summaryTokens,
    counter,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  return { summary, upTo: cut };
}

/** The last resort: the oldest kept tool results replaced by a note (the result stored behind a handle) until the request fits. */
function leaveOutResults(
  active: Omit<ActiveContext, "compacted" | "leftOut">,
  input: ActiveContextInput,
  settings: ContextSettings,
): { active: Omit<ActiveContext, "compacted" | "leftOut">; leftOut: number } {
  const messages = [...active.messages];
  let estimate = active.estimate;
  let leftOut = 0;
  for (let i = 1; i < messages.length && estimate > settings.budget.request; i++) {
    const message = messages[i]!;
    if (message.role !== "tool") continue;
    const tool = resultInfo.get(message)?.tool ?? "tool";
    const stored = input.handles?.store(tool, message.content);
    const note: ChatMessage = {
      role: "tool",
      toolCallId: message.toolCallId,
      content: `[tool ${tool} → result left out of this request to fit the context window${stored ? `; stored as handle "${stored.id}": read it with read_result` : ""}]`,
    };
    messages[i] = note;
    leftOut += 1;
    estimate = settings.counter.countMessages(messages) + settings.counter.countTools(input.tools);
  }
  return { active: { ...active, messages, estimate }, leftOut };
}

function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return i;
  return -1;
}
