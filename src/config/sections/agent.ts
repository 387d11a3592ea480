// The `agent` section, `agent.context` and `agent.nudge` included: the defaults of its keys (and of the
// agent's `offeredToolsOnly` option) and its schema. The context's budgets that no key sets are in
// ../defaults/context.ts.

import { z } from "zod";
import { nonNegativeInt, positiveInt, regExpList } from "./fields.js";

/** Model turns an agent run may take (`agent.maxSteps`, `--max-steps`). */
export const DEFAULT_MAX_STEPS = 8;
/** Times the same tool may be called with the same arguments in one run (`agent.maxIdenticalCalls`). */
export const DEFAULT_MAX_IDENTICAL_CALLS = 3;
/**
 * Calls of one tool a run may make, whatever their arguments (`agent.maxCallsPerTool`): the next is
 * refused and the model told to answer with what it has. 0: no limit.
 */
export const DEFAULT_MAX_CALLS_PER_TOOL = 5;
/**
 * After what a server is not called again in a run (`agent.skipServerAfter`): `timeout` — once a call
 * to it timed out (or found it down); `never` — a server that timed out is called again (one found
 * down is still not).
 */
export const DEFAULT_SKIP_SERVER_AFTER: "timeout" | "never" = "timeout";
/**
 * Whether the agent refuses (without running it) a call to a tool it did not offer the model at that
 * step (`offeredToolsOnly`): the model has not seen that tool's description or schema.
 */
export const DEFAULT_OFFERED_TOOLS_ONLY = true;
/** Whether the model may ask for several tool calls in one turn (`agent.parallelToolCalls`). */
export const DEFAULT_PARALLEL_TOOL_CALLS = true;

/** Share of the window past which the agent compacts the conversation (`agent.context.compactAt`). */
export const DEFAULT_COMPACT_AT_SHARE = 0.8;
/** Share of the window compaction brings a request down to, so it does not compact again at once (`agent.context.compactTo`). */
export const DEFAULT_COMPACT_TO_SHARE = 0.5;
/** Rounds (model turns with their tool results) compaction keeps whole (`agent.context.keepRounds`). */
export const DEFAULT_KEEP_ROUNDS = 4;
/** Whether a result too large for its share is stored behind a handle the model reads with `read_result` (`agent.context.handles`). */
export const DEFAULT_RESULT_HANDLES = true;
/** Whether an earlier result of the same call (tool and arguments) becomes a stub pointing at the latest (`agent.context.collapseRepeats`). */
export const DEFAULT_COLLAPSE_REPEATS = true;
/** Who summarizes compacted rounds (`agent.context.summarizer`): `extractive` (deterministic lines) or `model` (the agent's model). */
export const DEFAULT_SUMMARIZER = "extractive";

/** The agent's system prompt when none is given. */
export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant with tools. Call tools when they help answer the question; you may call " +
  "several at once when they do not depend on each other, and use one tool's result as the next tool's " +
  "input. When the question needs live or specific data (orders, accounts, prices, weather, status, anything " +
  "that changes or that you cannot know), call the tool that has it instead of answering from memory, and " +
  "never make such data up. Each tool result starts with a line naming the tool and its outcome. If a tool " +
  "fails, read why and fix the call, or answer with what you have. Answer in the user's language.";
/**
 * Whether the agent that `createAgent` builds sends the fallback nudge (`agent.nudge`): when the model
 * answers without having called a tool although the question matches one strongly, it is reminded once
 * per run to call it (seed 003 §6.3).
 */
export const DEFAULT_NUDGE = true;
/**
 * The router score of the question's best tool from which the nudge is sent (`agent.nudge.minScore`), in
 * the lexical strategy's BM25F scale: a tool sharing two or more distinctive words with the question
 * scores above it ("北京朝阳区今天空气质量怎么样" → the environment tool, 8.6), a chance match on one common
 * word below it ("tell me a joke about cats" → an orders tool, 2.1). Other strategies score on other
 * scales: set it for them.
 */
export const DEFAULT_NUDGE_MIN_SCORE = 4;
/** The reminder the nudge sends (`agent.nudge.message`); `{tools}` becomes the best matching tools' names. */
export const DEFAULT_NUDGE_MESSAGE =
  "You answered without calling a tool, but this question looks like it needs data a tool has ({tools}). " +
  "Call the tool instead of answering from memory; if no tool can help, give your answer again.";

/** A share of the model's context window: above 0, at most 1. */
const windowShare = z
  .number({ error: "expected a share of the window, such as 0.8" })
  .gt(0, "expected a share of the window above 0, such as 0.8")
  .max(1, "expected a share of the window of at most 1, such as 0.8");

/** The `agent` section: the agent's prompt, its limits, the nudge and how its context is kept. */
export const agentSchema = z.strictObject({
  /** The agent's system prompt; absent: the built-in one. */
  systemPrompt: z.string({ error: "expected the system prompt as a string" }).optional(),
  maxSteps: positiveInt.optional(),
  maxIdenticalCalls: positiveInt.optional(),
  /** Calls of one tool per run, whatever the arguments; 0: no limit. */
  maxCallsPerTool: nonNegativeInt.optional(),
  /** `timeout`: a server whose call timed out is not called again in that run; `never`: it is. */
  skipServerAfter: z.enum(["timeout", "never"], { error: 'expected "timeout" or "never"' }).optional(),
  parallelToolCalls: z.boolean().optional(),
  /** The fallback nudge: `false` turns it off; an object tunes it (agent/nudge.ts). */
  nudge: z
    .union(
      [
        z.boolean(),
        z.strictObject({
          minScore: z.number({ error: "expected a number" }).positive("expected a number above 0").optional(),
          /** Regular expressions (case-insensitive) of questions that need a tool, e.g. "天气|weather". */
          patterns: regExpList.optional(),
          message: z.string({ error: "expected the reminder as a string" }).optional(),
        }),
      ],
      { error: 'expected true, false or { "minScore", "patterns", "message" }' },
    )
    .optional(),
  /** How each request is kept within the model's window (context/active.ts); defaults above. */
  context: z
    .strictObject(
      {
        compactAt: windowShare.optional(),
        compactTo: windowShare.optional(),
        keepRounds: positiveInt.optional(),
        handles: z.boolean({ error: "expected true or false" }).optional(),
        collapseRepeats: z.boolean({ error: "expected true or false" }).optional(),
        summarizer: z.enum(["extractive", "model"], { error: 'expected "extractive" or "model"' }).optional(),
      },
      {
        error:
          'expected { "compactAt"?, "compactTo"?: shares of the window, "keepRounds"?, "handles"?, "collapseRepeats"?, "summarizer"?: "extractive" | "model" }',
      },
    )
    .optional(),
});
