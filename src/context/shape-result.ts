import { DEFAULT_RESULT_BUDGET_CHARS, DEFAULT_RESULT_BUDGET_TOKENS } from "../config/defaults.js";
import { type TokenCounter, tokenCounterFor } from "./tokens.js";

export { DEFAULT_RESULT_BUDGET_CHARS, DEFAULT_RESULT_BUDGET_TOKENS } from "../config/defaults.js";

/** How a tool call ended, as the model is told in the anchor line. */
export type CallOutcome =
  | "ok"
  | "error"
  | "invalid_arguments"
  | "unavailable"
  | "refused"
  | "timeout"
  | "failed";

/** What an anchor line is made from. */
export interface AnchorInfo {
  tool: string;
  outcome: CallOutcome;
}

/** Writes the short line that opens each tool message (seed 003 §6.2); return "" for none. */
export type AnchorFormat = (info: AnchorInfo) => string;

/** `[tool orders_query → ok]`: names the tool and the outcome, so the model never confuses results. */
export const defaultAnchor: AnchorFormat = ({ tool, outcome }) =>
  `[tool ${tool} → ${outcome.replace("_", " ")}]`;

/** A content block of a tool result (MCP's `ContentBlock`, as much of it as shaping reads). */
export interface ResultBlock {
  type: string;
  text?: string | undefined;
  mimeType?: string | undefined;
  /** base64 (images, audio): described by its size, never sent to the model. */
  data?: string | undefined;
  uri?: string | undefined;
  name?: string | undefined;
  resource?: { uri: string; mimeType?: string | undefined; text?: string; blob?: string } | undefined;
}

/** What the note says of the part left out when the caller names no way to get it. */
export const DEFAULT_MORE_HINT = "ask for less, e.g. a narrower query";

export interface ShapeToolResultOptions extends AnchorInfo {
  /** The result as plain text (`ToolResult.text`): shaped when there are no `content` blocks. */
  text: string;
  /** The result's content blocks: text and JSON shaped, images, audio and binary resources described. */
  content?: readonly ResultBlock[];
  /**
   * The result's structured content: shown instead of a text block holding JSON (its serialization), and
   * instead of a text in the tool's own words when that text does not fit the budget whole.
   */
  structuredContent?: unknown;
  /**
   * Tokens the whole tool message may take (anchor and notes included). Default
   * {@link DEFAULT_RESULT_BUDGET_TOKENS}, unless only `budgetChars` is given (then no token budget).
   */
  budgetTokens?: number;
  /** Characters the result's body may take, as well (no default when `budgetTokens` is given). */
  budgetChars?: number;
  /** Counts the tokens; default: the estimate (`tokenCounterFor(undefined)`). */
  counter?: TokenCounter;
  anchor?: AnchorFormat | false;
  /** How the model can get what was left out, for the notes; default {@link DEFAULT_MORE_HINT}. */
  more?: string;
}

/** A shaped tool message. */
export interface ShapedResult {
  /** The tool message's content: the anchor line, then the result within the budget. */
  text: string;
  /** True when something was left out (the notes in `text` say what). */
  cut: boolean;
  /** Tokens of the result's body before shaping (above 100,000 characters, extrapolated from samples). */
  originalTokens: number;
  /** Tokens of `text`. */
  tokens: number;
}

/** Whole texts up to this length are counted; longer ones are sampled (counting 5 MB takes a second). */
const COUNT_WHOLE_CHARS = 100_000;
const SAMPLE_CHARS = 4_000;
/** Characters held back for the note that says what was left out of a JSON value. */
const NOTE_CHARS = 400;
const number = (value: number): string => value.toLocaleString("en-US");
/** `1 item`, `4,950 items`. */
const count = (value: number, noun: string): string => `${number(value)} ${noun}${value === 1 ? "" : "s"}`;

/** One piece of a result: JSON (kept valid), text (cut head and tail) or a short description (kept). */
type Part =
  | { kind: "json"; value: unknown; source: string }
  | { kind: "text"; source: string }
  | { kind: "fixed"; source: string };

