// The store: run records, sessions and the audit log, kept in SQLite (embedded, the default) or
// PostgreSQL. One interface, two implementations (sqlite.ts, postgres.ts) that one test suite checks.
import type { AuditEntry, AuditRow, AuditSink } from "../telemetry/audit.js";
import type { RecordedError, SwitchyardEvent, TokenUsage } from "../telemetry/events.js";
import type { Finding } from "../telemetry/findings.js";
import type { ToolPin } from "../trust/pins.js";

/**
 * How a run stands: its own outcome once it finished (an agent's stop reason, `ok`/`failed` for a plan,
 * `ok` or the error code for a plain call); before that `running` while the process that runs it is
 * alive, `interrupted` once it is gone (killed, crashed) without finishing.
 */
export type RunStatus = string;

/** A finding as the store keeps it: when it was found, and whether its tool is quarantined for it. */
export interface StoredFinding extends Finding {
  /** ISO 8601. */
  foundAt: string;
  quarantined: boolean;
}

/** One run as `runs` lists it. */
export interface RunSummary {
  id: string;
  /** `agent`, `plan`, or `call` (a plain `callTool`, recorded as a run of one call). */
  kind: string;
  /** ISO 8601. */
  startedAt: string;
  finishedAt?: string;
  /** See {@link RunStatus}. */
  outcome: RunStatus;
  /** Whether it finished (a `run_finished` was recorded). */
  finished: boolean;
  ms?: number;
  /** The question (agent), the inputs (plan) or the tool (call), cut to the recorder's text limit. */
  input?: string;
  stepCount: number;
  callCount: number;
  tokens?: TokenUsage;
  error?: RecordedError;
  /** The chat session the run belongs to. */
  sessionId?: string;
}

/** One model turn of a recorded run. */
export interface StoredStep {
  step: number;
  /** ISO 8601. */
  startedAt: string;
  /** Tools offered to the model. */
  tools: number;
  /** Which tools were offered, when the event said (names, with the router's scores). */
  offered?: unknown;
  /** Absent when the model had not answered (the run was interrupted). */
  modelMs?: number;
  toolCalls?: number;
  tokens?: TokenUsage;
  /** What the model said with its answer or its tool calls. */
  text?: string;
}

/** One call of a recorded run. */
export interface StoredCall {
  id: string;
  step?: number;
  /** The catalog name (a tool's, a prompt's), or a resource's URI. */
  name: string;
  /** The MCP method of a request that was not a tool call (`resources/read`, `prompts/get`, …). */
  method?: string;
  server?: string;
  tool?: string;
  /** The fallback server that served the call while `server` was down; absent: `server` did. */
  servedBy?: string;
  /** The id of the task the server ran the call as (the tasks extension), when it made one. */
  taskId?: string;
  /** The arguments as sent (JSON), redacted and cut to the recorder's text limit. */
  arguments?: string;
  /** ISO 8601; absent when only the call's end was reported (a call the agent refused). */
  startedAt?: string;
  /** Absent while (or, for an interrupted run, since) it had not finished. */
  ok?: boolean;
  ms?: number;
  error?: RecordedError;
  /** The result's text as the tool answered it, redacted and cut to the recorder's text limit. */
  result?: string;
  /** What the model was given for the call (an agent's run), redacted and cut likewise. */
  shaped?: string;
}

/** A whole recorded run: the summary, every step and every call, in order. */
export interface StoredRun extends RunSummary {
  answer?: string;
  steps: StoredStep[];
  calls: StoredCall[];
}

/** A result kept behind a handle (`read_result`), as a session saves it. */
export interface SessionHandle {
  id: string;
  tool: string;
  text: string;
}

/** What a chat session keeps: the conversation to continue from, and the results its handles name. */
export interface SessionState {
  /** The messages (`ChatMessage`s) to continue from: `AgentResult.history`. */
  messages: readonly unknown[];
  handles?: readonly SessionHandle[];
}

/** A chat session as `sessions` lists it. */
export interface SessionSummary {
  id: string;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
  /** The first question, cut. */
  title: string;
  /** Questions answered so far. */
  turns: number;
}

export interface StoredSession extends SessionSummary, SessionState {
  handles: SessionHandle[];
  messages: unknown[];
}

/**
 * A 2025-11-25 HTTP session of the gateway, kept so that another replica (or the same one after a
 * restart) can take it up: whose it is, and the client's `initialize` request to replay there.
 */
export interface GatewaySessionRecord {
  /** The `Mcp-Session-Id`. */
  id: string;
  user: string;
  /** ISO 8601. */
  createdAt: string;
  /** When a request last came for it (written at most once a `DEFAULT_GATEWAY_SESSION_TOUCH_MS`). */
  usedAt: string;
  /** The client's JSON-RPC `initialize` request, as it came. */
  initialize: unknown;
}

/** A gateway session's id and last use, as a user's sessions are counted. */
export type GatewaySessionUse = Pick<GatewaySessionRecord, "id" | "usedAt">;

/** An audit row as stored: the canonical text that was hashed, and the columns kept beside it for queries. */
export interface StoredAuditRecord {
  seq: number;
  time: string;
  kind: string;
  runId: string | null;
  /** The canonical JSON of the entry with its `seq` (exactly the text hashed). */
  entry: string;
  prevHash: string;
  hash: string;
  /** With `audit.key`: the row's signature (`auditMac` of its hash); absent on rows written without. */
  mac?: string;
}

