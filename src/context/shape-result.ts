import { DEFAULT_RESULT_BUDGET_CHARS, DEFAULT_RESULT_BUDGET_TOKENS } from "../config/defaults.js";
import { cutJson, cutText, number, serialize } from "./cut.js";
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
  resource?:
    | { uri: string; mimeType?: string | undefined; text?: string | undefined; blob?: string | undefined }
    | undefined;
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

/** One piece of a result: JSON (kept valid), text (cut head and tail) or a short description (kept). */
type Part =
  | { kind: "json"; value: unknown; source: string }
  | { kind: "text"; source: string }
  | { kind: "fixed"; source: string };

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
