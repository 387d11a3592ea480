import {
  DEFAULT_CHARS_PER_TOKEN,
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  DEFAULT_CONTEXT_WINDOWS,
  DEFAULT_TOKEN_CALIBRATION_BOUNDS,
  DEFAULT_TOKEN_CALIBRATION_WEIGHT,
} from "../config/defaults.js";
import { lazyRequire } from "../lazy-require.js";
import type { ChatMessage, ModelTool } from "../models/model.js";

export interface TokenCounter {
  /** True when a real tokenizer for this model family counts (OpenAI families); false: a calibrated estimate. */
  readonly exact: boolean;
  count(text: string): number;
  /**
   * Tokens of `text` when they are at most `limit`, else some number above `limit`: stops early, so
   * asking whether a huge text fits costs what the limit costs, not what the text does.
   */
  countUpTo(text: string, limit: number): number;
  /** Tokens a request's messages take, with the per-message overhead of the chat format. */
  countMessages(messages: readonly ChatMessage[]): number;
  /** Tokens the offered tools take (their JSON schema as the provider serializes them). */
  countTools(tools: readonly ModelTool[]): number;
  /**
   * Correct the estimate with what the model's server reported for a request we estimated at `estimated`
   * (a smoothed ratio, within {@link DEFAULT_TOKEN_CALIBRATION_BOUNDS}). No effect on an exact counter.
   */
  calibrate(estimated: number, reportedPromptTokens: number): void;
}

// The chat format's overhead (OpenAI's cookbook, "How to count tokens with tiktoken"): each message is
// wrapped in 3 tokens (`<|start|>role<|message|>`…), and every reply is primed with 3 more.
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;
/** A tool call's wrapping beside its name and arguments (id, type, brackets). */
const TOKENS_PER_TOOL_CALL = 3;
/** The tools' preamble in the prompt ("# Tools", the namespace around the functions). */
const TOKENS_PER_TOOL_LIST = 12;

type Encoding = typeof import("gpt-tokenizer/encoding/o200k_base");
const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };
// Loaded on first count (~150 ms, ~30 MB of ranks in memory), never at import.
const ENCODINGS = {
  o200k_base: lazyRequire<Encoding>("gpt-tokenizer/cjs/encoding/o200k_base"),
  cl100k_base: lazyRequire<Encoding>("gpt-tokenizer/cjs/encoding/cl100k_base"),
} as const;
type EncodingName = keyof typeof ENCODINGS;

/**
 * BPE merges one piece of the pre-tokenizer (a run of letters, or of punctuation) in time quadratic in
 * its length: a 40,000-letter run takes about 2 s. Runs longer than this are counted in slices of this
 * length, which counts about a token more per slice, never fewer.
 */
const LONG_RUN_CHARS = 128;

/** What a UTF-16 unit is to the pre-tokenizer, roughly: 0 space or digit (a run breaks), 1 letter, 2 punctuation. */
function runKind(code: number): number {
  if (code <= 0x20 || (code >= 0x30 && code <= 0x39)) return 0;
  if (code >= 0x80) return 1; // letters of other scripts, and their marks
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x7a ? 1 : 2;
}

/** Text is counted a window at a time (cut at a space), so counting up to a limit stops early. */
const WINDOW_CHARS = 65_536;

/** The long runs of letters or of punctuation in `text` from `from` to `to`, as [start, end) pairs, in one pass. */
function* longRuns(text: string, from: number, to: number): Generator<[number, number]> {
  let start = from;
  let kind = 0;
  for (let i = from; i <= to; i++) {
    const next = i < to ? runKind(text.charCodeAt(i)) : 0;
    if (next === kind && next !== 0) continue;
    if (kind !== 0 && i - start >= LONG_RUN_CHARS) yield [start, i];
    start = i;
    kind = next;
  }
}

/** Exact tokens of `text` when at most `limit`, else `limit + 1`, in time linear in what is counted. */
function countExact(encoding: Encoding, text: string, limit: number): number {
  let total = 0;
  const add = (piece: string): boolean => {
    if (piece === "") return false;
    if (limit === Number.POSITIVE_INFINITY) {
      total += encoding.countTokens(piece, NO_SPECIAL_TOKENS);
      return false;
    }
    const within = encoding.isWithinTokenLimit(piece, limit - total, NO_SPECIAL_TOKENS);
    total = within === false ? limit + 1 : total + within;
    return total > limit;
  };
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + WINDOW_CHARS);
    for (let space = to; to < text.length && space > to - 1_024 && space > from; space--) {
      if (text.charCodeAt(space) <= 0x20) {
        to = space;
        break;
      }
    }
    let at = from;
    for (const [runStart, runEnd] of longRuns(text, from, to)) {
      if (add(text.slice(at, runStart))) return total;
      for (let start = runStart; start < runEnd; ) {
        let end = Math.min(runEnd, start + LONG_RUN_CHARS);
        const code = text.charCodeAt(end - 1);
        if (end < runEnd && code >= 0xd800 && code <= 0xdbff) end++; // keep a surrogate pair whole
        if (add(text.slice(start, end))) return total;
        start = end;
      }
      at = runEnd;
    }
    if (add(text.slice(at, to))) return total;
    from = to;
  }
  return total;
}

/** The model's name as families are matched: lowercased, without a `provider/` prefix. */
function familyName(modelName: string | undefined): string {
  const name = (modelName ?? "").trim().toLowerCase();
  return name.slice(name.lastIndexOf("/") + 1);
}

