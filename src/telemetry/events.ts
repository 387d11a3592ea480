import { randomUUID } from "node:crypto";
import type { Finding } from "./findings.js";

/** Why a failed call failed, as records and events carry it. */
export interface RecordedError {
  /**
   * A `SwitchyardError` code, `TOOL_ERROR` (the tool answered `isError`), or a run's own refusal
   * (`REFUSED` by an agent's guard; `SKIPPED`, `UNRESOLVED_REFERENCE` in a plan).
   */
  code: string;
  message: string;
}

/** Tokens a model request used, when the model's server reports them. */
export interface TokenUsage {
  input: number;
  output: number;
}

/**
 * One request a server was asked (or that was refused on the way), as runs record it and events report
 * it: a tool call, or — with `method` — a resource read or subscription, a prompt, a completion.
 */
export interface CallRecord {
  /** The call's id: the model's `tool_call_id` in an agent run, the step id in a plan, else generated. */
  id: string;
  /** The run the call belongs to; absent for a plain `callTool`. */
  runId?: string;
  /** The catalog name called (a tool's, a prompt's), or a resource's URI. */
  name: string;
  /** The MCP method of a request that is not a tool call (`resources/read`, `prompts/get`, …). */
  method?: string;
  server?: string;
  /** The server's own name of what was asked: the tool's or the prompt's, or the URI. */
  tool?: string;
  /** The fallback server that served the call while `server` was down (its `fallback`); absent: `server` did. */
  servedBy?: string;
  /** The id of the task the server ran the call as (the tasks extension), when it made one. */
  taskId?: string;
  ok: boolean;
  /** Milliseconds, to a hundredth. */
  ms: number;
  /** Why it was not ok. */
  error?: RecordedError;
  /** The result's text as the tool answered it (before any shaping), when the call got an answer. */
  result?: string;
  /** The result was served from the server's result cache (`cache`): nothing was sent to the server. */
  cached?: true;
}

/** One model turn of an agent run. */
export interface StepRecord {
  step: number;
  /** Tools offered to the model. */
  offered: number;
  /** Tool calls the model asked for. */
  toolCalls: number;
  /** The model's time for this turn. */
  modelMs: number;
  /** Tokens of the request (messages and tools) as the agent estimated them before sending it. */
  promptEstimate?: number;
  /** Messages of the conversation summarized (compacted) before this turn's request. */
  compacted?: number;
  /** Tokens the model's server reported for this turn (`input` is what to compare `promptEstimate` with). */
  tokens?: TokenUsage;
}

/** What kind of run a record describes. */
export type RunKind = "agent" | "plan";

/** One agent or plan run, start to end: the one model of a run that logs, traces and stores share. */
export interface RunRecord {
  id: string;
  kind: RunKind;
  /** ISO 8601. */
  startedAt: string;
  ms: number;
  /** How it ended: an agent's stop reason (`answer`, `max_steps`, `error`, `cancelled`), or `ok`/`failed` for a plan. */
  outcome: string;
  /** Model turns (agent runs). */
  steps: StepRecord[];
  calls: CallRecord[];
  /** Summed over the steps that reported usage. */
  tokens?: TokenUsage;
  error?: RecordedError;
}

/**
 * Everything Switchyard reports as it works, in order: one union for agent runs, plan runs and plain
 * calls. Every event of a run carries its `runId`; call events carry the call's `id`.
 */
export type SwitchyardEvent =
  | { type: "run_started"; runId: string; kind: RunKind; time: string; input?: string }
  | {
      type: "step_started";
      runId: string;
      step: number;
      /** How many tools the model is offered at this step. */
      tools: number;
      /**
       * Their names, in the order offered; a name with the router's score and reason (`ranked`,
       * `pinned`, `used`, `all`, …) when a router picked it.
       */
      offered?: ReadonlyArray<string | { name: string; score?: number; reason?: string }>;
    }
  | {
      type: "model_answered";
      runId: string;
      step: number;
      ms: number;
      toolCalls: number;
      text: string | null;
      tokens?: TokenUsage;
    }
  | {
      type: "call_started";
      runId?: string;
      step?: number;
      id: string;
      name: string;
      /** As in {@link CallRecord}: the method of a request that is not a tool call. */
      method?: string;
      server?: string;
      tool?: string;
      arguments: string;
    }
  | {
      type: "call_progress";
      runId?: string;
      id: string;
      name: string;
      progress: number;
      total?: number;
      message?: string;
    }
  | {
      /**
       * The server runs the call as a task (or a task of an earlier attempt was picked up for it): its
       * id, as soon as the server gave it, so that a run cut short keeps it.
       */
      type: "call_task";
      runId?: string;
      id: string;
      name: string;
      server?: string;
      tool?: string;
      /** The fallback server the task runs on, when the call's own server was down. */
      servedBy?: string;
      taskId: string;
    }
  | ({ type: "call_finished"; step?: number } & CallRecord)
  /** What an agent gave the model for a call: its result shaped to the budget, or what went wrong. */
  | { type: "call_shaped"; runId: string; step: number; id: string; text: string }
  | { type: "answer"; runId: string; step: number; text: string }
  | { type: "run_finished"; runId: string; record: RunRecord }
  /**
   * A server's tools were scanned and what was found changed (trust/): every current finding of that
   * server, and the server tool names quarantined for them.
   */
  | { type: "findings"; server: string; time: string; findings: Finding[]; quarantined: string[] }
  /**
   * An audit row could not be written (`audit.onWriteError` says what its request did: `fail`ed, or
   * went on, `continue`); `lost`: the rows lost since the last one written, this one included.
   */
  | {
      type: "audit_unwritten";
      time: string;
      kind: string;
      name?: string;
      callId?: string;
      runId?: string;
      lost: number;
      error: string;
      onWriteError: "fail" | "continue";
    };

/** Receives every event; must not throw (an observer that throws is ignored for that event). */
export interface Observer {
  onEvent(event: SwitchyardEvent): void;
}

/** The observer when none is given. */
export const noopObserver: Observer = { onEvent() {} };

/** Fan one event out to several observers; one that throws does not stop the others. */
export class Observers implements Observer {
  readonly #observers = new Set<Observer>();

  /** Add an observer; returns the function that removes it. */
  add(observer: Observer): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  get size(): number {
    return this.#observers.size;
  }

  onEvent(event: SwitchyardEvent): void {
    for (const observer of this.#observers) {
      try {
        observer.onEvent(event);
      } catch {
        // An observer's failure is its own; the work goes on.
      }
    }
  }
}

/** This process's part of every id: random, so ids from several processes (replicas, runs) do not meet. */
const ID_ORIGIN = randomUUID().replaceAll("-", "").slice(0, 10);
let idCount = 0;

/** A new run or call id, unique across processes: `call_<origin><count>`; cheap enough for every call. */
export function newId(prefix: "run" | "call"): string {
  idCount += 1;
  return `${prefix}_${ID_ORIGIN}${idCount.toString(36)}`;
}

/** Milliseconds since `started` (a `performance.now()` reading), to a hundredth. */
export function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/** An error as records carry it. */
export function recordedError(error: unknown): RecordedError {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return { code: error.code, message: error instanceof Error ? error.message : String(error) };
  }
  return { code: "ERROR", message: error instanceof Error ? error.message : String(error) };
}
