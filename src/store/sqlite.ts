// The embedded store: one SQLite file (WAL), on node:sqlite where the running Node has it, else
// better-sqlite3 (sqlite-engine.ts). Every write is one transaction, committed before the call returns, so
// a process killed at any point keeps everything written before it.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { DEFAULT_RUNS_LISTED, DEFAULT_STORE_BUSY_TIMEOUT_MS } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import type { AuditEntry, AuditRow } from "../telemetry/audit.js";
import type { SwitchyardEvent } from "../telemetry/events.js";
import type { ToolPin } from "../trust/pins.js";
import { chainEntry, headAfter, headOfRow } from "./audit-chain.js";
import { eventWrites, sessionWrites, type TextPolicy } from "./event-writes.js";
import {
  auditRecordOf,
  auditRowOf,
  findingOfRow,
  findingWrites,
  gatewaySessionOf,
  gatewaySessionUseOf,
  pinOfRow,
  pinValues,
  planCheckpointOf,
  type Row,
  runSummaryOf,
  sessionSummaryOf,
  storedRunOf,
  storedSessionOf,
} from "./row-records.js";
import { MIGRATIONS, SCHEMA_VERSION, SQL, type StatementName, VERSION_TABLE, type Write } from "./sql.js";
import {
  openSqlite,
  type SqliteDatabase,
  SqliteEngineMissing,
  type SqliteEngineName,
  type SqliteStatement,
  type SqliteValue,
} from "./sqlite-engine.js";
import type {
  AuditHead,
  AuditQuery,
  GatewaySessionRecord,
  GatewaySessionUse,
  RunSummary,
  SessionState,
  SessionSummary,
  Store,
  StoredAuditRecord,
  StoredFinding,
  StoredPlanCheckpoint,
  StoredRun,
  StoredSession,
} from "./store.js";

export class SqliteStore implements Store {
  readonly kind = "sqlite";
  readonly location: string;
  /** Which SQLite engine runs it (node:sqlite, or better-sqlite3 on a Node without it). */
  readonly engine: SqliteEngineName;
  readonly #db: SqliteDatabase;
  readonly #statements = new Map<StatementName, SqliteStatement>();
  readonly #policy: TextPolicy;
  readonly #auditKey: string | undefined;

  private constructor(file: string, db: SqliteDatabase, policy: TextPolicy, auditKey?: string) {
    this.location = file;
    this.engine = db.engine;
    this.#db = db;
    this.#policy = policy;
    this.#auditKey = auditKey;
  }

