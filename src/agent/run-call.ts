import type { ToolResult } from "../calls/normalize.js";
import type { CatalogEntry } from "../catalog/catalog.js";
import { type AnchorFormat, type CallOutcome, shapeResult } from "../context/shape-result.js";
import { isSwitchyardError, messageOf } from "../errors.js";
import type { ToolCall } from "../models/model.js";
import { type CallRecord, elapsedMs } from "./events.js";
import { type CallGuard, callKey, type RunState } from "./guards.js";

/** What the agent needs of a Switchyard: look tools up and call them. */
export interface ToolHost {
  describeTool(name: string): CatalogEntry | undefined;
  callTool(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<ToolResult>;
}

export interface RunCallOptions {
  host: ToolHost;
  guards: readonly CallGuard[];
  state: RunState;
  /** Names the model was offered this step, for "did you mean" help. */
  offered: readonly string[];
  anchor?: AnchorFormat | false;
  budgetChars?: number;
  signal?: AbortSignal;
}

/** One tool call's outcome: the tool message for the model and the record for the run. */
export interface CallOutcomeReport {
  content: string;
  record: CallRecord;
  /** The (tool, arguments) key when the call reached the server. */
  sentKey?: string;
  /** A server found down by this call. */
  downServer?: string;
}

/**
 * Run one tool call the model asked for and describe the outcome so the model can act on it: arguments
 * that are not JSON or do not fit the schema are never sent (the model gets the problems and the
 * schema); a tool error goes back as an error; a server that is down is reported so, once.
 */
export async function runToolCall(call: ToolCall, options: RunCallOptions): Promise<CallOutcomeReport> {
  const started = performance.now();
  const entry = options.host.describeTool(call.name);
  const finish = (outcome: CallOutcome, text: string, extra: Partial<CallRecord> = {}): CallOutcomeReport => {
    const record: CallRecord = {
      id: call.id,
      name: call.name,
      ok: outcome === "ok",
      ms: elapsedMs(started),
      ...(entry ? { server: entry.server, tool: entry.tool } : {}),
      ...extra,
    };
    const shaped = shapeResult({
      tool: call.name,
      outcome,
      text,
      ...(options.budgetChars !== undefined ? { budgetChars: options.budgetChars } : {}),
      ...(options.anchor !== undefined ? { anchor: options.anchor } : {}),
    });
    return { content: shaped, record };
  };

  if (!entry) {
    const offered = options.offered.length ? ` Available tools: ${options.offered.join(", ")}.` : "";
    return finish("failed", `There is no tool named ${call.name}.${offered}`, { error: "TOOL_NOT_FOUND" });
  }
  let args: unknown;
  try {
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return finish(
      "invalid_arguments",
      `The arguments are not valid JSON (${messageOf(error)}). Send a JSON object matching this schema: ${JSON.stringify(entry.inputSchema)}`,
      { error: "INVALID_ARGUMENTS" },
    );
  }
  const key = callKey(call.name, args);
  for (const guard of options.guards) {
    const refusal = guard({ name: call.name, server: entry.server, key }, options.state);
    if (refusal) return finish("refused", refusal, { error: "REFUSED" });
  }
  try {
    const result = await options.host.callTool(
      call.name,
      args,
      options.signal ? { signal: options.signal } : {},
    );
    const report = finish(
      result.isError ? "error" : "ok",
      result.text,
      result.isError ? { error: "TOOL_ERROR" } : {},
    );
    return { ...report, sentKey: key };
  } catch (error) {
    if (!isSwitchyardError(error)) throw error;
    const code = error.code;
    if (code === "INVALID_ARGUMENTS") {
      return finish("invalid_arguments", `${error.message}. Fix the arguments and call again.`, {
        error: code,
      });
    }
    if (code === "SERVER_UNAVAILABLE" || code === "CIRCUIT_OPEN") {
      return {
        ...finish(
          "unavailable",
          `${call.name} is unavailable: ${error.message}. Do not call tools of server ${entry.server} again in this run.`,
          { error: code },
        ),
        downServer: entry.server,
      };
    }
    if (code === "TIMEOUT") return { ...finish("timeout", error.message, { error: code }), sentKey: key };
    if (code === "CANCELLED") throw error;
    return { ...finish("failed", error.message, { error: code }), sentKey: key };
  }
}
