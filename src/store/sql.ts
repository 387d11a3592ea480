// The schema both stores share: its migrations, and every statement, written once with `$n`
// placeholders (SQLite gets `?`). How events become writes is event-writes.ts; how rows become
// records, row-records.ts.
import { AUDIT_GENESIS_HASH } from "../telemetry/audit.js";

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
  [
    // Pins (trust/pins.ts): each configured server's tools as first seen or accepted, to tell drift.
    `CREATE TABLE tool_pins (
      server TEXT NOT NULL, tool TEXT NOT NULL, fingerprint TEXT NOT NULL, definition TEXT NOT NULL,
      pinned_at TEXT NOT NULL, trusted INTEGER NOT NULL, PRIMARY KEY (server, tool))`,
    // What the latest scan of each server found (the viewer's Servers page, `scan` of a stored fleet).
    `CREATE TABLE findings (
      server TEXT NOT NULL, seq INTEGER NOT NULL, found_at TEXT NOT NULL, tool TEXT, kind TEXT NOT NULL,
      severity TEXT NOT NULL, detail TEXT NOT NULL, location TEXT, accepted INTEGER NOT NULL,
      quarantined INTEGER NOT NULL, PRIMARY KEY (server, seq))`,
  ],
  [
    // With `audit.key`: each row's signature (HMAC of its hash) and the head's, so that a chain
    // rewritten (or cut short) by whoever can write the database but has not the key is told.
    "ALTER TABLE audit ADD COLUMN mac TEXT",
    "ALTER TABLE audit_head ADD COLUMN mac TEXT",
  ],
  [
    // Fallback servers (issue 27): the server that served a call while its own was down.
    "ALTER TABLE calls ADD COLUMN served_by TEXT",
    // Plan checkpoints (`run --resume`): a plan run's plan (by hash) and input, and each completed
    // step's output in the order the steps completed, so a failed run continues after them.
    "CREATE TABLE plan_runs (run_id TEXT PRIMARY KEY, plan_hash TEXT NOT NULL, input TEXT NOT NULL)",
    `CREATE TABLE plan_steps (
      run_id TEXT NOT NULL, step_id TEXT NOT NULL, seq INTEGER NOT NULL, output TEXT NOT NULL,
      PRIMARY KEY (run_id, step_id))`,
  ],
  [
    // Tasks (issue 28): the id of the task the server ran a call as, so that it can be found again.
    "ALTER TABLE calls ADD COLUMN task_id TEXT",
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
  callServedBy: "UPDATE calls SET served_by = $1 WHERE run_id = $2 AND id = $3",
  callTaskId: "UPDATE calls SET task_id = $1 WHERE run_id = $2 AND id = $3",
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
  auditHead: "SELECT seq, hash, mac FROM audit_head WHERE id = 1",
  auditInsert:
    "INSERT INTO audit (seq, time, kind, run_id, entry, prev_hash, hash, mac) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
  auditSetHead: "UPDATE audit_head SET seq = $1, hash = $2, mac = $3 WHERE id = 1",
  auditAfter: "SELECT * FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2",
  auditLast: "SELECT * FROM (SELECT * FROM audit ORDER BY seq DESC LIMIT $1) AS last_rows ORDER BY seq",
  gatewaySessionSave:
    "INSERT INTO gateway_sessions (id, user_id, created_at, used_at, initialize) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO UPDATE SET used_at = excluded.used_at",
  gatewaySession: "SELECT * FROM gateway_sessions WHERE id = $1",
  gatewaySessionTouch: "UPDATE gateway_sessions SET used_at = $1 WHERE id = $2",
  gatewaySessionDrop: "DELETE FROM gateway_sessions WHERE id = $1",
  gatewaySessionsPrune: "DELETE FROM gateway_sessions WHERE used_at < $1",
  gatewaySessionsOfUser:
    "SELECT id, used_at FROM gateway_sessions WHERE user_id = $1 AND used_at >= $2 ORDER BY used_at, id",
  pins: "SELECT * FROM tool_pins ORDER BY server, tool",
  findingsClear: "DELETE FROM findings WHERE server = $1",
  findingInsert:
    "INSERT INTO findings (server, seq, found_at, tool, kind, severity, detail, location, accepted, quarantined) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
  findings: "SELECT * FROM findings ORDER BY server, seq",
  pinSave:
    "INSERT INTO tool_pins (server, tool, fingerprint, definition, pinned_at, trusted) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (server, tool) DO UPDATE SET fingerprint = excluded.fingerprint, definition = excluded.definition, pinned_at = excluded.pinned_at, trusted = excluded.trusted",
  planRunSave:
    "INSERT INTO plan_runs (run_id, plan_hash, input) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO NOTHING",
  planStepSave:
    "INSERT INTO plan_steps (run_id, step_id, seq, output) VALUES ($1, $2, $3, $4) ON CONFLICT (run_id, step_id) DO UPDATE SET seq = excluded.seq, output = excluded.output",
  planRun: "SELECT * FROM plan_runs WHERE run_id = $1",
  planSteps: "SELECT * FROM plan_steps WHERE run_id = $1 ORDER BY seq",
} as const;

/** The name of a statement of {@link SQL}. */
export type StatementName = keyof typeof SQL;

/** One write: a statement and its values. */
export type Write = readonly [StatementName, readonly unknown[]];