  /** The writes in one BEGIN IMMEDIATE transaction. */
  #writeAll(writes: readonly Write[]): void {
    this.#db.immediate(() => {
      for (const [name, values] of writes) this.#statement(name).run(...(values as SqliteValue[]));
    });
  }

  #appendOne(entry: AuditEntry): StoredAuditRecord {
    const auditKey = this.#auditKey;
    return this.#db.immediate(() => {
      const record = chainEntry(this.#head(), entry, auditKey);
      this.#statement("auditInsert").run(
        record.seq,
        record.time,
        record.kind,
        record.runId,
        record.entry,
        record.prevHash,
        record.hash,
        record.mac ?? null,
      );
      const head = headAfter(record, auditKey);
      this.#statement("auditSetHead").run(head.seq, head.hash, head.mac ?? null);
      return record;
    });
  }

  /**
   * Open (creating it and its folder when missing) the database file, and bring its schema up to date.
   * @throws SwitchyardError `STORE_ERROR` naming the file and what to do.
   */
  static open(file: string, policy: TextPolicy, auditKey?: string, engine?: SqliteEngineName): SqliteStore {
    let db: SqliteDatabase | undefined;
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const created = !existsSync(file);
      db = openSqlite(file, engine ? { engine } : {});
      // Conversations and what was called: readable by its owner only (SQLite gives its -wal the same).
      if (created) chmodSync(file, 0o600);
      db.pragma(`busy_timeout = ${DEFAULT_STORE_BUSY_TIMEOUT_MS}`);
      db.pragma("journal_mode = WAL");
      // WAL with NORMAL: a commit survives the process being killed (not a power loss of the machine).
      db.pragma("synchronous = NORMAL");
      migrate(db, file);
      return new SqliteStore(file, db, policy, auditKey);
    } catch (error) {
      db?.close();
      if (error instanceof SwitchyardError) throw error;
      if (error instanceof SqliteEngineMissing)
        throw new SwitchyardError(
          "STORE_ERROR",
          `the SQLite store cannot open ${file}: ${error.message}; or set store: { url: "postgres://…" }, or store: false to record nothing`,
          { cause: error },
        );
      throw new SwitchyardError(
        "STORE_ERROR",
        `cannot open the store ${file}: ${(error as Error).message}; give another file (store: { path }) or store: false`,
        { cause: error },
      );
    }
  }

  #statement(name: StatementName): SqliteStatement {
    let statement = this.#statements.get(name);
    if (!statement) {
      statement = this.#db.prepare(SQL[name].replace(/\$\d+/g, "?"));
      this.#statements.set(name, statement);
    }
    return statement;
  }

  #head(): AuditHead {
    return headOfRow(this.#statement("auditHead").get() as Row | undefined);
  }

  #all(name: StatementName, ...values: unknown[]): Row[] {
    return this.#statement(name).all(...(values as SqliteValue[])) as Row[];
  }

  async record(events: readonly SwitchyardEvent[]): Promise<void> {
    const now = new Date().toISOString();
    const writes = events.flatMap((event) => eventWrites(event, this.#policy, now));
    if (writes.length) this.#guard(() => this.#writeAll(writes));
  }

  async runs(options: { limit?: number } = {}): Promise<RunSummary[]> {
    return this.#all("runs", options.limit ?? DEFAULT_RUNS_LISTED).map(runSummaryOf);
  }

  async run(id: string): Promise<StoredRun | undefined> {
    const [run] = this.#all("run", id);
    return run ? storedRunOf(run, this.#all("steps", id), this.#all("calls", id)) : undefined;
  }

  async saveSession(id: string, state: SessionState, runId?: string): Promise<void> {
    const writes = sessionWrites(id, state, runId, new Date().toISOString());
    this.#guard(() => this.#writeAll(writes));
  }

  async session(id: string): Promise<StoredSession | undefined> {
    const [row] = this.#all("session", id);
    return row ? storedSessionOf(row) : undefined;
  }

  async sessions(options: { limit?: number } = {}): Promise<SessionSummary[]> {
    return this.#all("sessions", options.limit ?? DEFAULT_RUNS_LISTED).map(sessionSummaryOf);
  }

  async saveGatewaySession(session: GatewaySessionRecord): Promise<void> {
    const values = [
      session.id,
      session.user,
      session.createdAt,
      session.usedAt,
      JSON.stringify(session.initialize),
    ];
    this.#guard(() => this.#writeAll([["gatewaySessionSave", values]]));
  }

  async gatewaySession(id: string): Promise<GatewaySessionRecord | undefined> {
    const [row] = this.#all("gatewaySession", id);
    return row ? gatewaySessionOf(row) : undefined;
  }

  async touchGatewaySession(id: string, usedAt: string): Promise<void> {
    this.#guard(() => this.#writeAll([["gatewaySessionTouch", [usedAt, id]]]));
  }

  async dropGatewaySession(id: string, unusedSince?: string): Promise<void> {
    const writes: Write[] = [["gatewaySessionDrop", [id]]];
    if (unusedSince !== undefined) writes.push(["gatewaySessionsPrune", [unusedSince]]);
    this.#guard(() => this.#writeAll(writes));
  }

  async pruneGatewaySessions(unusedSince: string): Promise<void> {
    this.#guard(() => this.#writeAll([["gatewaySessionsPrune", [unusedSince]]]));
  }

  async gatewaySessionsOf(user: string, usedSince: string): Promise<GatewaySessionUse[]> {
    return this.#all("gatewaySessionsOfUser", user, usedSince).map(gatewaySessionUseOf);
  }

  async loadPins(): Promise<ToolPin[]> {
    return this.#all("pins").map(pinOfRow);
  }

  async savePins(pins: readonly ToolPin[]): Promise<void> {
    if (pins.length) this.#guard(() => this.#writeAll(pins.map((pin): Write => ["pinSave", pinValues(pin)])));
  }

  async saveFindings(server: string, findings: readonly StoredFinding[]): Promise<void> {
    this.#guard(() => this.#writeAll(findingWrites(server, findings)));
  }

  async findings(): Promise<StoredFinding[]> {
    return this.#all("findings").map(findingOfRow);
  }

  async savePlanRun(runId: string, planHash: string, input: string): Promise<void> {
    this.#guard(() => this.#writeAll([["planRunSave", [runId, planHash, input]]]));
  }

  async savePlanStep(runId: string, stepId: string, seq: number, output: string): Promise<void> {
    this.#guard(() => this.#writeAll([["planStepSave", [runId, stepId, seq, output]]]));
  }

  async planCheckpoint(runId: string): Promise<StoredPlanCheckpoint | undefined> {
    const [row] = this.#all("planRun", runId);
    return row ? planCheckpointOf(row, this.#all("planSteps", runId)) : undefined;
  }

  async append(entry: AuditEntry): Promise<AuditRow> {
    // BEGIN IMMEDIATE: the write lock is taken before the head is read, so two processes never chain
    // onto the same row.
    return auditRowOf(this.#guard(() => this.#appendOne(entry)));
  }

  async audit(query: AuditQuery = {}): Promise<AuditRow[]> {
    return (await this.auditRecords(query)).map(auditRowOf);
  }

  async auditRecords(query: AuditQuery = {}): Promise<StoredAuditRecord[]> {
    const rows =
      query.last !== undefined
        ? this.#all("auditLast", query.last)
        : this.#all("auditAfter", query.afterSeq ?? 0, query.limit ?? -1);
    return rows.map(auditRecordOf);
  }

  async auditHead(): Promise<AuditHead> {
    return this.#head();
  }

  async close(): Promise<void> {
    this.#db.close();
  }

  /** A write, its driver errors turned into `STORE_ERROR` naming the file. */
  #guard<T>(write: () => T): T {
    try {
      return write();
    } catch (error) {
      if (error instanceof SwitchyardError) throw error;
      throw new SwitchyardError(
        "STORE_ERROR",
        `cannot write to the store ${this.location}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
}

/** Run the migrations this file lacks, in one immediate transaction (two processes may open it at once). */
function migrate(db: SqliteDatabase, file: string): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (version INTEGER NOT NULL)`);
  db.immediate(() => {
    const row = db.prepare(`SELECT max(version) AS version FROM ${VERSION_TABLE}`).get() as Row;
    const version = Number(row.version ?? 0);
    if (version > SCHEMA_VERSION) {
      throw new SwitchyardError(
        "STORE_ERROR",
        `the store ${file} has schema version ${version}, newer than this Switchyard knows (${SCHEMA_VERSION}): upgrade switchyard, or give another file (store: { path })`,
      );
    }
    for (const statements of MIGRATIONS.slice(version))
      for (const statement of statements) db.exec(statement);
    if (version < SCHEMA_VERSION) {
      db.exec(`DELETE FROM ${VERSION_TABLE}`);
      db.prepare(`INSERT INTO ${VERSION_TABLE} (version) VALUES (?)`).run(SCHEMA_VERSION);
    }
  });
}
