// One suite for every store: sqlite.test.ts and postgres.test.ts run it against a real database each.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { type Store, type SwitchyardEvent, verifyAudit } from "../../src/index.js";
import type { StoreOptions } from "../../src/store/store.js";
import type { AuditEntry } from "../../src/telemetry/audit.js";
import { AUDIT_GENESIS_HASH, auditHash, canonicalJson } from "../../src/telemetry/audit.js";
import { NODE, ROOT } from "../helpers.js";

/** A store to test, and a way in to its database behind its back. */
export interface OpenedStore {
  store: Store;
  /** The file, or the PostgreSQL URL (what `openStore` and the appender take). */
  target: string;
  /** Run SQL on the database directly (to tamper with it). */
  exec(sql: string): Promise<void>;
  /** Open the same database again (another connection), with these options (an audit key). */
  reopen(options?: StoreOptions): Promise<Store>;
}

export type FreshStore = () => Promise<OpenedStore>;

const APPENDER = `${ROOT}test/store/appender.mjs`;

function entry(n: number, extra: Partial<AuditEntry> = {}): AuditEntry {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    kind: "call",
    identity: { user: "ada", roles: ["ops"] },
    server: "orders",
    tool: "query",
    name: "orders_query",
    arguments: { customer: `C${n}`, nested: { b: 2, a: 1 } },
    outcome: "ok",
    summary: `row ${n}`,
    ms: n,
    runId: `run_${n}`,
    callId: `call_${n}`,
    ...extra,
  };
}

/** One agent run's events, as the agent reports them, and a plain call's. */
function agentRun(runId: string): SwitchyardEvent[] {
  return [
    {
      type: "run_started",
      runId,
      kind: "agent",
      time: "2026-01-01T00:00:00.000Z",
      input: "where is my order?",
    },
    {
      type: "step_started",
      runId,
      step: 1,
      tools: 2,
      ...{ offered: [{ name: "orders_query", score: 3.5 }, { name: "orders_track" }] },
    } as SwitchyardEvent,
    {
      type: "model_answered",
      runId,
      step: 1,
      ms: 12.5,
      toolCalls: 2,
      text: "Let me look.",
      tokens: { input: 100, output: 20 },
    },
    {
      type: "call_started",
      runId,
      step: 1,
      id: "c1",
      name: "orders_query",
      server: "orders",
      tool: "query",
      arguments: '{"customer":"C1"}',
    },
    {
      type: "call_finished",
      runId,
      step: 1,
      id: "c1",
      name: "orders_query",
      server: "orders",
      tool: "query",
      ok: true,
      ms: 3.25,
    },
    {
      type: "call_finished",
      runId,
      step: 1,
      id: "c2",
      name: "orders_drop",
      ok: false,
      ms: 0,
      error: { code: "REFUSED", message: "not offered at this step" },
    },
    { type: "step_started", runId, step: 2, tools: 2 },
    {
      type: "model_answered",
      runId,
      step: 2,
      ms: 8,
      toolCalls: 0,
      text: "It ships today.",
      tokens: { input: 150, output: 10 },
    },
    { type: "answer", runId, step: 2, text: "It ships today." },
    {
      type: "run_finished",
      runId,
      record: {
        id: runId,
        kind: "agent",
        startedAt: "2026-01-01T00:00:00.000Z",
        ms: 40,
        outcome: "answer",
        steps: [],
        calls: [],
        tokens: { input: 250, output: 30 },
      },
    },
  ];
}

