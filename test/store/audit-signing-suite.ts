// The audit log signed with a key kept outside the database (`audit.key`) and anchored by a checkpoint
// (`switchyard audit checkpoint`), against every store: the six rewrites a bare hash chain cannot tell
// — each re-hashes what it changes and sets the head to match — are told with the key and/or the
// checkpoint. sqlite.test.ts and postgres.test.ts run it against a real database each.
import { afterEach, describe, expect, it } from "vitest";
import { type AuditCheckpoint, auditCheckpoint, type Store, verifyAudit } from "../../src/index.js";
import { headMac } from "../../src/store/audit-chain.js";
import type { StoredAuditRecord } from "../../src/store/store.js";
import {
  AUDIT_GENESIS_HASH,
  type AuditEntry,
  auditMac,
  auditTextHash,
  canonicalJson,
} from "../../src/telemetry/audit.js";
import type { FreshStore, OpenedStore } from "./store-suite.js";

const KEY = "k3y-kept-outside-the-database-0123456789";

function entry(n: number): AuditEntry {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    kind: "call",
    identity: { user: "ada", roles: ["ops"] },
    server: "orders",
    tool: "query",
    name: "orders_query",
    arguments: { customer: `C${n}` },
    outcome: "ok",
    runId: `run_${n}`,
    callId: `call_${n}`,
  };
}

