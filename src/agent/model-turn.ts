import { DEFAULT_SYSTEM_PROMPT } from "../config/defaults.js";
import { type ContextSettings, fitActiveContext } from "../context/active.js";
import type { Compaction } from "../context/compact.js";
import type { ResultHandles } from "../context/handles.js";
import type { ChatMessage, ModelProvider, ModelResponse, ModelTool, ToolCall } from "../models/model.js";
import type { RunSpans } from "../telemetry/tracer.js";
import { elapsedMs, type StepRecord, type TokenUsage } from "./events.js";

/** Added to the system prompt on the last step a run allows (`maxSteps`), when no tools are offered. */
export const LAST_STEP_NOTE =
  "This is your last turn: no more tools can be called. Answer now from what you have; say what is " +
  "missing if you could not find it.";

/** What one model turn is built from. */
export interface ModelTurnInput {
  model: ModelProvider;
  systemPrompt: string | undefined;
  parallelToolCalls: boolean;
  context: ContextSettings;
  /** The run's working record, its compaction so far, and where its question is in it. */
  record: readonly ChatMessage[];
  compaction: Compaction;
  question: number;
  handles: ResultHandles | undefined;
  offered: ModelTool[];
  /** The run's last step: no tools are offered, and the prompt says so. */
  last: boolean;
  step: number;
  spans: RunSpans;
  signal: AbortSignal | undefined;
  /** Races a wait against the run's signal (`CANCELLED` as soon as it aborts). */
  unlessAborted<T>(work: Promise<T>): Promise<T>;
}

/**
 * How a model turn went: what the model said (with the step's record, the compaction it left, the
 * calls it asked for, each with a unique id), or where it failed — building what it is sent, or the
 * model itself (then with the step's record too).
 */
export type ModelTurn =
  | {
      type: "answered";
      response: ModelResponse;
      toolCalls: ToolCall[];
      compaction: Compaction;
      step: StepRecord;
      tokens?: TokenUsage;
    }
  | { type: "failed"; stage: "context" | "model"; error: unknown; step?: StepRecord };

/**
 * One model turn: what the model is sent is built from the working record within the window (result
 * handles, collapsed repeats, compaction of the oldest rounds), then the model is asked; what its server
 * counted corrects the token estimate for the next request. A model that does not heed the signal is
 * not waited for either.
 */
export async function takeModelTurn(input: ModelTurnInput): Promise<ModelTurn> {
  const prompt = input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
  let active: Awaited<ReturnType<typeof fitActiveContext>>;
  try {
    active = await input.unlessAborted(
      fitActiveContext(
        {
          system: input.last ? `${prompt}\n\n${LAST_STEP_NOTE}` : prompt,
          tools: input.offered,
          record: input.record,
          compaction: input.compaction,
          question: input.question,
          ...(input.handles ? { handles: input.handles } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
        },
        input.context,
      ),
    );
  } catch (error) {
    return { type: "failed", stage: "context", error };
  }
  const step = {
    step: input.step,
    offered: input.offered.length,
    toolCalls: 0,
    modelMs: 0,
    promptEstimate: active.estimate,
    ...(active.compacted ? { compacted: active.compacted } : {}),
  };
  const started = performance.now();
  let response: ModelResponse;
  try {
    response = await input.unlessAborted(
      input.spans.model(input.model.name, () =>
        input.model.complete({
          messages: active.messages,
          tools: input.offered,
          parallelToolCalls: input.parallelToolCalls,
          ...(input.signal ? { signal: input.signal } : {}),
        }),
      ),
    );
  } catch (error) {
    return { type: "failed", stage: "model", error, step: { ...step, modelMs: elapsedMs(started) } };
  }
  const tokens = response.usage
    ? { input: response.usage.promptTokens, output: response.usage.completionTokens }
    : undefined;
  if (tokens) input.context.counter.calibrate(active.estimate, tokens.input);
  return {
    type: "answered",
    response,
    toolCalls: uniqueIds(response.toolCalls, input.step),
    compaction: active.compaction,
    step: {
      ...step,
      toolCalls: response.toolCalls.length,
      modelMs: elapsedMs(started),
      ...(tokens ? { tokens } : {}),
    },
    ...(tokens ? { tokens } : {}),
  };
}

/** Some servers repeat or omit tool call ids; results are paired by id, so each must be unique. */
function uniqueIds(calls: ToolCall[], step: number): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call, index) => {
    const id = call.id && !seen.has(call.id) ? call.id : `call_${step}_${index}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
