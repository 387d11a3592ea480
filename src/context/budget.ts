import {
  DEFAULT_ANSWER_RESERVE_MAX_SHARE,
  DEFAULT_ANSWER_RESERVE_TOKENS,
  DEFAULT_RESULT_BUDGET_TOKENS,
  DEFAULT_RESULT_SHARE,
  DEFAULT_SYSTEM_PROMPT_SHARE,
  DEFAULT_TOOLS_SHARE,
} from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";

/** How a model's context window is shared out, in tokens. */
export interface ContextBudget {
  /** The whole window. */
  window: number;
  /** Kept free for the model's answer. */
  answer: number;
  /** The most one request may take: the window less the answer's reserve. */
  request: number;
  /** For the system prompt. */
  systemPrompt: number;
  /** For the offered tools (names, descriptions, schemas). */
  tools: number;
  /** For the conversation: the request less the system prompt's and the tools' shares. */
  history: number;
  /** For each tool result (a part of `history`). */
  result: number;
}

/** The split's settings; each share is of `request` (the window less the answer's reserve). */
export interface BudgetOptions {
  /** Default {@link DEFAULT_ANSWER_RESERVE_TOKENS}, at most {@link DEFAULT_ANSWER_RESERVE_MAX_SHARE} of the window. */
  answerTokens?: number;
  /** Default {@link DEFAULT_SYSTEM_PROMPT_SHARE}. */
  systemPromptShare?: number;
  /** Default {@link DEFAULT_TOOLS_SHARE}. */
  toolsShare?: number;
  /** Default {@link DEFAULT_RESULT_SHARE}. */
  resultShare?: number;
  /** Default {@link DEFAULT_RESULT_BUDGET_TOKENS}: a result's cap, however large the window. */
  maxResultTokens?: number;
}

function invalid(message: string): SwitchyardError {
  return new SwitchyardError("INVALID_INPUT", message);
}

function share(name: string, value: number): number {
  if (!(value >= 0 && value < 1)) {
    throw invalid(`budgetFor: ${name} must be a share from 0 to below 1, got ${value}`);
  }
  return value;
}

function tokens(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw invalid(`budgetFor: ${name} must be a whole number of tokens above 0, got ${value}`);
  }
  return value;
}

/**
 * Split a context window between the answer's reserve, the system prompt, the offered tools and the
 * conversation, with a cap for each tool result.
 * @throws SwitchyardError `INVALID_INPUT` for a window or a token count that is not a whole number
 *   above 0, a share outside [0, 1), or system prompt and tools shares that leave nothing for history.
 */
export function budgetFor(window: number, options: BudgetOptions = {}): ContextBudget {
  tokens("the window (model.contextWindow)", window);
  const answerTokens = tokens("answerTokens", options.answerTokens ?? DEFAULT_ANSWER_RESERVE_TOKENS);
  const systemShare = share("systemPromptShare", options.systemPromptShare ?? DEFAULT_SYSTEM_PROMPT_SHARE);
  const toolsShare = share("toolsShare", options.toolsShare ?? DEFAULT_TOOLS_SHARE);
  const resultShare = share("resultShare", options.resultShare ?? DEFAULT_RESULT_SHARE);
  const maxResult = tokens("maxResultTokens", options.maxResultTokens ?? DEFAULT_RESULT_BUDGET_TOKENS);
  if (systemShare + toolsShare >= 1) {
    throw invalid(
      `budgetFor: systemPromptShare (${systemShare}) and toolsShare (${toolsShare}) add up to 1 or more, leaving nothing for the conversation; lower them`,
    );
  }
  const answer = Math.min(answerTokens, Math.floor(window * DEFAULT_ANSWER_RESERVE_MAX_SHARE));
  const request = window - answer;
  const systemPrompt = Math.floor(request * systemShare);
  const tools = Math.floor(request * toolsShare);
  const history = request - systemPrompt - tools;
  const result = Math.max(1, Math.min(maxResult, Math.floor(request * resultShare), history));
  return { window, answer, request, systemPrompt, tools, history, result };
}