/** Where the chain ends, as the store keeps it beside the rows (updated with each append). */
export interface AuditHead {
  seq: number;
  hash: string;
  /** With `audit.key`: the head's signature (`auditMac` of its seq and hash); absent when written without. */
  mac?: string;
}

/** Which rows of the audit log to read. */
export interface AuditQuery {
  /** Rows after this `seq`; default 0 (from the start). */
  afterSeq?: number;
  /** At most this many rows (the first ones after `afterSeq`). */
  limit?: number;
  /** Only the last `last` rows (newest last); overrides `afterSeq`. */
  last?: number;
}

/** Options of both stores (`openStore`'s second argument). */
export interface StoreOptions {
  /** Characters kept of each recorded text; default `DEFAULT_RECORD_TEXT_CHARS`. */
  textChars?: number;
  /** Replaces secrets in every recorded text (questions, arguments, model text, errors) before it is written. */
  redact?: (text: string) => string;
  /**
   * The audit key (`audit.key`): every row appended, and the head, is signed with it (HMAC-SHA256), so
   * `verifyAudit(store, { key })` tells a chain rewritten by whoever has not the key. Default: the
   * config's `audit.key` when `openStore` is given a config; else none (rows are hashed, not signed).
   */
  auditKey?: string;
}

/** What a plan run saved to be resumed: its plan's hash, its input, its completed steps in order. */
export interface StoredPlanCheckpoint {
  runId: string;
  planHash: string;
  /** The run's input, as JSON. */
  input: string;
  /** Completed steps, in the order they completed; `output` as JSON. */
  steps: Array<{ id: string; output: string }>;
}

/** Everything a store keeps. Every method may be called while others are under way. */
export interface Store extends AuditSink {
  /** `sqlite` or `postgres`. */
  readonly kind: "sqlite" | "postgres";
  /** The database file, or the PostgreSQL URL without its password. */
  readonly location: string;

  /** Record events of runs and calls, in order, in one transaction (the recorder batches them). */
  record(events: readonly SwitchyardEvent[]): Promise<void>;
  /** The latest runs, newest first; `limit` default {@link DEFAULT_RUNS_LISTED}. */
  runs(options?: { limit?: number }): Promise<RunSummary[]>;
  /** One run in full, or undefined when no run has that id. */
  run(id: string): Promise<StoredRun | undefined>;

  /** Save a session's state after a turn (created on its first save); `runId`: the turn's run. */
  saveSession(id: string, state: SessionState, runId?: string): Promise<void>;
  session(id: string): Promise<StoredSession | undefined>;
  /** The latest sessions, most recently used first. */
  sessions(options?: { limit?: number }): Promise<SessionSummary[]>;

  /** Keep a gateway session (created, or its `usedAt` moved on when it exists). */
  saveGatewaySession(session: GatewaySessionRecord): Promise<void>;
  gatewaySession(id: string): Promise<GatewaySessionRecord | undefined>;
  touchGatewaySession(id: string, usedAt: string): Promise<void>;
  /** Forget a session (the client ended it), and every session unused since `unusedSince` when given. */
  dropGatewaySession(id: string, unusedSince?: string): Promise<void>;
  /** Forget every session unused since `unusedSince` (expired). */
  pruneGatewaySessions(unusedSince: string): Promise<void>;
  /** A user's sessions used since `usedSince` (the unexpired ones), the one unused longest first. */
  gatewaySessionsOf(user: string, usedSince: string): Promise<GatewaySessionUse[]>;

  /**
   * Append an entry to the audit log: numbered (`seq`), chained to the row before (`prevHash`) and
   * hashed, in one transaction under a lock, so that concurrent appenders (processes, replicas) never
   * fork the chain. Resolves with the row as stored.
   */
  append(entry: AuditEntry): Promise<AuditRow>;
  /** Rows of the audit log, in order. */
  audit(query?: AuditQuery): Promise<AuditRow[]>;
  /** Rows as stored (for verifying), in `seq` order. */
  auditRecords(query?: AuditQuery): Promise<StoredAuditRecord[]>;
  /** The end of the chain as recorded with the last append; `{ seq: 0, hash: AUDIT_GENESIS_HASH }` when empty. */
  auditHead(): Promise<AuditHead>;

  /** Every pinned tool definition (trust/pins.ts), of every server. */
  loadPins(): Promise<ToolPin[]>;
  /** Insert or replace pins, by server and tool, in one transaction. */
  savePins(pins: readonly ToolPin[]): Promise<void>;
  /** Replace what is kept of a server's findings with these (its latest scan), in one transaction. */
  saveFindings(server: string, findings: readonly StoredFinding[]): Promise<void>;
  /** The latest findings of every server, by server. */
  findings(): Promise<StoredFinding[]>;

  /** Checkpoint a plan run as it starts: its plan's hash and its input (JSON); kept as first saved. */
  savePlanRun(runId: string, planHash: string, input: string): Promise<void>;
  /** Checkpoint a completed step of a plan run: its output (JSON), `seq` its place in completion order. */
  savePlanStep(runId: string, stepId: string, seq: number, output: string): Promise<void>;
  /** A plan run's checkpoint (`run --resume`), or undefined when none was saved for that id. */
  planCheckpoint(runId: string): Promise<StoredPlanCheckpoint | undefined>;

  /** Close the database (a pool of connections for PostgreSQL). Idempotent. */
  close(): Promise<void>;
}
