// How events become writes: each recorded event (and a chat's saved turn) as statements of sql.ts and
// their values, every text redacted and cut as the store's policy says.
import { hostname } from "node:os";
import type { SwitchyardEvent } from "../telemetry/events.js";
import type { Write } from "./sql.js";
import type { SessionHandle } from "./store.js";

/** What every recorded text goes through before it is written. */
export interface TextPolicy {
  /** Characters kept of each text (question, arguments, model text, answer, error message). */
  textChars: number;
  /** Replaces secrets in a text (redaction); default: none. */
  redact?: (text: string) => string;
}

/** This machine's name, as runs record it (`runs.host`): a run of this host can be told running or gone. */
export const HOST = hostname();
/** Orders a run's calls as they were reported, within one millisecond too (`calls.at`). */
let callOrder = 0;
const callAt = (now: string) => `${now} ${(++callOrder).toString().padStart(10, "0")}`;

/** A text as it is recorded: redacted, then cut to `textChars` (with `…`). */
function recorded(text: string | null | undefined, policy: TextPolicy): string | null {
  if (text === undefined || text === null) return null;
  const clean = policy.redact ? policy.redact(text) : text;
  return clean.length > policy.textChars ? `${clean.slice(0, policy.textChars)}…` : clean;
}

/** A call's run: its own; a plain call (no run) is recorded as a run of its own, of kind `call`. */
function callRun(
  event: { runId?: string; id: string; name: string },
  now: string,
): { runId: string; writes: Write[] } {
  const runId = event.runId ?? event.id;
  const writes: Write[] =
    event.runId === undefined ? [["runStarted", [runId, "call", now, event.name, process.pid, HOST]]] : [];
  return { runId, writes };
}

/** The writes that record one event (none for events not recorded: progress). */
export function eventWrites(event: SwitchyardEvent, policy: TextPolicy, now: string): Write[] {
  switch (event.type) {
    case "run_started":
      return [
        [
          "runStarted",
          [event.runId, event.kind, event.time, recorded(event.input, policy), process.pid, HOST],
        ],
      ];
    case "step_started": {
      const offered = (event as { offered?: unknown }).offered;
      return [
        [
          "stepStarted",
          [event.runId, event.step, now, event.tools, offered === undefined ? null : JSON.stringify(offered)],
        ],
      ];
    }
    case "model_answered":
      return [
        [
          "modelAnswered",
          [
            event.ms,
            event.toolCalls,
            event.tokens?.input ?? null,
            event.tokens?.output ?? null,
            recorded(event.text, policy),
            event.runId,
            event.step,
          ],
        ],
      ];
    case "call_started": {
      const { runId, writes } = callRun(event, now);
      writes.push([
        "callStarted",
        [
          runId,
          event.id,
          callAt(now),
          event.step ?? null,
          event.name,
          event.server ?? null,
          event.tool ?? null,
          recorded(event.arguments, policy),
          now,
          event.method ?? null,
        ],
      ]);
      return writes;
    }
    case "call_finished": {
      const { runId, writes } = callRun(event, now);
      writes.push([
        "callFinished",
        [
          runId,
          event.id,
          callAt(now),
          event.step ?? null,
          event.name,
          event.server ?? null,
          event.tool ?? null,
          event.ok ? 1 : 0,
          event.ms,
          event.error?.code ?? null,
          recorded(event.error?.message, policy),
          recorded(event.result, policy),
          event.method ?? null,
        ],
      ]);
      writes.push(...servedWrites(event, runId));
      if (event.runId === undefined) {
        writes.push([
          "runFinished",
          [
            now,
            event.ok ? "ok" : (event.error?.code ?? "failed"),
            event.ms,
            null,
            null,
            event.error?.code ?? null,
            recorded(event.error?.message, policy),
            runId,
          ],
        ]);
      }
      return writes;
    }
    case "call_task": {
      // The call's row exists (its call_started came first): the id is kept while the task runs.
      return servedWrites(event, event.runId ?? event.id);
    }
    case "call_shaped":
      return [["callShaped", [recorded(event.text, policy), event.runId, event.id]]];
    case "answer":
      return [["answer", [recorded(event.text, policy), event.runId]]];
    case "run_finished": {
      const { record } = event;
      return [
        [
          "runFinished",
          [
            now,
            record.outcome,
            record.ms,
            record.tokens?.input ?? null,
            record.tokens?.output ?? null,
            record.error?.code ?? null,
            recorded(record.error?.message, policy),
            event.runId,
          ],
        ],
      ];
    }
    default:
      return [];
  }
}

/** The writes that save a session after a turn. */
export function sessionWrites(
  id: string,
  state: { messages: readonly unknown[]; handles?: readonly SessionHandle[] },
  runId: string | undefined,
  now: string,
): Write[] {
  const writes: Write[] = [
    [
      "saveSession",
      [
        id,
        now,
        now,
        sessionTitle(state.messages),
        JSON.stringify({ messages: state.messages, handles: state.handles ?? [] }),
      ],
    ],
  ];
  if (runId !== undefined) writes.push(["sessionOfRun", [id, runId]]);
  return writes;
}

/** Characters of a session's title (its first question). */
const TITLE_CHARS = 80;

function sessionTitle(messages: readonly unknown[]): string {
  for (const message of messages) {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (role === "user" && typeof content === "string") {
      const line = content.trim().split("\n")[0] ?? "";
      return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS)}…` : line;
    }
  }
  return "";
}

/** Which server served a call (a fallback) and the task it ran as: each kept when known. */
function servedWrites(event: { id: string; servedBy?: string; taskId?: string }, runId: string): Write[] {
  const writes: Write[] = [];
  if (event.servedBy !== undefined) writes.push(["callServedBy", [event.servedBy, runId, event.id]]);
  if (event.taskId !== undefined) writes.push(["callTaskId", [event.taskId, runId, event.id]]);
  return writes;
}