export function auditSigningSuite(name: string, fresh: FreshStore | undefined, skipReason?: string): void {
  const suite = fresh ? describe : describe.skip;
  suite(`${name} store: the audit log signed and anchored${fresh ? "" : ` — SKIPPED: ${skipReason}`}`, () => {
    const open: Store[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((store) => store.close()));
    });

    /** Six rows appended with the key, and a signed checkpoint of them. */
    async function signedLog(): Promise<OpenedStore & { keyed: Store; checkpoint: AuditCheckpoint }> {
      const opened = await fresh!();
      open.push(opened.store);
      const keyed = await opened.reopen({ auditKey: KEY });
      open.push(keyed);
      for (let n = 1; n <= 6; n++) await keyed.append(entry(n));
      const checkpoint = auditCheckpoint(await keyed.auditHead(), 6, opened.target, KEY);
      return { ...opened, keyed, checkpoint };
    }

    /**
     * Rewrite rows from `from` on as a forger without the key would: each row's entry through `edit`
     * (undefined: dropped), renumbered from `from`, hashed again and chained; the head set to match.
     * Signatures are left as they were (the forger cannot make new ones).
     */
    async function rewrite(
      opened: OpenedStore & { keyed: Store },
      from: number,
      edit: (entry: Record<string, unknown>) => Record<string, unknown> | undefined,
    ): Promise<void> {
      const records = await opened.keyed.auditRecords();
      let previous = records.find((record) => record.seq === from - 1)?.hash ?? AUDIT_GENESIS_HASH;
      let seq = from;
      const statements = [`DELETE FROM audit WHERE seq >= ${from}`];
      for (const record of records.filter((row) => row.seq >= from)) {
        const edited = edit(JSON.parse(record.entry) as Record<string, unknown>);
        if (!edited) continue;
        const text = canonicalJson({ ...edited, seq });
        const hash = auditTextHash(previous, text);
        statements.push(insert({ ...record, seq, entry: text, prevHash: previous, hash }));
        previous = hash;
        seq += 1;
      }
      statements.push(`UPDATE audit_head SET seq = ${seq - 1}, hash = '${previous}' WHERE id = 1`);
      for (const statement of statements) await opened.exec(statement);
    }

    it("signs each row and the head; a log appended to, then verified, with the key is ok", async () => {
      const { keyed, checkpoint } = await signedLog();
      const head = await keyed.auditHead();
      expect(head.mac).toBe(headMac(KEY, head));
      for (const record of await keyed.auditRecords())
        expect(record.mac).toBe(auditMac(KEY, "row", record.hash));
      expect(checkpoint).toMatchObject({ switchyardAuditCheckpoint: 1, seq: 6, rows: 6, hash: head.hash });
      await keyed.append(entry(7));
      expect(await verifyAudit(keyed, { key: KEY, checkpoint })).toMatchObject({ ok: true, rows: 7 });
      // Another key, or a checkpoint edited: said so.
      const other = await verifyAudit(keyed, { key: `${KEY}-other` });
      expect(other.problems.map((problem) => problem.kind)).toEqual(["forged", "forged"]);
      const edited = await verifyAudit(keyed, { key: KEY, checkpoint: { ...checkpoint, rows: 5 } });
      expect(edited.problems).toEqual([
        expect.objectContaining({
          kind: "checkpoint",
          message: expect.stringContaining("not signed with audit.key"),
        }),
      ]);
    });

    it("tail cut and head rewritten: told by the key (the head's signature) and the checkpoint", async () => {
      const opened = await signedLog();
      const [fourth] = await opened.keyed.auditRecords({ afterSeq: 3, limit: 1 });
      await opened.exec("DELETE FROM audit WHERE seq >= 5");
      // The forger copies row 4's own signature as the head's: a row's is not valid as a head's.
      await opened.exec(
        `UPDATE audit_head SET seq = 4, hash = '${fourth!.hash}', mac = '${fourth!.mac}' WHERE id = 1`,
      );
      const { keyed, checkpoint } = opened;
      expect((await verifyAudit(keyed)).ok).toBe(true); // the bare chain cannot tell
      expect(kinds(await verifyAudit(keyed, { key: KEY }))).toEqual(["forged"]);
      expect(await verifyAudit(keyed, { key: KEY, checkpoint })).toMatchObject({
        ok: false,
        problems: expect.arrayContaining([
          expect.objectContaining({
            kind: "checkpoint",
            message: expect.stringContaining("row 6 is gone, the log has 4 rows"),
          }),
        ]),
      });
    });

    it("wiped: told by the checkpoint (an empty log is no different from a new one to the key)", async () => {
      const opened = await signedLog();
      await opened.exec("DELETE FROM audit");
      await opened.exec(
        `UPDATE audit_head SET seq = 0, hash = '${AUDIT_GENESIS_HASH}', mac = NULL WHERE id = 1`,
      );
      const { keyed, checkpoint } = opened;
      expect((await verifyAudit(keyed)).ok).toBe(true);
      expect((await verifyAudit(keyed, { key: KEY })).ok).toBe(true);
      expect(kinds(await verifyAudit(keyed, { key: KEY, checkpoint }))).toEqual(["checkpoint"]);
    });

    it("the whole chain rewritten: told by the key (every signature) and the checkpoint", async () => {
      const opened = await signedLog();
      await rewrite(opened, 1, (row) => ({ ...row, outcome: "deny" }));
      const { keyed, checkpoint } = opened;
      expect((await verifyAudit(keyed)).ok).toBe(true);
      const verified = await verifyAudit(keyed, { key: KEY, checkpoint });
      expect(verified.problems).toEqual([
        {
          seq: 1,
          kind: "forged",
          message: expect.stringContaining("rows 1–6 are not signed with audit.key"),
        },
        {
          seq: 6,
          kind: "forged",
          message: expect.stringContaining("the head (row 6) is not signed with audit.key"),
        },
        { seq: 6, kind: "checkpoint", message: expect.stringContaining("the log was rewritten up to it") },
      ]);
    });

    it("a row deleted and the rest renumbered and re-hashed: told by the key and the checkpoint", async () => {
      const opened = await signedLog();
      await rewrite(opened, 3, (row) => (row.callId === "call_3" ? undefined : row));
      const { keyed, checkpoint } = opened;
      expect((await verifyAudit(keyed)).ok).toBe(true);
      expect(kinds(await verifyAudit(keyed, { key: KEY }))).toEqual(["forged", "forged"]);
      expect(kinds(await verifyAudit(keyed, { key: KEY, checkpoint }))).toContain("checkpoint");
    });

    it("a forged row appended (hashed, the head moved): told by the key", async () => {
      const opened = await signedLog();
      const [last] = await opened.keyed.auditRecords({ last: 1 });
      const text = canonicalJson({ ...entry(7), outcome: "ok", seq: 7 });
      const hash = auditTextHash(last!.hash, text);
      await opened.exec(
        insert({
          seq: 7,
          time: entry(7).time,
          kind: "call",
          runId: "run_7",
          entry: text,
          prevHash: last!.hash,
          hash,
        }),
      );
      await opened.exec(`UPDATE audit_head SET seq = 7, hash = '${hash}' WHERE id = 1`);
      const { keyed, checkpoint } = opened;
      expect((await verifyAudit(keyed)).ok).toBe(true);
      expect((await verifyAudit(keyed, { key: KEY, checkpoint })).problems).toEqual([
        {
          seq: 7,
          kind: "forged",
          message: expect.stringContaining("row 7 is not signed, though rows before are"),
        },
        {
          seq: 7,
          kind: "forged",
          message: expect.stringContaining("the head (row 7) is not signed with audit.key"),
        },
      ]);
    });

    it("the last row rewritten with the head: told by the key and the checkpoint", async () => {
      const opened = await signedLog();
      await rewrite(opened, 6, (row) => ({ ...row, outcome: "deny" }));
      const { keyed, checkpoint } = opened;
      expect((await verifyAudit(keyed)).ok).toBe(true);
      expect(kinds(await verifyAudit(keyed, { key: KEY }))).toEqual(["forged", "forged"]);
      expect(kinds(await verifyAudit(keyed, { key: KEY, checkpoint }))).toEqual([
        "forged",
        "forged",
        "checkpoint",
      ]);
    });

    it("rows written before the key was set are not asked to be signed; a signed checkpoint needs the key", async () => {
      const opened = await fresh!();
      open.push(opened.store);
      await opened.store.append(entry(1));
      const keyed = await opened.reopen({ auditKey: KEY });
      open.push(keyed);
      await keyed.append(entry(2));
      expect(await verifyAudit(keyed, { key: KEY })).toMatchObject({ ok: true, rows: 2 });
      // A writer without the key after it: its rows are not signed, and said so.
      await opened.store.append(entry(3));
      expect(kinds(await verifyAudit(keyed, { key: KEY }))).toEqual(["forged", "forged"]);
      const checkpoint = auditCheckpoint(await keyed.auditHead(), 3, opened.target, KEY);
      await expect(verifyAudit(keyed, { checkpoint })).rejects.toMatchObject({
        code: "INVALID_INPUT",
        message: expect.stringContaining("the checkpoint is signed"),
      });
    });
  });
}

function kinds(verified: { problems: Array<{ kind: string }> }): string[] {
  return verified.problems.map((problem) => problem.kind);
}

/** The INSERT of an audit row, with the signature it is given (the forger cannot make one). */
function insert(record: StoredAuditRecord): string {
  const runId = record.runId === null ? "NULL" : `'${record.runId}'`;
  const mac = record.mac === undefined ? "NULL" : `'${record.mac}'`;
  return `INSERT INTO audit (seq, time, kind, run_id, entry, prev_hash, hash, mac) VALUES (${record.seq}, '${record.time}', '${record.kind}', ${runId}, '${record.entry}', '${record.prevHash}', '${record.hash}', ${mac})`;
}
