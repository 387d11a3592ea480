// Context: tokens and budgets (src/context), how each request is fitted to the model's window. No config
// key sets these; the keys that do (`model.contextWindow`, `agent.context`) are in ../sections/.

/** Characters per token of the estimate for models without a known tokenizer (CJK characters count one token each). */
export const DEFAULT_CHARS_PER_TOKEN = 4;
/** Weight of each new `usage` report in the estimate's correction factor (the rest: the factor so far). */
export const DEFAULT_TOKEN_CALIBRATION_WEIGHT = 0.5;
/** Lowest and highest correction factor the reported `usage` may set on the estimate. */
export const DEFAULT_TOKEN_CALIBRATION_BOUNDS: Readonly<{ min: number; max: number }> = Object.freeze({
  min: 0.5,
  max: 3,
});
/** Tokens kept free in the window for the model's answer, at most {@link DEFAULT_ANSWER_RESERVE_MAX_SHARE} of it. */
export const DEFAULT_ANSWER_RESERVE_TOKENS = 4_096;
/** The most of a small window the answer's reserve takes (an 8k window keeps 2,048 tokens for it). */
export const DEFAULT_ANSWER_RESERVE_MAX_SHARE = 0.25;
/** Share of a request's tokens (the window less the answer's reserve) for the system prompt. */
export const DEFAULT_SYSTEM_PROMPT_SHARE = 0.05;
/** Share of a request's tokens for the offered tools (their names, descriptions and schemas). */
export const DEFAULT_TOOLS_SHARE = 0.15;
/** Share of a request's tokens that one tool result may take, up to {@link DEFAULT_RESULT_BUDGET_TOKENS}. */
export const DEFAULT_RESULT_SHARE = 0.1;
/**
 * Tokens of one tool result the model sees, at most, whatever the window; a larger result is shaped to
 * fit (JSON kept valid, text cut head and tail) with a note of what was left out.
 */
export const DEFAULT_RESULT_BUDGET_TOKENS = 4_000;

/**
 * Characters of one tool result the model sees before it is cut, when a character budget is asked for
 * (`shapeResult` without a token budget); the agent's results are budgeted in tokens.
 */
export const DEFAULT_RESULT_BUDGET_CHARS = 8_000;
/** Characters one `read_result` page returns at most (a stored result is read in pages of this size). */
export const DEFAULT_READ_RESULT_CHARS = 8_000;

/** Share of a request (the window less the answer's reserve) a summary of compacted rounds may take, up to `DEFAULT_SUMMARY_MAX_TOKENS`. */
export const DEFAULT_SUMMARY_SHARE = 0.1;
/** The most tokens a summary of compacted rounds takes, whatever the window. */
export const DEFAULT_SUMMARY_MAX_TOKENS = 2_000;
