// What both adapters share: one call through the Switchyard's pipeline, reported as the agent reports it.
import type { AgentHost } from "../agent/agent.js";
import type { CallOutcomeReport, ToolHost } from "../agent/run-call.js";
import { runToolCall } from "../agent/run-call.js";
import type { AnchorFormat } from "../context/shape-result.js";
import { didYouMean, type ErrorCode, SwitchyardError } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";
import { newId } from "../telemetry/events.js";

/**
 * A call that failed, as an adapter reports it to its framework: `code` is the run records' code (a
 * `SwitchyardError` code, or `TOOL_ERROR` when the tool answered with `isError`), and the message is
 * exactly the text the model is shown (the agent's words for that failure). `toString()` is the
 * message alone: the AI SDK hands the model `String(error)`.
 */
export class ToolCallError extends Error {
  readonly code: ErrorCode | "TOOL_ERROR";
  /** The catalog name called. */
  readonly tool: string;
  /** The server of the tool, when the catalog knew it. */
  readonly server?: string;

  constructor(outcome: CallOutcomeReport) {
    super(outcome.content);
    this.code = (outcome.record.error?.code ?? "SERVER_ERROR") as ErrorCode | "TOOL_ERROR";
    this.tool = outcome.record.name;
    if (outcome.record.server !== undefined) this.server = outcome.record.server;
  }

  override toString(): string {
    return this.message;
  }
}

/** Options both adapters take for every call they make. */
export interface AdapterCallOptions {
  /** Who the calls are for, as the policy sees it (listing and calls); default: the Switchyard's identity. */
  identity?: Identity;
  /** The run the calls belong to, for records, events and logs; default: each call its own. */
  runId?: string;
  /** Tokens one result may take before it is shaped (`runToolCall`'s budget); default: the agent's. */
  budgetTokens?: number;
  /** The result's anchor line (`false`: none); default: the agent's. */
  anchor?: AnchorFormat | false;
}

/** What an adapter needs of a Switchyard: its catalog (as the agent lists it) and its call pipeline. */
export interface AdapterHost extends ToolHost, Pick<AgentHost, "tools"> {}

/** One call of a framework's tool: through `host.callTool`, as the agent makes it. */
export interface AdapterCall {
  name: string;
  args: unknown;
  /** The framework's id of the call (the model's `tool_call_id`). */
  callId?: string;
  signal?: AbortSignal;
}

const EMPTY_STATE = {
  step: 0,
  messages: [],
  calls: [],
  callCounts: new Map<string, number>(),
  unavailableServers: new Set<string>(),
} as const;

/**
 * Run one call through the pipeline (validation, policy, guards, records) and describe its outcome as
 * the agent does for the model: the shaped result text, or the text of its error (bad arguments with
 * the schema, a refusal, a server found down), with the call's record.
 */
export function callThroughPipeline(
  host: ToolHost,
  call: AdapterCall,
  options: AdapterCallOptions,
): Promise<CallOutcomeReport> {
  const callId = call.callId ?? newId("call");
  return runToolCall(
    { id: callId, name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    {
      host,
      guards: [],
      state: EMPTY_STATE,
      offered: [],
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      ...(options.identity ? { identity: options.identity } : {}),
      ...(options.budgetTokens !== undefined ? { budgetTokens: options.budgetTokens } : {}),
      ...(options.anchor !== undefined ? { anchor: options.anchor } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    },
  );
}

/**
 * The tools a framework is given: what the identity may call, less those this client cannot call, and
 * only `names` when given.
 * @throws SwitchyardError `TOOL_NOT_FOUND` for a name in `names` that is not among them (with the closest).
 */
export function adapterTools(host: AdapterHost, options: AdapterCallOptions & { names?: Iterable<string> }) {
  const tools = host
    .tools(options.identity ? { identity: options.identity } : {})
    .filter((tool) => tool.unsupported === undefined && !tool.appOnly);
  if (options.names === undefined) return tools;
  const only = new Set(options.names);
  const known = new Set(tools.map((tool) => tool.name));
  const unknown = [...only].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    const hint = didYouMean(unknown[0]!, known);
    throw new SwitchyardError(
      "TOOL_NOT_FOUND",
      `names: ${unknown.join(", ")} ${unknown.length === 1 ? "is" : "are"} not among the tools this identity may call${hint ? ` (${hint})` : ""}; give catalog names as yard.tools() lists them`,
      { tool: unknown[0]! },
    );
  }
  return tools.filter((tool) => only.has(tool.name));
}
