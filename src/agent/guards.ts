import {
  DEFAULT_MAX_CALLS_PER_TOOL,
  DEFAULT_MAX_IDENTICAL_CALLS,
  DEFAULT_MAX_STEPS,
  DEFAULT_OFFERED_TOOLS_ONLY,
  DEFAULT_SKIP_SERVER_AFTER,
} from "../config/defaults.js";
import type { ChatMessage } from "../models/model.js";
import type { CallRecord, StopReason } from "./events.js";

/** Defaults of the agent's guards (they live in config/defaults.ts). */
export {
  DEFAULT_MAX_CALLS_PER_TOOL,
  DEFAULT_MAX_IDENTICAL_CALLS,
  DEFAULT_MAX_STEPS,
  DEFAULT_OFFERED_TOOLS_ONLY,
  DEFAULT_SKIP_SERVER_AFTER,
};

/** What guards see of a run. */
export interface RunState {
  /** Model turns taken so far. */
  step: number;
  messages: readonly ChatMessage[];
  calls: readonly CallRecord[];
  /** How many times each (tool, arguments) pair was sent to a server. */
  callCounts: ReadonlyMap<string, number>;
  /** Servers found down in this run; their tools are refused for the rest of it. */
  unavailableServers: ReadonlySet<string>;
  /** Why each server in `unavailableServers` is out (e.g. "timed out after 400 ms"), when known. */
  serverOutReasons?: ReadonlyMap<string, string>;
  /**
   * Calls of each catalog tool in this run that passed the guards, whatever their arguments (a call
   * that then never reached its server is taken off again). Local tools are not counted.
   */
  toolCalls?: ReadonlyMap<string, number>;
  /** Tools found unusable in this run (they need a capability this client lacks); refused for the rest of it. */
  unavailableTools?: ReadonlySet<string>;
  /**
   * The run's own reminders among `messages` (the fallback nudge): user messages the user did not write,
   * so the tools are not chosen for them.
   */
  reminders?: ReadonlySet<ChatMessage>;
}

/** A decision to end the run before the next model turn. */
export interface StopDecision {
  reason: StopReason;
  message: string;
}

/** Checked before each model turn; a decision ends the run. */
export type StopCondition = (state: RunState) => StopDecision | undefined;

/** A tool call as guards see it, before it is sent. */
export interface PendingCall {
  name: string;
  server: string;
  /** The canonical key of (tool, arguments). */
  key: string;
  /** The catalog names offered to the model at the step that asked for this call (all of them). */
  offered?: readonly string[];
}

/** Checked before each tool call; a string refuses the call and is what the model is told. */
export type CallGuard = (call: PendingCall, state: RunState) => string | undefined;

/** End the run after `maxSteps` model turns that did not produce an answer. */
export function stepLimit(maxSteps: number): StopCondition {
  return (state) =>
    state.step >= maxSteps
      ? { reason: "max_steps", message: `Stopped after ${maxSteps} steps without a final answer (maxSteps).` }
      : undefined;
}

/** Refuse a tool call once the same tool with the same arguments was sent `max` times in this run. */
export function identicalCallLimit(max: number): CallGuard {
  return (call, state) =>
    (state.callCounts.get(call.key) ?? 0) >= max
      ? `refused: ${call.name} was already called ${max} times with these same arguments in this run; the result will not change. Use the earlier results, change the arguments, or answer.`
      : undefined;
}

/**
 * Refuse a call of a tool once `max` calls of it passed in this run, whatever their arguments (a model
 * probing with ever new arguments, 100 m, 200 m, 300 m …), telling the model to answer with what it has.
 */
export function toolCallLimit(max: number): CallGuard {
  return (call, state) =>
    (state.toolCalls?.get(call.name) ?? 0) >= max
      ? `refused: ${call.name} was already called ${max} times in this run (with any arguments; maxCallsPerTool). Do not call it again: use the results you have and answer with what you have, or use another tool.`
      : undefined;
}

/**
 * Refuse a call to a tool that was not offered to the model at the step that asked for it (a name it
 * remembered or guessed: it was not shown the tool's description or schema), and tell it which tools it
 * was offered. Exactly the names offered that step count: tools used earlier, pinned tools and a small
 * catalog offered whole are among them. A call without the offered names (`offered` unset) passes.
 */
export function offeredToolsOnly(): CallGuard {
  return (call) => {
    if (!call.offered || call.offered.includes(call.name)) return undefined;
    const offered = call.offered.length
      ? `The tools offered at this step are: ${call.offered.join(", ")}.`
      : "No tools were offered at this step.";
    return `refused: ${call.name} was not offered at this step, so it was not run (you were not shown its description or schema). ${offered} Call one of them, or answer with what you have.`;
  };
}

/**
 * Refuse tools of a server that was found down earlier in this run (or whose call timed out, with
 * `skipServerAfter: "timeout"`: the reason says which), and tools found unusable (they
 * need something this client cannot provide).
 */
export function skipUnavailableServers(): CallGuard {
  return (call, state) => {
    if (state.unavailableServers.has(call.server)) {
      const why = state.serverOutReasons?.get(call.server);
      return why
        ? `refused: ${call.name} was not called: server ${call.server} ${why} earlier in this run; it is not called again in this run. Use another server's tool or answer with what you have.`
        : `refused: ${call.name} is unavailable in this run (server ${call.server} is down). Do not call it again; use another tool or answer with what you have.`;
    }
    if (state.unavailableTools?.has(call.name))
      return `refused: ${call.name} needs something this client cannot provide, as its earlier call showed. Do not call it again; use another tool or answer with what you have.`;
    return undefined;
  };
}

/** The canonical key of a call: tool name plus arguments with sorted keys. */
export function callKey(name: string, args: unknown): string {
  return `${name} ${canonicalJson(args)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
