// What both stores share: the schema and its migrations, every statement (written once, with `$n`
// placeholders; SQLite gets `?`), how events become writes, and how rows become records.
import { hostname } from "node:os";
import { AUDIT_GENESIS_HASH, type AuditRow } from "../telemetry/audit.js";
import type { RecordedError, SwitchyardEvent, TokenUsage } from "../telemetry/events.js";
import type {
  GatewaySessionRecord,
  RunSummary,
  SessionHandle,
  SessionSummary,
  StoredAuditRecord,
  StoredCall,
  StoredRun,
  StoredSession,
  StoredStep,
} from "./store.js";

/**
 * The schema, one list of statements per version; a store runs those above its recorded version, in
 * one transaction, under a lock. Types both databases read alike (TEXT, INTEGER, DOUBLE PRECISION).
 * Never edit a released version: add one.
 */
export const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE runs (
      id TEXT PRIMARY KEY, kind TEXT NOT NULL, started_at TEXT NOT NULL, input TEXT,
      pid INTEGER, host TEXT, session_id TEXT, finished_at TEXT, outcome TEXT, ms DOUBLE PRECISION,
      tokens_in INTEGER, tokens_out INTEGER, error_code TEXT, error_message TEXT, answer TEXT)`,
    "CREATE INDEX runs_by_start ON runs (started_at)",
    `CREATE TABLE steps (
      run_id TEXT NOT NULL, step INTEGER NOT NULL, started_at TEXT NOT NULL, tools INTEGER NOT NULL,
      offered TEXT, model_ms DOUBLE PRECISION, tool_calls INTEGER, tokens_in INTEGER, tokens_out INTEGER,
      text TEXT, PRIMARY KEY (run_id, step))`,
    `CREATE TABLE calls (
      run_id TEXT NOT NULL, id TEXT NOT NULL, at TEXT NOT NULL, step INTEGER, name TEXT NOT NULL,
      server TEXT, tool TEXT, arguments TEXT, started_at TEXT, ok INTEGER, ms DOUBLE PRECISION,
      error_code TEXT, error_message TEXT, PRIMARY KEY (run_id, id))`,
    `CREATE TABLE sessions (
      id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, title TEXT NOT NULL,
      turns INTEGER NOT NULL, state TEXT NOT NULL)`,
    `CREATE TABLE audit (
      seq INTEGER PRIMARY KEY, time TEXT NOT NULL, kind TEXT NOT NULL, run_id TEXT, entry TEXT NOT NULL,
      prev_hash TEXT NOT NULL, hash TEXT NOT NULL)`,
    "CREATE INDEX audit_by_run ON audit (run_id)",
    "CREATE TABLE audit_head (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL)",
    `INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '${AUDIT_GENESIS_HASH}')`,
  ],
  [
    // The gateway's 2025-11-25 HTTP sessions, so that any replica can take up a session another began.
    `CREATE TABLE gateway_sessions (
      id TEXT PRIMARY KEY, user_id TEXT NOT NULL, created_at TEXT NOT NULL, used_at TEXT NOT NULL,
      initialize TEXT NOT NULL)`,
  ],
  [
    // What a call answered (before shaping) and what the model was given for it, both as recorded texts.
    "ALTER TABLE calls ADD COLUMN result TEXT",
    "ALTER TABLE calls ADD COLUMN shaped TEXT",
  ],
  [
    // What a request was, when it was not a tool call (resources/read, prompts/get, …): every kind of
    // request is recorded, and the record says which.
    "ALTER TABLE calls ADD COLUMN method TEXT",
  ],
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
/** The table that holds the schema's version (one row). */
export const VERSION_TABLE = "switchyard_schema";

/** Every statement, by name. Each `$n` appears once, in order (so SQLite's `?` binds the same values). */
export const SQL = {
  runStarted:
    "INSERT INTO runs (id, kind, started_at, input, pid, host) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
  stepStarted:
    "INSERT INTO steps (run_id, step, started_at, tools, offered) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, step) DO UPDATE SET tools = excluded.tools, offered = excluded.offered",
  modelAnswered:
    "UPDATE steps SET model_ms = $1, tool_calls = $2, tokens_in = $3, tokens_out = $4, text = $5 WHERE run_id = $6 AND step = $7",
  callStarted:
    "INSERT INTO calls (run_id, id, at, step, name, server, tool, arguments, started_at, method) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (run_id, id) DO NOTHING",
  callFinished:
    "INSERT INTO calls (run_id, id, at, step, name, server, tool, ok, ms, error_code, error_message, result, method) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (run_id, id) DO UPDATE SET ok = excluded.ok, ms = excluded.ms, error_code = excluded.error_code, error_message = excluded.error_message, result = COALESCE(excluded.result, calls.result)",
  callShaped: "UPDATE calls SET shaped = $1 WHERE run_id = $2 AND id = $3",
  answer: "UPDATE runs SET answer = $1 WHERE id = $2",
  runFinished:
    "UPDATE runs SET finished_at = $1, outcome = $2, ms = $3, tokens_in = $4, tokens_out = $5, error_code = $6, error_message = $7 WHERE id = $8",
  runs: `SELECT r.*, CAST((SELECT count(*) FROM steps s WHERE s.run_id = r.id) AS INTEGER) AS step_count,
    CAST((SELECT count(*) FROM calls c WHERE c.run_id = r.id) AS INTEGER) AS call_count
    FROM runs r ORDER BY r.started_at DESC, r.id DESC LIMIT $1`,
  run: `SELECT r.*, CAST((SELECT count(*) FROM steps s WHERE s.run_id = r.id) AS INTEGER) AS step_count,
    CAST((SELECT count(*) FROM calls c WHERE c.run_id = r.id) AS INTEGER) AS call_count
    FROM runs r WHERE r.id = $1`,
  steps: "SELECT * FROM steps WHERE run_id = $1 ORDER BY step",
  calls: "SELECT * FROM calls WHERE run_id = $1 ORDER BY at, id",
  saveSession:
    "INSERT INTO sessions (id, created_at, updated_at, title, turns, state) VALUES ($1, $2, $3, $4, 1, $5) ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, turns = sessions.turns + 1, state = excluded.state",
  sessionOfRun: "UPDATE runs SET session_id = $1 WHERE id = $2",
  session: "SELECT * FROM sessions WHERE id = $1",
  sessions:
    "SELECT id, created_at, updated_at, title, turns FROM sessions ORDER BY updated_at DESC, id DESC LIMIT $1",
  auditHead: "SELECT seq, hash FROM audit_head WHERE id = 1",
  auditInsert:
    "INSERT INTO audit (seq, time, kind, run_id, entry, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7)",
  auditSetHead: "UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1",
  auditAfter: "SELECT * FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2",
  auditLast: "SELECT * FROM (SELECT * FROM audit ORDER BY seq DESC LIMIT $1) AS last_rows ORDER BY seq",
  gatewaySessionSave:
    "INSERT INTO gateway_sessions (id, user_id, created_at, used_at, initialize) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO UPDATE SET used_at = excluded.used_at",
  gatewaySession: "SELECT * FROM gateway_sessions WHERE id = $1",
  gatewaySessionTouch: "UPDATE gateway_sessions SET used_at = $1 WHERE id = $2",
  gatewaySessionDrop: "DELETE FROM gateway_sessions WHERE id = $1",
  gatewaySessionsPrune: "DELETE FROM gateway_sessions WHERE used_at < $1",
} as const;

export type StatementName = keyof typeof SQL;

/** One write: a statement and its values. */
export type Write = readonly [StatementName, readonly unknown[]];

/** What every recorded text goes through before it is written. */
export interface TextPolicy {
  /** Characters kept of each text (question, arguments, model text, answer, error message). */
  textChars: number;
  /** Replaces secrets in a text (redaction); default: none. */
  redact?: (text: string) => string;
}

const HOST = hostname();
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

// --- rows → records ------------------------------------------------------------------------------

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

const text = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : String(value);
const num = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

function tokensOf(row: Row): TokenUsage | undefined {
  const input = num(row.tokens_in);
  const output = num(row.tokens_out);
  return input === undefined && output === undefined ? undefined : { input: input ?? 0, output: output ?? 0 };
}

function errorOf(row: Row): RecordedError | undefined {
  const code = text(row.error_code);
  return code === undefined ? undefined : { code, message: text(row.error_message) ?? "" };
}

/** Whether a process of this machine is alive (`kill -0`). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A run that has not finished: `running` while its process lives, `interrupted` once it is gone. */
function unfinishedStatus(row: Row): string {
  const pid = num(row.pid);
  if (text(row.host) !== HOST || pid === undefined) return "unfinished";
  return processAlive(pid) ? "running" : "interrupted";
}

export function runSummaryOf(row: Row): RunSummary {
  const finishedAt = text(row.finished_at);
  const summary: RunSummary = {
    id: String(row.id),
    kind: String(row.kind),
    startedAt: String(row.started_at),
    outcome: finishedAt === undefined ? unfinishedStatus(row) : (text(row.outcome) ?? "unknown"),
    finished: finishedAt !== undefined,
    stepCount: Number(row.step_count ?? 0),
    callCount: Number(row.call_count ?? 0),
  };
  if (finishedAt !== undefined) summary.finishedAt = finishedAt;
  const ms = num(row.ms);
  if (ms !== undefined) summary.ms = ms;
  const input = text(row.input);
  if (input !== undefined) summary.input = input;
  const tokens = tokensOf(row);
  if (tokens) summary.tokens = tokens;
  const error = errorOf(row);
  if (error) summary.error = error;
  const sessionId = text(row.session_id);
  if (sessionId !== undefined) summary.sessionId = sessionId;
  return summary;
}

export function stepOf(row: Row): StoredStep {
  const step: StoredStep = {
    step: Number(row.step),
    startedAt: String(row.started_at),
    tools: Number(row.tools),
  };
  const offered = text(row.offered);
  if (offered !== undefined) step.offered = JSON.parse(offered);
  const modelMs = num(row.model_ms);
  if (modelMs !== undefined) step.modelMs = modelMs;
  const toolCalls = num(row.tool_calls);
  if (toolCalls !== undefined) step.toolCalls = toolCalls;
  const tokens = tokensOf(row);
  if (tokens) step.tokens = tokens;
  const said = text(row.text);
  if (said !== undefined) step.text = said;
  return step;
}

export function callOf(row: Row): StoredCall {
  const call: StoredCall = { id: String(row.id), name: String(row.name) };
  const step = num(row.step);
  if (step !== undefined) call.step = step;
  for (const key of ["method", "server", "tool", "arguments", "result", "shaped"] as const) {
    const value = text(row[key]);
    if (value !== undefined) call[key] = value;
  }
  const startedAt = text(row.started_at);
  if (startedAt !== undefined) call.startedAt = startedAt;
  const ok = num(row.ok);
  if (ok !== undefined) call.ok = ok === 1;
  const ms = num(row.ms);
  if (ms !== undefined) call.ms = ms;
  const error = errorOf(row);
  if (error) call.error = error;
  return call;
}

export function storedRunOf(run: Row, steps: Row[], calls: Row[]): StoredRun {
  const stored: StoredRun = { ...runSummaryOf(run), steps: steps.map(stepOf), calls: calls.map(callOf) };
  const answer = text(run.answer);
  if (answer !== undefined) stored.answer = answer;
  return stored;
}

export function sessionSummaryOf(row: Row): SessionSummary {
  return {
    id: String(row.id),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
    title: String(row.title),
    turns: Number(row.turns),
  };
}

export function storedSessionOf(row: Row): StoredSession {
  const state = JSON.parse(String(row.state)) as { messages?: unknown[]; handles?: SessionHandle[] };
  return { ...sessionSummaryOf(row), messages: state.messages ?? [], handles: state.handles ?? [] };
}

export function auditRecordOf(row: Row): StoredAuditRecord {
  return {
    seq: Number(row.seq),
    time: String(row.time),
    kind: String(row.kind),
    runId: text(row.run_id) ?? null,
    entry: String(row.entry),
    prevHash: String(row.prev_hash),
    hash: String(row.hash),
  };
}

/** An audit row as read back: the hashed entry, with its place in the chain. */
export function auditRowOf(record: StoredAuditRecord): AuditRow {
  return { ...(JSON.parse(record.entry) as AuditRow), prevHash: record.prevHash, hash: record.hash };
}

/** A gateway session row as the gateway reads it back. */
export function gatewaySessionOf(row: Row): GatewaySessionRecord {
  return {
    id: String(row.id),
    user: String(row.user_id),
    createdAt: String(row.created_at),
    usedAt: String(row.used_at),
    initialize: JSON.parse(String(row.initialize)) as unknown,
  };
}
