// One SQLite database, whichever engine runs it: `node:sqlite` (built into Node ≥ 22.13: nothing to
// compile) where the running Node has it, else better-sqlite3 (a native module, an optional peer
// dependency), loaded on first use. The embedded store (sqlite.ts) and the example orders server use it.
//
// What differs between the two, and what this interface settles:
// - transactions: better-sqlite3 has `db.transaction(fn).immediate()`, node:sqlite has none: `immediate`
//   runs BEGIN IMMEDIATE … COMMIT (ROLLBACK on a throw) itself on node:sqlite.
// - rows: node:sqlite gives objects without a prototype: `get`/`all` give plain objects on both.
// - parameters: positional `?` and named `@name`/`:name`/`$name` (bound from an object whose keys have no
//   prefix) work on both; an object key the statement does not name is an error on node:sqlite only,
//   so give exactly the names it has. No `.pluck()`: read the column from the row.
// - integers: numbers on both; one past 2^53 is a RangeError on node:sqlite (better-sqlite3 loses
//   precision). Booleans bind as 0/1 on node:sqlite ≥ 24 only: bind numbers.
// - busy timeout, journal mode: `pragma("busy_timeout = 5000")` on both (node:sqlite's `timeout` option
//   is newer than 22.13).
// - Node 22 prints "ExperimentalWarning: SQLite is an experimental feature" when node:sqlite is first
//   loaded: that one warning is held back while this module loads it (process.emitWarning is wrapped for
//   that synchronous load only and given back at once; every other warning goes through). Node caches
//   the warning as said, so code of the process's own that loads node:sqlite later is not warned again.
import { createRequire } from "node:module";

export type SqliteEngineName = "node:sqlite" | "better-sqlite3";
export type SqliteValue = null | number | bigint | string | Uint8Array;
/** Positional values, or one object of named values (keys without their `@`/`:`/`$`). */
export type SqliteParams = SqliteValue[] | [Record<string, SqliteValue>];
export type SqliteRow = Record<string, unknown>;

export interface SqliteStatement {
  run(...params: SqliteParams): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqliteParams): SqliteRow | undefined;
  all(...params: SqliteParams): SqliteRow[];
}

export interface SqliteDatabase {
  readonly engine: SqliteEngineName;
  readonly isOpen: boolean;
  prepare(sql: string): SqliteStatement;
  /** One or more statements, no results. */
  exec(sql: string): void;
  /** `PRAGMA <text>`; its first row's first column (`pragma("journal_mode")` → `"wal"`). */
  pragma(text: string): unknown;
  /** `fn` in one BEGIN IMMEDIATE transaction (the write lock taken first): committed when it returns. */
  immediate<T>(fn: () => T): T;
  close(): void;
}

export interface SqliteOpenOptions {
  /** Which engine (default: {@link defaultSqliteEngine}). */
  engine?: SqliteEngineName;
  readonly?: boolean;
}

/** Why an engine cannot be used here: its name and what to do. */
export class SqliteEngineMissing extends Error {
  constructor(
    readonly engine: SqliteEngineName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "SqliteEngineMissing";
  }
}

/** The better-sqlite3 version range this code is tested with (the optional peer dependency's). */
export const BETTER_SQLITE3_RANGE = "12";

const require = createRequire(import.meta.url);
const loaded = new Map<SqliteEngineName, unknown>();

/** node:sqlite when the running Node has it (≥ 22.13, or 22.5+ with --experimental-sqlite), else better-sqlite3. */
export function defaultSqliteEngine(): SqliteEngineName {
  return engineModule("node:sqlite") ? "node:sqlite" : "better-sqlite3";
}

/** The engines that load on the running Node (better-sqlite3: installed and built for this Node). */
export function availableSqliteEngines(): SqliteEngineName[] {
  return (["node:sqlite", "better-sqlite3"] as const).filter((engine) => engineModule(engine));
}

/**
 * Open (creating it when missing, unless `readonly`) a database file, or `":memory:"`.
 * @throws SqliteEngineMissing when the engine cannot be loaded, naming what to install.
 */
export function openSqlite(file: string, options: SqliteOpenOptions = {}): SqliteDatabase {
  const engine = options.engine ?? defaultSqliteEngine();
  const module = engineModule(engine);
  if (!module) throw missing(engine);
  return engine === "node:sqlite"
    ? new NodeSqlite(new (module as NodeSqliteModule).DatabaseSync(file, { readOnly: !!options.readonly }))
    : new BetterSqlite(new (module as BetterSqliteConstructor)(file, { readonly: !!options.readonly }));
}

function engineModule(engine: SqliteEngineName): unknown {
  if (!loaded.has(engine)) {
    try {
      loaded.set(engine, engine === "node:sqlite" ? loadNodeSqlite() : loadBetterSqlite());
    } catch (error) {
      loaded.set(engine, undefined);
      failures.set(engine, error);
    }
  }
  return loaded.get(engine);
}