function encodingFor(name: string): EncodingName | undefined {
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o[134](?![a-z0-9]))/.test(name)) {
    return "o200k_base";
  }
  if (/^(gpt-4|gpt-3\.5|text-embedding)/.test(name)) return "cl100k_base";
  return undefined;
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x3000 && code <= 0x30ff) || // CJK punctuation, kana
    (code >= 0x3400 && code <= 0x4dbf) || // CJK extension A
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
    (code >= 0xac00 && code <= 0xd7af) || // Hangul syllables
    (code >= 0xf900 && code <= 0xfaff) || // CJK compatibility ideographs
    (code >= 0xff00 && code <= 0xffef) // full-width forms
  );
}

/** The uncalibrated estimate: one token per CJK character or astral character, else a token per few characters. */
function estimateUnits(text: string): number {
  let wide = 0;
  let narrow = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x3000) narrow++;
    else if (isCjk(code)) wide++;
    else if (code >= 0xd800 && code <= 0xdbff) {
      wide++; // an emoji or a rare ideograph: its two halves are one character, about one token
      i++;
    } else narrow++;
  }
  return wide + narrow / DEFAULT_CHARS_PER_TOKEN;
}

class Counter implements TokenCounter {
  readonly exact: boolean;
  /** What the reported usage says the estimate is off by (1 for an exact counter). */
  private factor = 1;
  private readonly messageCache = new WeakMap<ChatMessage, number>();
  private readonly toolCache = new WeakMap<ModelTool, number>();

  constructor(private readonly encoding: EncodingName | undefined) {
    this.exact = encoding !== undefined;
  }

  count(text: string): number {
    return text === "" ? 0 : Math.ceil(this.raw(text) * this.factor);
  }

  countUpTo(text: string, limit: number): number {
    if (!this.encoding) return this.count(text);
    return countExact(ENCODINGS[this.encoding](), text, limit);
  }

  countMessages(messages: readonly ChatMessage[]): number {
    let total = 0;
    for (const message of messages) {
      let tokens = this.messageCache.get(message);
      if (tokens === undefined) {
        tokens = TOKENS_PER_MESSAGE + 1 + this.raw(message.content ?? "");
        if (message.role === "assistant") {
          for (const call of message.toolCalls ?? []) {
            tokens += TOKENS_PER_TOOL_CALL + this.raw(call.name) + this.raw(call.arguments);
          }
        }
        this.messageCache.set(message, tokens);
      }
      total += tokens;
    }
    return Math.ceil((total + TOKENS_PER_REPLY) * this.factor);
  }

  countTools(tools: readonly ModelTool[]): number {
    if (tools.length === 0) return 0;
    let total = TOKENS_PER_TOOL_LIST;
    for (const tool of tools) {
      let tokens = this.toolCache.get(tool);
      if (tokens === undefined) {
        const wire = { type: "function", function: tool };
        tokens = this.raw(JSON.stringify(wire));
        this.toolCache.set(tool, tokens);
      }
      total += tokens;
    }
    return Math.ceil(total * this.factor);
  }

  calibrate(estimated: number, reportedPromptTokens: number): void {
    if (this.exact || !(estimated > 0) || !(reportedPromptTokens > 0)) return;
    if (!Number.isFinite(estimated) || !Number.isFinite(reportedPromptTokens)) return;
    const observed = this.factor * (reportedPromptTokens / estimated);
    const weight = DEFAULT_TOKEN_CALIBRATION_WEIGHT;
    const { min, max } = DEFAULT_TOKEN_CALIBRATION_BOUNDS;
    this.factor = Math.min(max, Math.max(min, this.factor * (1 - weight) + observed * weight));
  }

  /** Tokens before calibration: exact for a known encoding, else the estimate's units. */
  private raw(text: string): number {
    if (text === "") return 0;
    return this.encoding
      ? countExact(ENCODINGS[this.encoding](), text, Number.POSITIVE_INFINITY)
      : estimateUnits(text);
  }
}

const counters = new Map<string, TokenCounter>();

/**
 * The token counter for a model: OpenAI's tokenizer for its families (o200k for gpt-4o, gpt-4.1, gpt-5,
 * o-series, gpt-oss; cl100k for gpt-4 and gpt-3.5), else an estimate corrected by `calibrate`. One counter
 * per model name in a process, so what one run learned from the reported usage serves the next.
 */
export function tokenCounterFor(modelName: string | undefined): TokenCounter {
  const name = familyName(modelName);
  let counter = counters.get(name);
  if (!counter) {
    counter = createTokenCounter(modelName);
    counters.set(name, counter);
  }
  return counter;
}

/** A fresh counter for a model (its own calibration), as {@link tokenCounterFor} chooses it. */
export function createTokenCounter(modelName: string | undefined): TokenCounter {
  return new Counter(encodingFor(familyName(modelName)));
}

/** The model's context window in tokens: config `model.contextWindow`, else a default for common model names, else DEFAULT_CONTEXT_WINDOW_TOKENS. */
export function contextWindowFor(modelName: string | undefined, configured?: number): number {
  if (configured !== undefined) return configured;
  const name = familyName(modelName);
  let best = "";
  for (const prefix of Object.keys(DEFAULT_CONTEXT_WINDOWS)) {
    if (prefix.length > best.length && name.startsWith(prefix)) best = prefix;
  }
  return DEFAULT_CONTEXT_WINDOWS[best] ?? DEFAULT_CONTEXT_WINDOW_TOKENS;
}
