// The PostgreSQL store (`store: { url: "postgres://…" }`), for deployments that outgrow one machine:
// the gateway's replicas share it. The `pg` driver is loaded only when this store is opened.
import type * as Pg from "pg";
import {
  DEFAULT_AUDIT_BATCH_ROWS,
  DEFAULT_POSTGRES_CONNECTIONS,
  DEFAULT_RUNS_LISTED,
} from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import { lazyRequire } from "../lazy-require.js";
import type { AuditEntry, AuditRow } from "../telemetry/audit.js";
import type { SwitchyardEvent } from "../telemetry/events.js";
import type { ToolPin } from "../trust/pins.js";
import { chainEntry, checkEntry, headAfter, headOfRow } from "./audit-chain.js";
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

const loadPg = lazyRequire<typeof Pg>("pg");

/** The advisory lock key that serializes migrations among clients (any constant of our own). */
const MIGRATION_LOCK = 7_326_114;

export class PostgresStore implements Store {
  readonly kind = "postgres";
  readonly location: string;
  readonly #pool: Pg.Pool;
  readonly #policy: TextPolicy;
  /** The audit key (`audit.key`) rows and the head are signed with; none: hashed only. */
  readonly #auditKey: string | undefined;
  #closed: Promise<void> | undefined;
  /** Audit entries waiting for the next append transaction. */
  readonly #appends: Array<{
    entry: AuditEntry;
    resolve: (row: AuditRow) => void;
    reject: (error: unknown) => void;
  }> = [];
  /** The append transactions under way (one at a time), until the queue is empty. */
  #appending: Promise<void> | undefined;

  private constructor(location: string, pool: Pg.Pool, policy: TextPolicy, auditKey?: string) {
    this.location = location;
    this.#pool = pool;
    this.#policy = policy;
    this.#auditKey = auditKey;
  }

  /**
   * Connect (a pool of connections) and bring the schema up to date.
   * @throws SwitchyardError `STORE_ERROR` naming the server (not its password) and what to do.
   */
  static async open(url: string, policy: TextPolicy, auditKey?: string): Promise<PostgresStore> {
    const location = withoutPassword(url);
    const { Pool } = loadPg();
    const pool = new Pool({ connectionString: url, max: DEFAULT_POSTGRES_CONNECTIONS });
    // An idle connection that fails (the server restarted) must not crash the process.
    pool.on("error", () => {});
    const store = new PostgresStore(location, pool, policy, auditKey);
    try {
      await store.#transaction(async (client) => {
        await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (version INTEGER NOT NULL)`);
        const { rows } = await client.query(`SELECT max(version) AS version FROM ${VERSION_TABLE}`);
        const version = Number(rows[0]?.version ?? 0);
        if (version > SCHEMA_VERSION) {
          throw new SwitchyardError(
            "STORE_ERROR",
            `the store ${location} has schema version ${version}, newer than this Switchyard knows (${SCHEMA_VERSION}): upgrade switchyard`,
          );
        }
        for (const statements of MIGRATIONS.slice(version))
          for (const statement of statements) await client.query(statement);
        if (version < SCHEMA_VERSION) {
          await client.query(`DELETE FROM ${VERSION_TABLE}`);
          await client.query(`INSERT INTO ${VERSION_TABLE} (version) VALUES ($1)`, [SCHEMA_VERSION]);
        }
      });
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    return store;
  }

  /** One transaction on one connection of the pool; driver errors become `STORE_ERROR`. */
  async #transaction<T>(work: (client: Pg.PoolClient) => Promise<T>): Promise<T> {
    let client: Pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw this.#failure("cannot connect to", error);
    }
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error instanceof SwitchyardError ? error : this.#failure("cannot write to", error);
    } finally {
      client.release();
    }
  }

  async #query(name: StatementName, values: readonly unknown[], client?: Pg.PoolClient): Promise<Row[]> {
    try {
      const result = await (client ?? this.#pool).query({ name, text: SQL[name], values: [...values] });
      return result.rows as Row[];
    } catch (error) {
      throw this.#failure("cannot read from", error);
    }
  }

  #failure(what: string, error: unknown): SwitchyardError {
    const reason = (error as Error).message || (error as NodeJS.ErrnoException).code || String(error);
    return new SwitchyardError(
      "STORE_ERROR",
      `${what} the store ${this.location}: ${reason}; check that PostgreSQL runs there and the URL (store.url) is right`,
      { cause: error },
    );
  }

  async #writeAll(writes: readonly Write[]): Promise<void> {
    await this.#transaction(async (client) => {
      for (const [name, values] of writes) await client.query({ name, text: SQL[name], values: [...values] });
    });
  }

  async record(events: readonly SwitchyardEvent[]): Promise<void> {
    const now = new Date().toISOString();
    const writes = events.flatMap((event) => eventWrites(event, this.#policy, now));
    if (writes.length) await this.#writeAll(writes);
  }

  async runs(options: { limit?: number } = {}): Promise<RunSummary[]> {
    return (await this.#query("runs", [options.limit ?? DEFAULT_RUNS_LISTED])).map(runSummaryOf);
  }

  async run(id: string): Promise<StoredRun | undefined> {
    const [run] = await this.#query("run", [id]);
    if (!run) return undefined;
    const [steps, calls] = await Promise.all([this.#query("steps", [id]), this.#query("calls", [id])]);
    return storedRunOf(run, steps, calls);
  }

  async saveSession(id: string, state: SessionState, runId?: string): Promise<void> {
    await this.#writeAll(sessionWrites(id, state, runId, new Date().toISOString()));
  }

  async session(id: string): Promise<StoredSession | undefined> {
    const [row] = await this.#query("session", [id]);
    return row ? storedSessionOf(row) : undefined;
  }

  async sessions(options: { limit?: number } = {}): Promise<SessionSummary[]> {
    return (await this.#query("sessions", [options.limit ?? DEFAULT_RUNS_LISTED])).map(sessionSummaryOf);
  }

  async saveGatewaySession(session: GatewaySessionRecord): Promise<void> {
    const values = [
      session.id,
      session.user,
      session.createdAt,
      session.usedAt,
      JSON.stringify(session.initialize),
    ];
    await this.#writeAll([["gatewaySessionSave", values]]);
  }

  async gatewaySession(id: string): Promise<GatewaySessionRecord | undefined> {
    const [row] = await this.#query("gatewaySession", [id]);
    return row ? gatewaySessionOf(row) : undefined;
  }

  async touchGatewaySession(id: string, usedAt: string): Promise<void> {
    await this.#query("gatewaySessionTouch", [usedAt, id]);
  }

  async dropGatewaySession(id: string, unusedSince?: string): Promise<void> {
    const writes: Write[] = [["gatewaySessionDrop", [id]]];
    if (unusedSince !== undefined) writes.push(["gatewaySessionsPrune", [unusedSince]]);
    await this.#writeAll(writes);
  }

  async pruneGatewaySessions(unusedSince: string): Promise<void> {
    await this.#query("gatewaySessionsPrune", [unusedSince]);
  }

  async gatewaySessionsOf(user: string, usedSince: string): Promise<GatewaySessionUse[]> {
    return (await this.#query("gatewaySessionsOfUser", [user, usedSince])).map(gatewaySessionUseOf);
  }

  /**
   * Append to the chain. Appends that come while one transaction holds the chain's head wait, and go
   * together (in order) in the next: one transaction per batch, so the work under way stays bounded
   * however fast calls come.
   */
  async loadPins(): Promise<ToolPin[]> {
    return (await this.#query("pins", [])).map(pinOfRow);
  }

  async savePins(pins: readonly ToolPin[]): Promise<void> {
    if (pins.length) await this.#writeAll(pins.map((pin): Write => ["pinSave", pinValues(pin)]));
  }

  async saveFindings(server: string, findings: readonly StoredFinding[]): Promise<void> {
    await this.#writeAll(findingWrites(server, findings));
  }

  async findings(): Promise<StoredFinding[]> {
    return (await this.#query("findings", [])).map(findingOfRow);
  }

  async savePlanRun(runId: string, planHash: string, input: string): Promise<void> {
    await this.#writeAll([["planRunSave", [runId, planHash, input]]]);
  }

  async savePlanStep(runId: string, stepId: string, seq: number, output: string): Promise<void> {
    await this.#writeAll([["planStepSave", [runId, stepId, seq, output]]]);
  }

  async planCheckpoint(runId: string): Promise<StoredPlanCheckpoint | undefined> {
    const [row] = await this.#query("planRun", [runId]);
    return row ? planCheckpointOf(row, await this.#query("planSteps", [runId])) : undefined;
  }

  append(entry: AuditEntry): Promise<AuditRow> {
    return new Promise<AuditRow>((resolve, reject) => {
      try {
        checkEntry(entry); // a malformed entry is refused alone, not with its batch
      } catch (error) {
        reject(error);
        return;
      }
      this.#appends.push({ entry, resolve, reject });
      this.#appending ??= this.#drainAppends();
    });
  }

  async #drainAppends(): Promise<void> {
    for (;;) {
      const batch = this.#appends.splice(0, DEFAULT_AUDIT_BATCH_ROWS);
      let outcome: { records: StoredAuditRecord[] } | { error: unknown };
      try {
        outcome = { records: await this.#appendBatch(batch.map((append) => append.entry)) };
      } catch (error) {
        outcome = { error };
      }
      // Done when nothing waits: the flag is cleared before the appenders hear back, so one that
      // appends again at once starts the next drain instead of waiting on this one.
      const done = this.#appends.length === 0;
      if (done) this.#appending = undefined;
      for (const [index, append] of batch.entries()) {
        if ("error" in outcome) append.reject(outcome.error);
        else append.resolve(auditRowOf(outcome.records[index]!));
      }
      if (done) return;
    }
  }

  /** One transaction: the entries chained after the head, in order. */
  async #appendBatch(entries: readonly AuditEntry[]): Promise<StoredAuditRecord[]> {
    return await this.#transaction(async (client) => {
      // The head row, locked until commit: appenders on every connection and replica wait their turn.
      const { rows } = await client.query(`${SQL.auditHead} FOR UPDATE`);
      let head = headOfRow(rows[0]);
      const written: StoredAuditRecord[] = [];
      for (const entry of entries) {
        const next = chainEntry(head, entry, this.#auditKey);
        await this.#query(
          "auditInsert",
          [
            next.seq,
            next.time,
            next.kind,
            next.runId,
            next.entry,
            next.prevHash,
            next.hash,
            next.mac ?? null,
          ],
          client,
        );
        written.push(next);
        head = headAfter(next, this.#auditKey);
      }
      await this.#query("auditSetHead", [head.seq, head.hash, head.mac ?? null], client);
      return written;
    });
  }

  async audit(query: AuditQuery = {}): Promise<AuditRow[]> {
    return (await this.auditRecords(query)).map(auditRowOf);
  }

  async auditRecords(query: AuditQuery = {}): Promise<StoredAuditRecord[]> {
    const rows =
      query.last !== undefined
        ? await this.#query("auditLast", [query.last])
        : await this.#query("auditAfter", [query.afterSeq ?? 0, query.limit ?? null]);
    return rows.map(auditRecordOf);
  }

  async auditHead(): Promise<AuditHead> {
    const [row] = await this.#query("auditHead", []);
    return headOfRow(row);
  }

  close(): Promise<void> {
    // Appends already handed over are written first.
    this.#closed ??= (this.#appending ?? Promise.resolve()).then(() => this.#pool.end());
    return this.#closed;
  }
}

/** The URL as it may be shown: its password replaced. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://…";
  }
}
