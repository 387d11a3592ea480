import { DEFAULT_RESULT_BUDGET_CHARS } from "../config/defaults.js";

export { DEFAULT_RESULT_BUDGET_CHARS } from "../config/defaults.js";

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

export interface ShapeOptions extends AnchorInfo {
  text: string;
  /** Default {@link DEFAULT_RESULT_BUDGET_CHARS}. */
  budgetChars?: number;
  anchor?: AnchorFormat | false;
}

/**
 * The content of a tool message: the anchor line, then the text cut to the budget with a visible
 * marker that says how much was left out.
 */
export function shapeResult(options: ShapeOptions): string {
  const budget = options.budgetChars ?? DEFAULT_RESULT_BUDGET_CHARS;
  const anchor = options.anchor === false ? "" : (options.anchor ?? defaultAnchor)(options);
  let body = options.text;
  if (body.length > budget) {
    const cut = body.slice(0, budget);
    body = `${cut}\n[… truncated: ${body.length - budget} of ${body.length} characters left out; ask for less, e.g. a narrower query]`;
  }
  return anchor ? `${anchor}\n${body}` : body;
}