/** `JSON.stringify`, or undefined for a value nested too deep to serialize (a RangeError). */
function serialize(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function looksLikeJson(text: string): boolean {
  const first = text.trimStart()[0];
  return first === "{" || first === "[";
}

function textPart(text: string): Part {
  if (looksLikeJson(text)) {
    try {
      return { kind: "json", value: JSON.parse(text), source: text };
    } catch {
      // not JSON after all: shaped as text
    }
  }
  return { kind: "text", source: text };
}

function bytesOf(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function blockParts(block: ResultBlock): Part[] {
  switch (block.type) {
    case "text":
      return [textPart(block.text ?? "")];
    case "image":
    case "audio":
      return [
        {
          kind: "fixed",
          source: `[${block.type} ${block.mimeType ?? "of unknown type"}, ${number(bytesOf(block.data ?? ""))} bytes, not shown]`,
        },
      ];
    case "resource": {
      const resource = block.resource;
      if (!resource) return [{ kind: "fixed", source: "[resource]" }];
      const type = resource.mimeType ? ` (${resource.mimeType})` : "";
      if (typeof resource.text === "string") {
        return [{ kind: "fixed", source: `[resource ${resource.uri}${type}]` }, textPart(resource.text)];
      }
      const size = resource.blob !== undefined ? `, ${number(bytesOf(resource.blob))} bytes, not shown` : "";
      return [{ kind: "fixed", source: `[resource ${resource.uri}${type}${size}]` }];
    }
    case "resource_link":
      return [{ kind: "fixed", source: `[link ${block.name ?? ""}: ${block.uri ?? ""}]` }];
    default:
      return [{ kind: "fixed", source: `[${block.type} content]` }];
  }
}

/**
 * The parts to show; with structured content sent beside a text in the tool's own words (not JSON), also
 * that text's parts (`rendering`), shown instead when they fit whole.
 */
function partsOf(options: ShapeToolResultOptions): { parts: Part[]; rendering?: Part[] } {
  const content = options.content ?? [];
  const structured = options.structuredContent;
  const source = structured === undefined || structured === null ? undefined : serialize(structured);
  if (source === undefined) {
    if (content.length === 0) return { parts: options.text === "" ? [] : [textPart(options.text)] };
    return { parts: content.flatMap(blockParts) };
  }
  const parts: Part[] = [
    { kind: "json", value: structured, source },
    ...content.filter((block) => block.type !== "text").flatMap(blockParts),
  ];
  // A text block holding JSON is the structured content serialized (MCP asks tools to send both): one
  // copy is enough, and the structured one is shaped.
  const texts = content.filter((block) => block.type === "text");
  const ownWords = texts.length > 0 && texts.every((block) => !looksLikeJson(block.text ?? ""));
  return ownWords ? { parts, rendering: content.flatMap(blockParts) } : { parts };
}

// --- Measuring ---------------------------------------------------------------------------------

/** Tokens of `text`: counted when short, else extrapolated from samples of its head, middle and tail. */
function measure(text: string, counter: TokenCounter): number {
  if (text.length <= COUNT_WHOLE_CHARS) return counter.count(text);
  return Math.round(text.length / charsPerToken(text, counter));
}

function charsPerToken(text: string, counter: TokenCounter): number {
  if (text.length <= SAMPLE_CHARS * 3) return text.length / Math.max(1, counter.count(text));
  const middle = Math.floor(text.length / 2 - SAMPLE_CHARS / 2);
  const sample =
    text.slice(0, SAMPLE_CHARS) + text.slice(middle, middle + SAMPLE_CHARS) + text.slice(-SAMPLE_CHARS);
  return sample.length / Math.max(1, counter.count(sample));
}

/** Where to cut at or before `index` without splitting a surrogate pair. */
function safeEnd(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return index > 0 && code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/** Where to start at or after `index` without splitting a surrogate pair. */
function safeStart(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index + 1 : index;
}

// --- Text: head and tail -----------------------------------------------------------------------

function cutText(text: string, chars: number, more: string): string {
  const marker = (left: number) =>
    `\n[… ${number(left)} of ${number(text.length)} characters left out here; ${more}]\n`;
  const room = Math.max(0, chars - marker(text.length).length);
  let head = safeEnd(text, Math.ceil((room * 2) / 3));
  const newline = text.lastIndexOf("\n", head);
  if (newline > head * 0.8) head = newline; // end the head at a line's end when one is near
  let tail = safeStart(text, text.length - (room - head));
  const tailNewline = text.indexOf("\n", tail);
  if (tailNewline !== -1 && tailNewline - tail < (text.length - tail) * 0.2) tail = tailNewline + 1;
  if (tail < head) tail = head;
  return `${text.slice(0, head)}${marker(tail - head)}${text.slice(tail)}`;
}

// --- JSON: valid, pruned -----------------------------------------------------------------------

interface Limits {
  items: number;
  keys: number;
  stringChars: number;
  depth: number;
}

interface PruneStats {
  arrays: number;
  items: number;
  objects: number;
  keys: number;
  strings: number;
  chars: number;
  deep: number;
}

/** Limits for a scale from 0 (the tightest) to 1 (generous): bigger scale, bigger output. */
function limitsAt(scale: number): Limits {
  const items = Math.max(1, Math.floor(2 ** (scale * 10)));
  return {
    items,
    keys: Math.max(8, items * 2),
    stringChars: Math.floor(16 * 2 ** (scale * 9)),
    depth: 1 + Math.floor(scale * 15),
  };
}

const TOO_BIG = Symbol("too big");

function summary(value: object): string {
  return Array.isArray(value)
    ? `… [an array of ${count(value.length, "item")}]`
    : `… {an object of ${count(Object.keys(value).length, "key")}}`;
}

/**
 * A copy of `value` within `limits`, with a marker for each cut; throws {@link TOO_BIG} once its
 * serialized size passes `maxChars`, so a too-generous try costs no more than the budget.
 */
function prune(value: unknown, limits: Limits, maxChars: number, stats: PruneStats): unknown {
  let size = 0;
  const grow = (chars: number) => {
    size += chars;
    if (size > maxChars) throw TOO_BIG;
  };
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === "string") {
      if (node.length <= limits.stringChars) {
        grow(node.length + 2);
        return node;
      }
      const end = safeEnd(node, limits.stringChars);
      stats.strings++;
      stats.chars += node.length - end;
      const cut = `${node.slice(0, end)}… [+${number(node.length - end)} characters]`;
      grow(cut.length + 2);
      return cut;
    }
    if (node === null || typeof node !== "object") {
      grow(String(node).length + 1);
      return node;
    }
    if (depth >= limits.depth) {
      stats.deep++;
      const marker = summary(node);
      grow(marker.length + 2);
      return marker;
    }
    if (Array.isArray(node)) {
      const kept = node.slice(0, limits.items).map((item) => {
        grow(1);
        return walk(item, depth + 1);
      });
      if (node.length > kept.length) {
        stats.arrays++;
        stats.items += node.length - kept.length;
        const marker = `… ${number(node.length - kept.length)} more ${node.length - kept.length === 1 ? "item" : "items"} (${number(node.length)} in all)`;
        grow(marker.length + 3);
        kept.push(marker);
      }
      return kept;
    }
    const keys = Object.keys(node);
    // No prototype: a "__proto__" key stays a key.
    const copy: Record<string, unknown> = Object.create(null);
    for (const key of keys.slice(0, limits.keys)) {
      grow(key.length + 4);
      copy[key] = walk((node as Record<string, unknown>)[key], depth + 1);
    }
    if (keys.length > limits.keys) {
      stats.objects++;
      stats.keys += keys.length - limits.keys;
      const marker = `${number(keys.length - limits.keys)} more ${keys.length - limits.keys === 1 ? "key" : "keys"} (${number(keys.length)} in all)`;
      grow(marker.length + 8);
      copy["…" in copy ? "… more" : "…"] = marker;
    }
    return copy;
  };
  return walk(value, 0);
}

function noteOf(stats: PruneStats, limits: Limits, source: string, tokens: number, more: string): string {
  const cuts: string[] = [];
  if (stats.arrays)
    cuts.push(
      `long arrays keep their first ${count(limits.items, "item")} (${count(stats.items, "item")} left out)`,
    );
  if (stats.objects)
    cuts.push(
      `big objects keep their first ${count(limits.keys, "key")} (${count(stats.keys, "key")} left out)`,
    );
  if (stats.strings)
    cuts.push(
      `${count(stats.strings, "long string")} cut to ${count(limits.stringChars, "character")} (${count(stats.chars, "character")} left out)`,
    );
  if (stats.deep)
    cuts.push(`${count(stats.deep, "value")} nested deeper than ${count(limits.depth, "level")} summarized`);
  const what = cuts.length ? cuts.join("; ") : "the value summarized";
  return `[JSON shaped to fit: ${what}; the whole is ${number(source.length)} characters, ~${number(tokens)} tokens; ${more}]`;
}

/** The largest pruning of `value` whose JSON fits `chars`, found by bisecting the limits' scale. */
function cutJson(
  part: { value: unknown; source: string },
  chars: number,
  tokens: number,
  more: string,
): { text: string; cut: boolean } {
  if (part.source.length <= chars * 4) {
    // Pretty-printed JSON may fit once compact: reformatting is not cutting.
    const compact = serialize(part.value);
    if (compact !== undefined && compact.length <= chars) return { text: compact, cut: false };
  }
  const room = Math.max(0, chars - NOTE_CHARS);
  let best: { json: string; stats: PruneStats; limits: Limits } | undefined;
  let low = 0;
  let high = 1;
  for (let step = 0; step < 10; step++) {
    const scale = step === 0 ? 0 : (low + high) / 2;
    const limits = limitsAt(scale);
    const stats: PruneStats = { arrays: 0, items: 0, objects: 0, keys: 0, strings: 0, chars: 0, deep: 0 };
    let json: string | undefined;
    try {
      json = JSON.stringify(prune(part.value, limits, room, stats));
    } catch (error) {
      if (error !== TOO_BIG) throw error;
    }
    if (json !== undefined && json.length <= room) {
      best = { json, stats, limits };
      low = scale;
    } else if (step === 0) {
      break; // even the tightest pruning is too big
    } else {
      high = scale;
    }
  }
  if (!best) {
    const marker = JSON.stringify(summary(part.value as object));
    const note = `[JSON shaped to fit: only its outline is shown; the whole is ${number(part.source.length)} characters, ~${number(tokens)} tokens; ${more}]`;
    return { text: `${note}\n${marker}`, cut: true };
  }
  return { text: `${noteOf(best.stats, best.limits, part.source, tokens, more)}\n${best.json}`, cut: true };
}

// --- The whole message -------------------------------------------------------------------------

/**
 * The content of a tool message: the anchor line, then the result within the budget. JSON stays valid
 * JSON (long arrays keep their first items and a count, long strings are cut with a marker, deep values
 * summarized), structured content is preferred over its text duplicate, images, audio and binary
 * resources are described, plain text keeps its head and tail; a note says what was left out.
 */
export function shapeToolResult(options: ShapeToolResultOptions): ShapedResult {
  const counter = options.counter ?? tokenCounterFor(undefined);
  const more = options.more ?? DEFAULT_MORE_HINT;
  const anchor = options.anchor === false ? "" : (options.anchor ?? defaultAnchor)(options);
  const withAnchor = (body: string) => (anchor ? `${anchor}\n${body}` : body);
  const budgetTokens =
    options.budgetTokens ?? (options.budgetChars === undefined ? DEFAULT_RESULT_BUDGET_TOKENS : undefined);
  const budgetChars = options.budgetChars ?? Number.POSITIVE_INFINITY;
  const { parts, rendering } = partsOf(options);
  const fits = (body: string): boolean =>
    body.length <= budgetChars &&
    (budgetTokens === undefined || counter.countUpTo(withAnchor(body), budgetTokens) <= budgetTokens);
  const uncut = (body: string): ShapedResult => {
    const text = withAnchor(body);
    return { text, cut: false, originalTokens: counter.count(body), tokens: counter.count(text) };
  };
  // The tool's own words, when they fit; else its structured content, which shaping keeps valid.
  const own = rendering?.map((part) => part.source).join("\n");
  if (own !== undefined && fits(own)) return uncut(own);
  const whole = parts.map((part) => part.source).join("\n");
  if (fits(whole)) return uncut(whole);

  // Each part's size in the budget's unit (tokens, or characters when only characters are budgeted).
  const ratios = parts.map((part) => (budgetTokens === undefined ? 1 : charsPerToken(part.source, counter)));
  const sizes = parts.map((part, i) => part.source.length / (ratios[i] ?? 1));
  const originalTokens = measure(whole, counter);
  const anchorUnits = budgetTokens === undefined ? 0 : counter.count(anchor) + 1;
  let target =
    budgetTokens === undefined
      ? budgetChars
      : Math.min(budgetTokens - anchorUnits, budgetChars / Math.max(...ratios, 1));
  let body = "";
  let cut = false;
  let fitted = false;
  for (let attempt = 0; attempt < 5 && !fitted; attempt++) {
    ({ body, cut } = renderWithin(parts, sizes, ratios, Math.max(0, target), counter, more));
    fitted = fits(body);
    if (fitted) break;
    const tokens = budgetTokens === undefined ? 0 : counter.countUpTo(withAnchor(body), budgetTokens * 4);
    const shrink = Math.min(
      budgetTokens === undefined ? 1 : budgetTokens / Math.max(1, tokens),
      budgetChars / body.length,
    );
    target = Math.floor(target * Math.min(0.9, shrink * 0.95));
  }
  if (!fitted) {
    // A budget too small for even the notes: say so in one line.
    cut = true;
    body = `[… the whole result left out (${number(whole.length)} characters, ~${number(originalTokens)} tokens): it does not fit this message's budget; ${more}]`;
  }
  const text = withAnchor(body);
  return { text, cut, originalTokens, tokens: counter.count(text) };
}

/** Share `target` units among the parts (the smallest first get their whole size) and shape each. */
function renderWithin(
  parts: readonly Part[],
  sizes: readonly number[],
  ratios: readonly number[],
  target: number,
  counter: TokenCounter,
  more: string,
): { body: string; cut: boolean } {
  const order = parts.map((_, i) => i).sort((a, b) => (sizes[a] ?? 0) - (sizes[b] ?? 0));
  const allowance = new Array<number>(parts.length).fill(0);
  let left = target;
  order.forEach((index, rank) => {
    const share = Math.min(sizes[index] ?? 0, left / (order.length - rank));
    allowance[index] = share;
    left -= share;
  });
  let cut = false;
  const body = parts
    .map((part, i) => {
      const chars = Math.floor((allowance[i] ?? 0) * (ratios[i] ?? 1));
      if (part.source.length <= chars) return part.source;
      if (part.kind === "json") {
        const shaped = cutJson(part, chars, measure(part.source, counter), more);
        cut ||= shaped.cut;
        return shaped.text;
      }
      cut = true;
      return cutText(part.source, chars, more);
    })
    .join("\n");
  return { body, cut };
}

export interface ShapeOptions extends AnchorInfo {
  text: string;
  /** Default {@link DEFAULT_RESULT_BUDGET_CHARS}. */
  budgetChars?: number;
  anchor?: AnchorFormat | false;
}

/**
 * The content of a tool message from plain text, within a budget of characters (no token budget): the
 * anchor line, then the text (JSON kept valid, other text cut head and tail) with a note of what was left
 * out. {@link shapeToolResult} budgets in tokens and says whether it cut.
 */
export function shapeResult(options: ShapeOptions): string {
  return shapeToolResult({
    tool: options.tool,
    outcome: options.outcome,
    text: options.text,
    budgetChars: options.budgetChars ?? DEFAULT_RESULT_BUDGET_CHARS,
    ...(options.anchor !== undefined ? { anchor: options.anchor } : {}),
  }).text;
}
