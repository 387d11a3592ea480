import type { ToolResult } from "../calls/normalize.js";
import type { CatalogEntry } from "../catalog/catalog.js";
import { DEFAULT_RECORDED_ERROR_CHARS } from "../config/defaults.js";
import { type AnchorFormat, type CallOutcome, shapeToolResult } from "../context/shape-result.js";
import type { TokenCounter } from "../context/tokens.js";
import { isSwitchyardError, messageOf } from "../errors.js";
import type { ToolCall } from "../models/model.js";
import type { Identity } from "../telemetry/audit.js";
import { type CallRecord, elapsedMs, type RecordedError } from "./events.js";
import { type CallGuard, callKey, type RunState } from "./guards.js";

/** What a run tells the host about a call: which run, which call, which step. */
export interface ToolCallOptions {
  signal?: AbortSignal;
  /** The run the call belongs to; the host's call events carry it. */
  runId?: string;
  /** The call's id (the model's `tool_call_id`); the host's call events carry it. */
  callId?: string;
  /** The model turn that asked for the call. */
  step?: number;
  /** Who the run is for: the host's policy decides the call for this identity. */
  identity?: Identity;
}

/** What the agent needs of a Switchyard: look tools up and call them. */
export interface ToolHost {
  describeTool(name: string): CatalogEntry | undefined;
  callTool(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult>;
}

export interface RunCallOptions {
  host: ToolHost;
  guards: readonly CallGuard[];
  state: RunState;
  /** Names the model was offered this step: what call guards see as `offered`, and "did you mean" help. */
  offered: readonly string[];
  /** The run's id, passed on to the host. */
  runId?: string;
  /** Who the run is for, passed on to the host. */
  identity?: Identity;
  anchor?: AnchorFormat | false;
  /** Tokens one tool message may take (the budget split's `result`); default `DEFAULT_RESULT_BUDGET_TOKENS`. */
  budgetTokens?: number;
  /** Characters of a result's body, as well (`resultBudgetChars`); alone, a budget in characters only. */
  budgetChars?: number;
  /** Counts the tokens for the model; default: the estimate. */
  counter?: TokenCounter;
  /** How the model can get what shaping left out, for the notes (e.g. a result handle). */
  more?: string;
  signal?: AbortSignal;
}

/** How a call's tool message was shaped to its budget. */
export interface ShapingReport {
  /** True when something of the result was left out (the message's notes say what). */
  cut: boolean;
  /** Tokens of the result before shaping. */
  originalTokens: number;
  /** Tokens of the tool message. */
  tokens: number;
}

/** One tool call's outcome: the tool message for the model and the record for the run. */
export interface CallOutcomeReport {
  content: string;
  record: CallRecord;
  shaping: ShapingReport;
  /** The tool's whole result, when the call reached the tool: what `content` shows within the budget. */
  result?: ToolResult;
  /** True when the call went to the host's `callTool` (whose pipeline reported it to the host's observers). */
  sent: boolean;
  /** The (tool, arguments) key when the call reached the server. */
  sentKey?: string;
  /** A server found down by this call. */
  downServer?: string;
  /** A tool found unusable by this client (it needs a capability the client lacks). */
  unusableTool?: string;
}

/**
 * Run one tool call the model asked for and describe the outcome so the model can act on it: arguments
 * that are not JSON or do not fit the schema are never sent (the model gets the problems and the
 * schema); a tool error goes back as an error; a server that is down is reported so, once; a tool that
 * broke its own output schema is reported as a fault of the tool, not of the arguments.
 */
export async function runToolCall(call: ToolCall, options: RunCallOptions): Promise<CallOutcomeReport> {
  const started = performance.now();
  const entry = options.host.describeTool(call.name);
  const finish = (
    outcome: CallOutcome,
    text: string,
    error?: RecordedError,
    result?: ToolResult,
  ): Omit<CallOutcomeReport, "sent"> => {
    const record: CallRecord = {
      id: call.id,
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      name: call.name,
      ...(entry ? { server: entry.server, tool: entry.tool } : {}),
      ok: outcome === "ok",
      ms: elapsedMs(started),
      ...(error ? { error } : {}),
    };
    const { text: content, ...shaping } = shapeToolResult({
      tool: call.name,
      outcome,
      text,
      ...(result ? { content: result.content } : {}),
      ...(result?.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
      ...(options.budgetTokens !== undefined ? { budgetTokens: options.budgetTokens } : {}),
      ...(options.budgetChars !== undefined ? { budgetChars: options.budgetChars } : {}),
      ...(options.counter ? { counter: options.counter } : {}),
      ...(options.more !== undefined ? { more: options.more } : {}),
      ...(options.anchor !== undefined ? { anchor: options.anchor } : {}),
    });
    return { content, record, shaping, ...(result ? { result } : {}) };
  };
  const refuse = (outcome: CallOutcome, text: string, code: string): CallOutcomeReport => ({
    ...finish(outcome, text, { code, message: text }),
    sent: false,
  });

  if (!entry) {
    const offered = options.offered.length ? ` Available tools: ${options.offered.join(", ")}.` : "";
    return refuse("failed", `There is no tool named ${call.name}.${offered}`, "TOOL_NOT_FOUND");
  }
  let args: unknown;
  try {
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return refuse(
      "invalid_arguments",
      `The arguments are not valid JSON (${messageOf(error)}). Send a JSON object matching this schema: ${JSON.stringify(entry.inputSchema)}`,
      "INVALID_ARGUMENTS",
    );
  }
  const key = callKey(call.name, args);
  for (const guard of options.guards) {
    const refusal = guard(
      { name: call.name, server: entry.server, key, offered: options.offered },
      options.state,
    );
    if (refusal) return refuse("refused", refusal, "REFUSED");
  }
  try {
    const result = await options.host.callTool(call.name, args, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      callId: call.id,
      step: options.state.step,
      ...(options.identity ? { identity: options.identity } : {}),
    });
    const report = result.isError
      ? finish(
          "error",
          result.text,
          { code: "TOOL_ERROR", message: result.text.slice(0, DEFAULT_RECORDED_ERROR_CHARS) },
          result,
        )
      : finish("ok", result.text, undefined, result);
    return { ...report, sent: true, sentKey: key };
  } catch (error) {
    if (!isSwitchyardError(error)) throw error;
    const code = error.code;
    const recorded = { code, message: error.message };
    const sent = (outcome: CallOutcome, text: string): CallOutcomeReport => ({
      ...finish(outcome, text, recorded),
      sent: true,
    });
    switch (code) {
      case "CANCELLED":
        // The run is being cancelled: the tool message keeps the history valid to continue from.
        return sent(
          "failed",
          `not finished: the run was cancelled while ${call.name} ran (${error.message}).`,
        );
      case "INVALID_ARGUMENTS":
        return sent("invalid_arguments", `${error.message}. Fix the arguments and call again.`);
      case "INVALID_RESULT":
        return {
          ...sent(
            "error",
            `${call.name} misbehaved: its answer did not match the output schema it declares (${error.message}). ` +
              "This is a fault of the tool, not of your arguments: do not call it again with other arguments; " +
              "use another tool or answer with what you have.",
          ),
          sentKey: key,
        };
      case "CAPABILITY_MISSING": {
        const capability = error.capability ? `"${error.capability}"` : "a capability";
        return {
          ...sent(
            "failed",
            `${call.name} needs ${capability}, which this client cannot provide (${error.message}). ` +
              `Do not call ${call.name} again in this run; use another tool or answer with what you have.`,
          ),
          unusableTool: call.name,
        };
      }
      case "SERVER_UNAVAILABLE":
      case "CIRCUIT_OPEN":
      case "AUTH_REQUIRED":
        return {
          ...sent(
            "unavailable",
            `${call.name} is unavailable: ${error.message}.${code === "AUTH_REQUIRED" ? " The server refused this client: it needs authorization that this run does not have." : ""} Do not call tools of server ${entry.server} again in this run.`,
          ),
          downServer: entry.server,
        };
      case "POLICY_DENIED":
        return sent(
          "refused",
          `${call.name} was refused: ${error.message}. This run may not make this call: do not call it again with the same arguments; use another tool or answer with what you have.`,
        );
      case "TIMEOUT":
        return { ...sent("timeout", error.message), sentKey: key };
      default:
        return { ...sent("failed", error.message), sentKey: key };
    }
  }
}
