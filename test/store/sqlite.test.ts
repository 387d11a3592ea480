// The shared store suite against the embedded store: a SQLite file in a temp folder.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_RECORD_TEXT_CHARS } from "../../src/config/defaults.js";
import { defaultStorePath, openStore } from "../../src/index.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/sql.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import {
  availableSqliteEngines,
  defaultSqliteEngine,
  openSqlite,
  type SqliteEngineName,
} from "../../src/store/sqlite-engine.js";
import type { StoreOptions } from "../../src/store/store.js";
import { NODE, ROOT } from "../helpers.js";
import { auditSigningSuite } from "./audit-signing-suite.js";
import { storeSuite } from "./store-suite.js";

/** The store on one engine, as openStore would open it (its default text policy). */
const onEngine = (file: string, engine: SqliteEngineName, options: StoreOptions = {}) =>
  SqliteStore.open(
    file,
    {
      textChars: options.textChars ?? DEFAULT_RECORD_TEXT_CHARS,
      ...(options.redact ? { redact: options.redact } : {}),
    },
    options.auditKey,
    engine,
  );

const freshOn = (engine: SqliteEngineName) => async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-store-")), "nested", "switchyard.db");
  const store = onEngine(file, engine);
  return {
    store,
    target: file,
    exec: async (sql: string) => {
      const db = openSqlite(file, { engine });
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
    },
    reopen: async (options?: StoreOptions) => onEngine(file, engine, options),
  };
};
const fresh = freshOn(defaultSqliteEngine());

// The shared suite on every engine the running Node can load: node:sqlite (Node ≥ 22.13) and better-sqlite3
// (installed and built for this Node); an engine that does not load here is listed as skipped.
const available = availableSqliteEngines();
for (const engine of ["node:sqlite", "better-sqlite3"] as const) {
  const reason = available.includes(engine)
    ? undefined
    : `${engine} does not load on Node ${process.version}`;
  storeSuite(`sqlite (${engine})`, reason ? undefined : freshOn(engine), reason);
  auditSigningSuite(`sqlite (${engine})`, reason ? undefined : freshOn(engine), reason);
}

describe("sqlite store", () => {
  it("is one WAL file with its schema version recorded", async () => {
    const { store, target } = await fresh();
    await store.close();
    const db = openSqlite(target, { readonly: true });
    expect(db.pragma("journal_mode")).toBe("wal");
    expect(db.prepare("SELECT version FROM switchyard_schema").all()).toEqual([{ version: SCHEMA_VERSION }]);
    db.close();
    // Its owner's only, as is the folder it made.
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(target)).mode & 0o777).toBe(0o700);
  });

  it("refuses a file whose schema is newer than this code, saying what to do", async () => {
    const { store, target, exec } = await fresh();
    await store.close();
    await exec("UPDATE switchyard_schema SET version = 99");
    await expect(openStore({ path: target })).rejects.toThrow(
      new RegExp(
        `has schema version 99, newer than this Switchyard knows \\(${SCHEMA_VERSION}\\): upgrade switchyard`,
      ),
    );
  });

  it("brings a file of the first schema version up to date, keeping what it holds", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-store-"));
    const target = path.join(dir, "v1.db");
    const db = openSqlite(target);
    for (const statement of MIGRATIONS[0]!) db.exec(statement);
    db.exec(
      "CREATE TABLE switchyard_schema (version INTEGER NOT NULL); INSERT INTO switchyard_schema VALUES (1)",
    );
    db.prepare("INSERT INTO sessions VALUES ('old', 'a', 'a', 'kept', 1, ?)").run('{"messages":[]}');
    db.close();
    const store = await openStore({ path: target });
    expect((await store.session("old"))?.title).toBe("kept");
    const at = new Date().toISOString();
    await store.saveGatewaySession({ id: "g", user: "u", createdAt: at, usedAt: at, initialize: {} });
    expect((await store.gatewaySession("g"))?.user).toBe("u");
    await store.close();
    const check = openSqlite(target, { readonly: true });
    expect(check.prepare("SELECT version FROM switchyard_schema").all()).toEqual([
      { version: SCHEMA_VERSION },
    ]);
    check.close();
  });

  it("says which file it cannot open", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-store-"));
    await expect(openStore({ path: dir })).rejects.toMatchObject({
      code: "STORE_ERROR",
      message: expect.stringContaining(`cannot open the store ${dir}`),
    });
  });

  it("never loads the PostgreSQL driver (the built package, in a process of its own)", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-store-")), "s.db");
    const script = `import { createRequire } from "node:module";
      const { openStore } = await import(${JSON.stringify(`${ROOT}dist/index.js`)});
      const store = await openStore({ path: ${JSON.stringify(file)} });
      await store.append({ time: new Date().toISOString(), kind: "call", outcome: "ok" });
      await store.close();
      const cache = Object.keys(createRequire(${JSON.stringify(`${ROOT}dist/index.js`)}).cache);
      console.log(JSON.stringify([...new Set(cache.map((k) => /node_modules\\/(pg|better-sqlite3)\\//.exec(k)?.[1]).filter(Boolean))]));`;
    const loaded = execFileSync(NODE, ["--input-type=module", "-e", script], { encoding: "utf8" });
    // On a Node with node:sqlite, not better-sqlite3 either: nothing native.
    expect(JSON.parse(loaded)).toEqual(defaultSqliteEngine() === "node:sqlite" ? [] : ["better-sqlite3"]);
  });

  it("prints no SQLite experimental warning of its own, and lets the process's own warnings through", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-store-")), "s.db");
    const script = `const { openStore } = await import(${JSON.stringify(`${ROOT}dist/index.js`)});
      const store = await openStore({ path: ${JSON.stringify(file)} });
      await store.close();
      process.emitWarning("the host's own feature", "ExperimentalWarning");`;
    const run = spawnSync(NODE, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stderr).not.toContain("SQLite");
    expect(run.stderr).toContain("ExperimentalWarning: the host's own feature");
  });

  it("lives under $XDG_DATA_HOME, else ~/.local/share", () => {
    expect(defaultStorePath({ XDG_DATA_HOME: "/data" })).toBe("/data/switchyard/switchyard.db");
    expect(defaultStorePath({ XDG_DATA_HOME: "relative" })).toMatch(
      /\.local\/share\/switchyard\/switchyard\.db$/,
    );
  });
});
