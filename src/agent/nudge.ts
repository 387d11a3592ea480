import { DEFAULT_NUDGE_MESSAGE, DEFAULT_NUDGE_MIN_SCORE } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import type { Router } from "../routing/router.js";
import type { RunState } from "./guards.js";
import { SEARCH_TOOLS_NAME } from "./tool-search.js";

/** Defaults of the fallback nudge (they live in config/defaults.ts). */
export { DEFAULT_NUDGE_MESSAGE, DEFAULT_NUDGE_MIN_SCORE };

/** Tools a reminder names, at most. */
const NAMED_TOOLS = 3;

/** What a {@link Nudge} is asked about: a run whose model answered without having called a tool. */
export interface NudgeContext {
  /** The run's question (its latest user message). */
  question: string;
  /** What the model answered. */
  answer: string;
  /** Names of the tools offered at the step that answered (local tools such as `search_tools` included). */
  offered: readonly string[];
  state: RunState;
}

/**
 * Decides whether a run whose model answered from memory gets one reminder: the reminder's text, or
 * `undefined` to accept the answer. The agent asks at most once per run, and only when no tool was
 * called in the run yet.
 */
export type Nudge = (context: NudgeContext) => string | undefined | Promise<string | undefined>;

/** Options of {@link fallbackNudge}. */
export interface FallbackNudgeOptions {
  /** Scores the question against the catalog (the agent's router); without it only `patterns` count. */
  router?: Router;
  /** Brings the router up to date with the catalog before it scores. */
  sync?: () => void;
  /** The best tool's score from which a question needs a tool; default {@link DEFAULT_NUDGE_MIN_SCORE}. */
  minScore?: number | undefined;
  /** Questions that need a tool whatever the router says: regular expressions, case-insensitive. */
  patterns?: ReadonlyArray<string | RegExp> | undefined;
  /** The reminder; `{tools}` becomes the best matching tools' names. Default {@link DEFAULT_NUDGE_MESSAGE}. */
  message?: string | undefined;
}

/**
 * The fallback nudge of seed 003 §6.3: when the model answers without calling a tool although the
 * router scores a tool at least `minScore` for the question, or one of `patterns` matches it, the model
 * is sent one short reminder (naming the best tools) and asked again. A question that matches nothing
 * ("hello", "write a poem") is answered as it is.
 * @throws SwitchyardError `CONFIG_INVALID` for a pattern that is not a regular expression.
 */
export function fallbackNudge(options: FallbackNudgeOptions = {}): Nudge {
  const minScore = options.minScore ?? DEFAULT_NUDGE_MIN_SCORE;
  const message = options.message ?? DEFAULT_NUDGE_MESSAGE;
  const patterns = (options.patterns ?? []).map((pattern, index) => {
    if (pattern instanceof RegExp) return pattern;
    try {
      return new RegExp(pattern, "iu");
    } catch (error) {
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `agent.nudge.patterns[${index}]: ${JSON.stringify(pattern)} is not a regular expression (${(error as Error).message})`,
      );
    }
  });
  return async ({ question, offered }) => {
    options.sync?.();
    const ranked = options.router ? await options.router.rank(question, { topK: NAMED_TOOLS }) : [];
    const strong = ranked.filter((hit) => hit.score >= minScore);
    const matched = patterns.some((pattern) => pattern.test(question));
    if (strong.length === 0 && !matched) return undefined;
    const names = (strong.length ? strong : ranked).map((hit) => hit.id);
    const hidden = names.some((name) => !offered.includes(name)) && offered.includes(SEARCH_TOOLS_NAME);
    const tools = names.length
      ? `${names.join(", ")}${hidden ? `; find them with ${SEARCH_TOOLS_NAME}` : ""}`
      : "see the tools you are offered";
    return message.replaceAll("{tools}", tools);
  };
}