export function storeSuite(name: string, fresh: FreshStore | undefined, skipReason?: string): void {
  const suite = fresh ? describe : describe.skip;
  suite(`${name} store${fresh ? "" : ` — SKIPPED: ${skipReason}`}`, () => {
    const open: Store[] = [];
    const children: ChildProcess[] = [];
    afterEach(async () => {
      for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
      await Promise.all(open.splice(0).map((store) => store.close()));
    });
    const start = async () => {
      const opened = await fresh!();
      open.push(opened.store);
      return opened;
    };

    it("says the audit log's head row is missing, on verify and on append, rather than failing obscurely", async () => {
      const { store, exec } = await start();
      await store.append(entry(1));
      await exec("DELETE FROM audit_head");
      const missing = /audit log's head row \(table audit_head\) is missing.*restore the database/;
      await expect(verifyAudit(store)).rejects.toMatchObject({
        code: "STORE_ERROR",
        message: expect.stringMatching(missing),
      });
      await expect(store.append(entry(2))).rejects.toMatchObject({
        code: "STORE_ERROR",
        message: expect.stringMatching(missing),
      });
    });

    it("keeps tool pins (replaced by server and tool) and each server's latest findings, across connections", async () => {
      const { store, reopen } = await start();
      const definition = {
        name: "send_mail",
        description: "Send a mail",
        inputSchema: { type: "object", properties: { to: { type: "string" } } },
        annotations: { destructiveHint: true },
      };
      const pin = {
        server: "mail",
        tool: "send_mail",
        fingerprint: "f1",
        definition,
        pinnedAt: "2026-12-01T00:00:00.000Z",
      };
      await store.savePins([pin, { ...pin, server: "notes", tool: "add", definition: { name: "add" } }]);
      await store.savePins([{ ...pin, fingerprint: "f2", trusted: true }]);
      const finding = {
        server: "mail",
        tool: "send_mail",
        kind: "injection" as const,
        severity: "high" as const,
        detail: "an <IMPORTANT> block that gives orders",
        where: "description",
        foundAt: "2026-12-01T00:00:01.000Z",
        quarantined: true,
      };
      await store.saveFindings("mail", [
        finding,
        { ...finding, tool: "other", severity: "low" as const, quarantined: false },
      ]);
      await store.saveFindings("mail", [finding]);
      await store.saveFindings("notes", []);
      const again = await reopen();
      open.push(again);
      expect(await again.loadPins()).toEqual([
        { ...pin, fingerprint: "f2", trusted: true },
        { ...pin, server: "notes", tool: "add", definition: { name: "add" } },
      ]);
      expect(await again.findings()).toEqual([finding]);
    });

    it("records a run as its events come, and reads it back as a timeline", async () => {
      const { store } = await start();
      const events = agentRun("run_a");
      // Event by event, as the recorder writes them when each comes in its own turn of the event loop.
      for (const event of events.slice(0, 5)) await store.record([event]);
      const partial = await store.run("run_a");
      expect(partial).toMatchObject({
        id: "run_a",
        finished: false,
        outcome: "running",
        stepCount: 1,
        callCount: 1,
      });
      await store.record(events.slice(5));
      const run = await store.run("run_a");
      expect(run).toMatchObject({
        id: "run_a",
        kind: "agent",
        input: "where is my order?",
        finished: true,
        outcome: "answer",
        ms: 40,
        tokens: { input: 250, output: 30 },
        answer: "It ships today.",
        stepCount: 2,
        callCount: 2,
      });
      expect(run!.steps).toEqual([
        expect.objectContaining({
          step: 1,
          tools: 2,
          offered: [{ name: "orders_query", score: 3.5 }, { name: "orders_track" }],
          modelMs: 12.5,
          toolCalls: 2,
          tokens: { input: 100, output: 20 },
          text: "Let me look.",
        }),
        expect.objectContaining({ step: 2, tools: 2, toolCalls: 0, text: "It ships today." }),
      ]);
      expect(run!.steps[1]!.offered).toBeUndefined();
      expect(run!.calls).toEqual([
        expect.objectContaining({
          id: "c1",
          step: 1,
          name: "orders_query",
          server: "orders",
          tool: "query",
          arguments: '{"customer":"C1"}',
          ok: true,
          ms: 3.25,
        }),
        expect.objectContaining({
          id: "c2",
          name: "orders_drop",
          ok: false,
          error: { code: "REFUSED", message: "not offered at this step" },
        }),
      ]);
      expect(run!.calls[1]!.startedAt).toBeUndefined();
      expect(await store.run("run_missing")).toBeUndefined();
    });

    it("lists runs newest first, a plain call as a run of its own, within the limit", async () => {
      const { store } = await start();
      await store.record(agentRun("run_a"));
      await store.record([
        {
          type: "call_started",
          id: "call_x",
          name: "orders_query",
          server: "orders",
          tool: "query",
          arguments: "{}",
        },
        {
          type: "call_finished",
          id: "call_x",
          name: "orders_query",
          server: "orders",
          tool: "query",
          ok: false,
          ms: 5,
          error: { code: "TIMEOUT", message: "too slow" },
        },
      ]);
      const runs = await store.runs();
      expect(runs.map((run) => [run.id, run.kind, run.outcome])).toEqual([
        ["call_x", "call", "TIMEOUT"],
        ["run_a", "agent", "answer"],
      ]);
      expect(runs[0]).toMatchObject({
        callCount: 1,
        stepCount: 0,
        error: { code: "TIMEOUT" },
        input: "orders_query",
      });
      expect(await store.runs({ limit: 1 })).toHaveLength(1);
    });

    it("keeps the id of the task a call ran as (issue 28)", async () => {
      const { store } = await start();
      await store.record([
        {
          type: "call_started",
          id: "call_t",
          name: "jobs_crunch",
          server: "jobs",
          tool: "crunch",
          arguments: "{}",
        },
        {
          type: "call_finished",
          id: "call_t",
          name: "jobs_crunch",
          server: "jobs",
          tool: "crunch",
          taskId: "task-7",
          ok: true,
          ms: 1500,
        },
      ]);
      expect((await store.run("call_t"))!.calls).toEqual([
        expect.objectContaining({ id: "call_t", taskId: "task-7", ok: true }),
      ]);
    });

    it("keeps a task's id as soon as the server created it, before the call ends (issue 28)", async () => {
      const { store } = await start();
      await store.record([
        { type: "run_started", runId: "run_t", kind: "plan", time: new Date().toISOString() },
        {
          type: "call_started",
          runId: "run_t",
          id: "render",
          name: "jobs_render",
          server: "jobs",
          tool: "render",
          arguments: "{}",
        },
      ]);
      await store.record([
        {
          type: "call_task",
          runId: "run_t",
          id: "render",
          name: "jobs_render",
          server: "jobs",
          tool: "render",
          taskId: "task-9",
        },
      ]);
      const [call] = (await store.run("run_t"))!.calls;
      expect(call).toMatchObject({ id: "render", server: "jobs", tool: "render", taskId: "task-9" });
      expect(call!.ok).toBeUndefined();
    });

    it("keeps what another connection wrote, and opening again migrates nothing twice", async () => {
      const { store, reopen } = await start();
      await store.record(agentRun("run_a"));
      const again = await reopen();
      open.push(again);
      expect((await again.run("run_a"))?.outcome).toBe("answer");
    });

    it("saves a session after each turn and gives it back to resume from", async () => {
      const { store } = await start();
      await store.record(agentRun("run_a"));
      const messages = [
        { role: "user", content: "where is my order?\nIt is C1." },
        { role: "assistant", content: "It ships today." },
      ];
      await store.saveSession("sess_1", { messages }, "run_a");
      const longer = [
        ...messages,
        { role: "user", content: "and the next?" },
        { role: "assistant", content: "Tomorrow." },
      ];
      await store.saveSession("sess_1", {
        messages: longer,
        handles: [{ id: "r1", tool: "orders_query", text: "x".repeat(5000) }],
      });
      const session = await store.session("sess_1");
      expect(session).toMatchObject({
        id: "sess_1",
        title: "where is my order?",
        turns: 2,
        messages: longer,
      });
      expect(session!.handles).toEqual([{ id: "r1", tool: "orders_query", text: "x".repeat(5000) }]);
      expect((await store.run("run_a"))?.sessionId).toBe("sess_1");
      expect((await store.sessions()).map((s) => s.id)).toEqual(["sess_1"]);
      expect(await store.session("sess_none")).toBeUndefined();
    });

    it("chains audit rows: numbered from 1, each hashing the one before, and verifies", async () => {
      const { store } = await start();
      const first = await store.append(entry(1));
      const second = await store.append(entry(2, { kind: "decision", outcome: "allow", rule: "rules[0]" }));
      expect(first.seq).toBe(1);
      expect(first.prevHash).toBe(AUDIT_GENESIS_HASH);
      expect(first.hash).toBe(auditHash(AUDIT_GENESIS_HASH, { ...entry(1), seq: 1 }));
      expect(second).toMatchObject({ seq: 2, prevHash: first.hash, rule: "rules[0]" });
      expect(await store.audit()).toEqual([first, second]);
      expect(await store.audit({ last: 1 })).toEqual([second]);
      expect(await store.audit({ afterSeq: 1 })).toEqual([second]);
      expect(await store.auditHead()).toEqual({ seq: 2, hash: second.hash });
      const records = await store.auditRecords();
      expect(records[0]!.entry).toBe(canonicalJson({ ...entry(1), seq: 1 }));
      expect(await verifyAudit(store)).toEqual({
        ok: true,
        rows: 2,
        head: { seq: 2, hash: second.hash },
        problems: [],
      });
    });

    it("refuses a malformed audit entry, naming what is wrong", async () => {
      const { store } = await start();
      await expect(store.append({ ...entry(1), kind: "other" as "call" })).rejects.toThrow(/kind must be/);
      await expect(store.append({ ...entry(1), time: "yesterday" })).rejects.toThrow(
        /time must be an ISO 8601/,
      );
      expect(await store.auditHead()).toEqual({ seq: 0, hash: AUDIT_GENESIS_HASH });
    });

    it("takes a burst of appends, a malformed one among them: each gets its own place, in order", async () => {
      const { store } = await start();
      const burst = Array.from({ length: 600 }, (_, i) =>
        store.append(i === 300 ? { ...entry(i), kind: "other" as "call" } : entry(i)),
      );
      const settled = await Promise.allSettled(burst);
      expect(settled[300]!.status).toBe("rejected");
      const rows = settled.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: 599 }, (_, i) => i + 1));
      expect(rows.map((row) => row.time)).toEqual(
        Array.from({ length: 600 }, (_, i) => entry(i).time).filter((_, i) => i !== 300),
      );
      expect((await verifyAudit(store)).ok).toBe(true);
    });

    it("never forks the chain with two processes appending at once", async () => {
      const { store, target } = await start();
      const [a, b] = await Promise.all([appender(target, 60, "a"), appender(target, 60, "b")]);
      expect([a, b]).toEqual([0, 0]);
      const rows = await store.audit();
      expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
      expect(new Set(rows.map((row) => row.server))).toEqual(new Set(["a", "b"]));
      const verified = await verifyAudit(store);
      expect(verified.problems).toEqual([]);
      expect(verified.rows).toBe(120);
    });

    it("keeps a chain that verifies when an appending process is killed (SIGKILL)", async () => {
      const { store, target } = await start();
      const child = spawn(NODE, [APPENDER, target, "0", "k"], { stdio: ["ignore", "pipe", "inherit"] });
      children.push(child);
      await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
      // Let it append a while, then kill it wherever it is.
      const before = (await store.auditHead()).seq;
      while ((await store.auditHead()).seq < before + 50)
        await new Promise((resolve) => setTimeout(resolve, 5));
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
      const verified = await verifyAudit(store);
      expect(verified.problems).toEqual([]);
      expect(verified.rows).toBeGreaterThanOrEqual(50);
      // The next append follows the last row the killed process committed.
      const next = await store.append(entry(1));
      expect(next.seq).toBe(verified.rows + 1);
      expect((await verifyAudit(store)).ok).toBe(true);
    });

    it("keeps what a call answered and what the model was given for it", async () => {
      const { store } = await start();
      const at = "2026-01-01T00:00:00.000Z";
      await store.record([
        { type: "run_started", runId: "run_r", kind: "agent", time: at, input: "q" },
        {
          type: "call_started",
          runId: "run_r",
          step: 1,
          id: "c1",
          name: "a_b",
          server: "a",
          tool: "b",
          arguments: "{}",
        },
        {
          type: "call_finished",
          runId: "run_r",
          step: 1,
          id: "c1",
          name: "a_b",
          ok: true,
          ms: 1,
          result: '{"rows":[1,2,3]}',
        },
        { type: "call_shaped", runId: "run_r", step: 1, id: "c1", text: '{"rows":[1,"… 2 more"]}' },
      ]);
      const [call] = (await store.run("run_r"))!.calls;
      expect(call).toMatchObject({ result: '{"rows":[1,2,3]}', shaped: '{"rows":[1,"… 2 more"]}' });
      // A later report of the same call without a result (the agent's own) keeps the one recorded.
      await store.record([
        { type: "call_finished", runId: "run_r", step: 1, id: "c1", name: "a_b", ok: true, ms: 1 },
      ]);
      expect((await store.run("run_r"))!.calls[0]?.result).toBe('{"rows":[1,2,3]}');
    });

    it("keeps the gateway's sessions: saved, read back, touched, dropped, and the idle ones pruned", async () => {
      const { store } = await start();
      const initialize = {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25" },
      };
      const at = (hours: number) => new Date(Date.UTC(2026, 0, 1, hours)).toISOString();
      await store.saveGatewaySession({ id: "s1", user: "ana", createdAt: at(0), usedAt: at(0), initialize });
      await store.saveGatewaySession({ id: "s2", user: "bo", createdAt: at(0), usedAt: at(1), initialize });
      expect(await store.gatewaySession("s1")).toEqual({
        id: "s1",
        user: "ana",
        createdAt: at(0),
        usedAt: at(0),
        initialize,
      });
      // Saved again (another replica began it at the same moment): it stays as it was but for its last use.
      await store.saveGatewaySession({
        id: "s1",
        user: "ana",
        createdAt: at(5),
        usedAt: at(2),
        initialize: {},
      });
      expect(await store.gatewaySession("s1")).toMatchObject({ createdAt: at(0), usedAt: at(2), initialize });
      await store.touchGatewaySession("s2", at(3));
      expect((await store.gatewaySession("s2"))?.usedAt).toBe(at(3));
      expect(await store.gatewaySession("nope")).toBeUndefined();
      // Dropping one prunes every session unused since the cut-off too.
      await store.saveGatewaySession({ id: "s3", user: "cy", createdAt: at(0), usedAt: at(0), initialize });
      await store.dropGatewaySession("s2", at(1));
      expect(await store.gatewaySession("s2")).toBeUndefined();
      expect(await store.gatewaySession("s3")).toBeUndefined();
      expect(await store.gatewaySession("s1")).toBeDefined();
    });

    it("counts a user's unexpired gateway sessions, the one unused longest first, and prunes the expired", async () => {
      const { store } = await start();
      const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: {} };
      const at = (hours: number) => new Date(Date.UTC(2026, 0, 1, hours)).toISOString();
      const save = (id: string, user: string, hours: number) =>
        store.saveGatewaySession({ id, user, createdAt: at(0), usedAt: at(hours), initialize });
      await save("a3", "ana", 3);
      await save("a1", "ana", 1);
      await save("a5", "ana", 5);
      await save("b4", "bo", 4);
      expect(await store.gatewaySessionsOf("ana", at(2))).toEqual([
        { id: "a3", usedAt: at(3) },
        { id: "a5", usedAt: at(5) },
      ]);
      expect(await store.gatewaySessionsOf("cy", at(0))).toEqual([]);
      await store.pruneGatewaySessions(at(4));
      expect(await store.gatewaySessionsOf("ana", at(0))).toEqual([{ id: "a5", usedAt: at(5) }]);
      expect(await store.gatewaySessionsOf("bo", at(0))).toEqual([{ id: "b4", usedAt: at(4) }]);
    });

    describe("audit verify finds each kind of tampering", () => {
      async function logOf(rows: number) {
        const opened = await start();
        for (let n = 1; n <= rows; n++) await opened.store.append(entry(n));
        return opened;
      }

      it("an edited row (its content, or a column beside it)", async () => {
        const { store, exec } = await logOf(5);
        await exec(
          'UPDATE audit SET entry = replace(entry, \'"outcome":"ok"\', \'"outcome":"deny"\') WHERE seq = 3',
        );
        await exec("UPDATE audit SET kind = 'decision' WHERE seq = 4");
        const { ok, problems } = await verifyAudit(store);
        expect(ok).toBe(false);
        expect(problems).toEqual([
          { seq: 3, kind: "edited", message: "row 3: its content does not match its hash (edited)" },
          {
            seq: 4,
            kind: "edited",
            message: 'row 4: its kind column says "decision", the hashed entry "call" (edited)',
          },
        ]);
      });

      it("an edited row whose hash was computed again", async () => {
        const { store, exec } = await logOf(4);
        const [row] = await store.auditRecords({ afterSeq: 1, limit: 1 });
        const forged = row!.entry.replace('"outcome":"ok"', '"outcome":"deny"');
        const hash = auditHash(row!.prevHash, JSON.parse(forged));
        await exec(`UPDATE audit SET entry = '${forged}', hash = '${hash}' WHERE seq = 2`);
        const { problems } = await verifyAudit(store);
        expect(problems).toEqual([
          expect.objectContaining({
            seq: 3,
            kind: "inserted",
            message: expect.stringContaining("row 3 does not follow row 2"),
          }),
        ]);
      });

      it("a deleted row, and deleted rows at the end", async () => {
        const { store, exec } = await logOf(6);
        await exec("DELETE FROM audit WHERE seq = 3");
        await exec("DELETE FROM audit WHERE seq >= 5");
        const { problems } = await verifyAudit(store);
        expect(problems).toEqual([
          { seq: 3, kind: "deleted", message: "row 3 is missing (deleted)" },
          {
            seq: 5,
            kind: "deleted",
            message: "rows 5–6 are missing from the end: the last append was row 6 (deleted)",
          },
        ]);
      });

      it("a deleted row with the rows after it renumbered", async () => {
        const { store, exec } = await logOf(5);
        await exec("DELETE FROM audit WHERE seq = 2");
        await exec("UPDATE audit SET seq = seq + 1000 WHERE seq > 2");
        await exec("UPDATE audit SET seq = seq - 1001 WHERE seq > 1000");
        await exec("UPDATE audit_head SET seq = 4");
        const { problems } = await verifyAudit(store);
        expect(problems[0]).toEqual({
          seq: 2,
          kind: "reordered",
          message: "rows 2–4: written as rows 3–5 (renumbered: rows before them were deleted)",
        });
      });

      it("an inserted row (between two, and after the last)", async () => {
        const { store, exec } = await logOf(5);
        const [second] = await store.auditRecords({ afterSeq: 1, limit: 1 });
        await exec("UPDATE audit SET seq = seq + 1000 WHERE seq >= 3");
        await exec("UPDATE audit SET seq = seq - 999 WHERE seq > 1000");
        const forgedEntry = { ...entry(99), seq: 3 };
        const text = canonicalJson(forgedEntry);
        await exec(
          `INSERT INTO audit (seq, time, kind, run_id, entry, prev_hash, hash) VALUES (3, '${forgedEntry.time}', 'call', 'run_99', '${text}', '${second!.hash}', '${auditHash(second!.hash, forgedEntry)}')`,
        );
        const { problems } = await verifyAudit(store);
        expect(problems).toEqual([
          {
            seq: 4,
            kind: "reordered",
            message: "rows 4–6: written as rows 3–5 (renumbered: a row was inserted before them)",
          },
          {
            seq: 6,
            kind: "inserted",
            message: "row 6 is after the last row the store appended (row 5): inserted",
          },
        ]);
      });

      it("reordered rows", async () => {
        const { store, exec } = await logOf(4);
        await exec("UPDATE audit SET seq = 102 WHERE seq = 2");
        await exec("UPDATE audit SET seq = 2 WHERE seq = 3");
        await exec("UPDATE audit SET seq = 3 WHERE seq = 102");
        const { problems } = await verifyAudit(store);
        expect(problems).toEqual([
          { seq: 2, kind: "reordered", message: "row 2: it was written as row 3 (moved or renumbered)" },
          { seq: 3, kind: "reordered", message: "row 3: it was written as row 2 (moved or renumbered)" },
        ]);
      });
    });
  });
}

/** Run the appender fixture; resolves with its exit code. */
function appender(target: string, count: number, label: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [APPENDER, target, String(count), label], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.once("exit", (code) => resolve(code));
  });
}