const failures = new Map<SqliteEngineName, unknown>();

function missing(engine: SqliteEngineName): SqliteEngineMissing {
  const cause = failures.get(engine);
  if (engine === "node:sqlite")
    return new SqliteEngineMissing(
      engine,
      `this Node (${process.version}) has no node:sqlite: use Node 22.13 or newer (24 recommended), or install better-sqlite3@${BETTER_SQLITE3_RANGE}`,
      { cause },
    );
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === "MODULE_NOT_FOUND"
      ? "better-sqlite3 is not installed"
      : `better-sqlite3 could not be loaded (${String((cause as Error | undefined)?.message).split("\n")[0]})`;
  return new SqliteEngineMissing(
    engine,
    `${why} and this Node (${process.version}) has no node:sqlite: use Node 22.13 or newer (24 recommended, nothing to install), or npm install better-sqlite3@${BETTER_SQLITE3_RANGE}`,
    { cause },
  );
}

/** better-sqlite3, its native part loaded too (it loads on the first open: built for another Node, it fails there). */
function loadBetterSqlite(): unknown {
  const Database = require("better-sqlite3") as BetterSqliteConstructor;
  new Database(":memory:", { readonly: false }).close();
  return Database;
}

/** `node:sqlite`, without Node 22's experimental warning for this load (see the file's comment). */
function loadNodeSqlite(): unknown {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const text = typeof warning === "string" ? warning : warning.message;
    if ((type ?? (warning as Error).name) === "ExperimentalWarning" && /^SQLite\b/.test(text)) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return require("node:sqlite");
  } finally {
    process.emitWarning = emitWarning;
  }
}

// ---- node:sqlite (typed here: @types/node 20 has no types for it) ----

interface NodeSqliteStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): SqliteRow | undefined;
  all(...params: unknown[]): SqliteRow[];
}
interface NodeSqliteModule {
  DatabaseSync: new (
    file: string,
    options: { readOnly: boolean },
  ) => {
    prepare(sql: string): NodeSqliteStatement;
    exec(sql: string): void;
    close(): void;
  };
}

const plain = (row: SqliteRow | undefined): SqliteRow | undefined => (row ? { ...row } : undefined);

class NodeSqlite implements SqliteDatabase {
  readonly engine = "node:sqlite";
  #open = true;
  #inTransaction = false;
  constructor(readonly db: InstanceType<NodeSqliteModule["DatabaseSync"]>) {}

  get isOpen(): boolean {
    return this.#open;
  }

  prepare(sql: string): SqliteStatement {
    const statement = this.db.prepare(sql);
    return {
      run: (...params) => statement.run(...params),
      get: (...params) => plain(statement.get(...params)),
      all: (...params) => statement.all(...params).map((row) => ({ ...row })),
    };
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(text: string): unknown {
    const row = this.db.prepare(`PRAGMA ${text}`).get();
    return row ? Object.values(row)[0] : undefined;
  }

  immediate<T>(fn: () => T): T {
    if (this.#inTransaction) throw new Error("a transaction is already open on this database");
    this.db.exec("BEGIN IMMEDIATE");
    this.#inTransaction = true;
    try {
      const result = fn();
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      // SQLite may have rolled back already (a full disk): ROLLBACK then fails, and the first error counts.
      try {
        this.db.exec("ROLLBACK");
      } catch {}
      throw error;
    } finally {
      this.#inTransaction = false;
    }
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.db.close();
  }
}

// ---- better-sqlite3 (typed here: it is an optional peer dependency, maybe not installed) ----

interface BetterSqliteDatabase {
  readonly open: boolean;
  prepare(sql: string): NodeSqliteStatement;
  exec(sql: string): void;
  pragma(text: string, options: { simple: true }): unknown;
  transaction<A extends unknown[], T>(fn: (...args: A) => T): { immediate(...args: A): T };
  close(): void;
}
type BetterSqliteConstructor = new (file: string, options: { readonly: boolean }) => BetterSqliteDatabase;

class BetterSqlite implements SqliteDatabase {
  readonly engine = "better-sqlite3";
  /** One transaction wrapper, made once: each write runs its work inside it. */
  readonly #transaction: { immediate(fn: () => unknown): unknown };

  constructor(readonly db: BetterSqliteDatabase) {
    this.#transaction = db.transaction((fn: () => unknown) => fn());
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  prepare(sql: string): SqliteStatement {
    return this.db.prepare(sql);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(text: string): unknown {
    return this.db.pragma(text, { simple: true });
  }

  immediate<T>(fn: () => T): T {
    return this.#transaction.immediate(fn) as T;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
