// What a request does when its audit row cannot be written (`audit.onWriteError`), in the library, on a
// real SQLite store that refuses audit rows (a trigger another connection adds, as a full disk would):
// `fail` stops a request whose decision row is lost before anything is sent, and withholds the result
// of one whose call row is lost; `continue` lets them through, logs each loss as an error, and a gap
// row counts them once a row can be written again (or when the Switchyard closes).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store, Switchyard, verifyAudit } from "../../src/index.js";
import { openSqlite } from "../../src/store/sqlite-engine.js";
import { failureOf, memoryLogger, sdk } from "../helpers.js";

const opened: Array<Switchyard | Store> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

async function setup(config: Record<string, unknown>) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-audit-error-")), "switchyard.db");
  const store = await openStore({ path: file });
  opened.push(store);
  const { logger, lines } = memoryLogger();
  const yard = await Switchyard.connect({ mcpServers: { a: sdk() }, ...config }, { store, logger });
  opened.push(yard);
  let sent = 0;
  // Interceptors run once a request is admitted (its decision row written), just before it is sent.
  yard.use({
    before: () => {
      sent += 1;
      return undefined;
    },
  });
  const sql = (statement: string) => {
    const db = openSqlite(file);
    try {
      db.exec(statement);
    } finally {
      db.close();
    }
  };
  /** The disk fills up: audit rows (of `kind`, else every one) are refused. */
  const refuse = (kind?: string) =>
    sql(
      `CREATE TRIGGER no_room BEFORE INSERT ON audit ${kind ? `WHEN NEW.kind = '${kind}' ` : ""}BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
    );
  const room = () => sql("DROP TRIGGER no_room");
  const errors = () => lines().filter((line) => line.level === "error" || line.level === 50);
  return { yard, store, refuse, room, sent: () => sent, errors };
}

describe('audit.onWriteError: "fail" (the default)', () => {
  it("a request whose decision row cannot be written fails before it is sent", async () => {
    const { yard, store, refuse, room, sent } = await setup({ policy: { rules: [{ effect: "allow" }] } });
    refuse();
    const failure = await failureOf(yard.callTool("a_echo", { text: "hi" }));
    expect(failure.code).toBe("STORE_ERROR");
    expect(failure.message).toMatch(
      /^the decision row of a_echo \(call_\w+\) could not be written to the audit log \(.*database or disk is full\), so the request fails: nothing goes out without its audit row/,
    );
    expect(sent()).toBe(0);
    room();
    expect((await yard.callTool("a_echo", { text: "again" })).content).toEqual([
      { type: "text", text: "again" },
    ]);
    expect(sent()).toBe(1);
    // The lost row is marked: a gap row before the rows written once there was room again.
    expect((await store.audit()).map((row) => [row.kind, row.outcome, row.lost])).toEqual([
      ["gap", "lost", 1],
      ["decision", "allow", undefined],
      ["call", "ok", undefined],
    ]);
  });

  it("a call whose call row cannot be written: the caller gets STORE_ERROR, not the result", async () => {
    const { yard, refuse, sent } = await setup({});
    refuse("call");
    const failure = await failureOf(yard.callTool("a_echo", { text: "the result" }));
    expect(sent()).toBe(1); // it ran: its result is withheld
    expect(failure).toMatchObject({
      code: "STORE_ERROR",
      message: expect.stringMatching(
        /^the call row of a_echo \(call_\w+\) could not be written to the audit log/,
      ),
    });
    expect(failure.message).not.toContain("the result");
  });
});

describe('audit.onWriteError: "continue"', () => {
  it("lets requests through, logs each loss as an error, and a gap row counts them once there is room", async () => {
    const { yard, store, refuse, room, errors } = await setup({ audit: { onWriteError: "continue" } });
    const told: unknown[] = [];
    yard.observe((event) => {
      if (event.type === "audit_unwritten") told.push(event);
    });
    await yard.callTool("a_echo", { text: "one" });
    refuse();
    expect((await yard.callTool("a_echo", { text: "two" })).content).toEqual([{ type: "text", text: "two" }]);
    await yard.callTool("a_echo", { text: "three" });
    expect(errors().map((line) => line.msg)).toEqual([
      expect.stringMatching(
        /^AUDIT LOG: the call row of a_echo .* could not be written .*: 1 entry lost so far/,
      ),
      expect.stringMatching(/^AUDIT LOG: the call row of a_echo .*: 2 entries lost so far/),
    ]);
    expect(told).toEqual([
      expect.objectContaining({ kind: "call", name: "a_echo", lost: 1, onWriteError: "continue" }),
      expect.objectContaining({
        kind: "call",
        name: "a_echo",
        lost: 2,
        error: expect.stringContaining("disk is full"),
      }),
    ]);
    room();
    await yard.callTool("a_echo", { text: "four" });
    const rows = await store.audit();
    expect(rows.map((row) => [row.seq, row.kind, row.lost])).toEqual([
      [1, "call", undefined],
      [2, "gap", 2],
      [3, "call", undefined],
    ]);
    expect(rows[1]).toMatchObject({
      outcome: "lost",
      summary: expect.stringContaining("database or disk is full"),
    });
    const verified = await verifyAudit(store);
    expect(verified.ok).toBe(false);
    expect(verified.problems).toEqual([
      {
        seq: 2,
        kind: "gap",
        message: expect.stringMatching(
          /^row 2: 2 audit entries were not written from \S+ to \S+ \(audit\.onWriteError: continue\)/,
        ),
      },
    ]);
  });

  it("writes the gap row still owed when the Switchyard closes", async () => {
    const { yard, store, refuse, room } = await setup({ audit: { onWriteError: "continue" } });
    refuse();
    await yard.callTool("a_echo", { text: "lost" });
    room();
    await yard.close();
    expect((await store.audit()).map((row) => [row.kind, row.lost])).toEqual([["gap", 1]]);
  });
});
