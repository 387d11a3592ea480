// The recorder's cost per call (issue 14): sequential `echo` calls through `Switchyard.connect(config,
// { store })` over one stdio server each, side by side with recording off — a SQLite file, the same
// with a policy (so the policy step writes a decision row and a call row per call), and PostgreSQL
// (SWITCHYARD_TEST_POSTGRES_URL) with and without the policy. Variants take turns in blocks, a
// different one first each round. Each call is timed alone (what the caller waits for); each block is
// also timed until every write it caused is done (PostgreSQL's go on after the call has returned).
// Everything it creates — the SQLite folder, the PostgreSQL schema — is removed at the end, and checked.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { openStore, type Store, Switchyard } from "switchyard";
import type { Row, ScenarioResult } from "../report.js";
import { SDK_SERVER } from "../servers/servers.js";
import { median, percentile, type RoundPolicy, rotate, runRounds } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

export interface RecorderBenchOptions {
  id: string;
  title: string;
  /** Calls per variant per round. */
  block: number;
  /** Calls per variant before timing starts. */
  warmup: number;
  policy: RoundPolicy;
}

/** The variable the PostgreSQL rows need: a database the bench may create a schema in. */
export const POSTGRES_URL_VAR = "SWITCHYARD_TEST_POSTGRES_URL";
const TEMP_PREFIX = "switchyard-bench-recorder-";
const POLICY = { rules: [{ id: "bench-echo", effect: "allow" as const, tools: ["echo"] }] };

interface Variant {
  id: string;
  label: string;
  /** Opens the store; none: recording off. */
  store?: () => Promise<Store>;
  policy: boolean;
  /** Why the variant did not run. */
  skipped?: string;
}

/**
 * A store whose writes can be waited for: the real one, with each write's promise kept until it
 * settles, and the time spent inside `record` and `append` until they return (SQLite's whole write;
 * PostgreSQL's hand-over to its pool) added up.
 */
function tracked(store: Store): {
  store: Store;
  drained: () => Promise<void>;
  busyMs: () => number;
  /** The most writes ever under way at once. */
  peak: () => number;
} {
  const pending = new Set<Promise<unknown>>();
  let busyMs = 0;
  let peak = 0;
  const track = <T>(write: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const promise = write();
    busyMs += performance.now() - started;
    pending.add(promise);
    peak = Math.max(peak, pending.size);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  };
  // A proxy, not a copy: the store's methods run on the store itself (its private fields).
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === "record")
        return (events: Parameters<Store["record"]>[0]) => track(() => target.record(events));
      if (key === "append")
        return (entry: Parameters<Store["append"]>[0]) => track(() => target.append(entry));
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    store: wrapped,
    drained: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    busyMs: () => busyMs,
    peak: () => peak,
  };
}

/** A PostgreSQL schema of the bench's own (dropped at the end) and the URL that works in it. */
async function postgresSchema(
  url: string,
  name: string,
): Promise<{ url: string; drop: () => Promise<string> }> {
  const { default: pg } = await import("pg");
  const schema = `switchyard_bench_recorder_${process.pid}_${name}`;
  const exec = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
  const inSchema = new URL(url);
  inSchema.searchParams.set("options", `-c search_path=${schema}`);
  const drop = async () => {
    await exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    const left = await exec(`SELECT 1 FROM pg_namespace WHERE nspname = '${schema}'`);
    return left.rowCount === 0 ? "" : `PostgreSQL schema ${schema}`;
  };
  return { url: inSchema.toString(), drop };
}

interface Running {
  variant: Variant;
  yard: Switchyard;
  store?: Store;
  drained: () => Promise<void>;
  busyMs: () => number;
  peak: () => number;
  /** Time inside the store's `record` and `append` during the measured blocks, ms. */
  inStoreMs: number;
  /** Each call, ms. */
  calls: number[];
  /** Each block from its first call to its last write, ms per call. */
  drainedPerCall: number[];
  measured: number;
  error?: string;
}

export async function recorderCost(
  context: ScenarioContext,
  options: RecorderBenchOptions,
): Promise<ScenarioResult> {
  const folder = mkdtempSync(join(tmpdir(), TEMP_PREFIX));
  // Run latest first: Switchyards (their last writes), stores, the folder.
  const cleanups: (() => Promise<unknown>)[] = [async () => rmSync(folder, { recursive: true, force: true })];
  /** Each drops a PostgreSQL schema and says what is left ("" when nothing). */
  const drops: (() => Promise<string>)[] = [];
  const leftBehind: string[] = [];
  const postgresUrl = process.env[POSTGRES_URL_VAR];
  /** The URL of each PostgreSQL variant's schema (its own, so that its rows can be counted). */
  const postgres = new Map<string, string>();
  let postgresSkipped = `${POSTGRES_URL_VAR} is not set (a postgres:// URL of a database the bench may create a schema in; .ci/run shows how to start one)`;
  if (postgresUrl) {
    try {
      for (const name of ["plain", "policy"]) {
        const schema = await postgresSchema(postgresUrl, name);
        drops.push(schema.drop);
        postgres.set(name, schema.url);
      }
    } catch (error) {
      postgresSkipped = `PostgreSQL at ${POSTGRES_URL_VAR} could not be used: ${(error as Error).message}`;
    }
  }
  const sqlite = (name: string) => () => openStore({ path: join(folder, name) });
  const variants: Variant[] = [
    { id: "off", label: "recording off (no store)", policy: false },
    { id: "sqlite", label: "SQLite store", store: sqlite("plain.db"), policy: false },
    { id: "sqlite-policy", label: "SQLite store + policy", store: sqlite("policy.db"), policy: true },
    ...[false, true].map((policy) => {
      const url = postgres.get(policy ? "policy" : "plain");
      return {
        id: policy ? "postgres-policy" : "postgres",
        label: policy ? "PostgreSQL store + policy" : "PostgreSQL store",
        policy,
        ...(url ? { store: () => openStore({ url }) } : { skipped: postgresSkipped }),
      };
    }),
  ];

  const running: Running[] = [];
  let result: ScenarioResult;
  try {
    for (const variant of variants.filter((v) => !v.skipped)) {
      const opened = variant.store ? tracked(await variant.store()) : undefined;
      if (opened) cleanups.unshift(() => opened.store.close());
      const yard = await Switchyard.connect(
        {
          mcpServers: { s0: { command: process.execPath, args: [SDK_SERVER, "--tools", "echo"] } },
          ...(variant.policy ? { policy: POLICY } : {}),
        },
        opened ? { store: opened.store } : {},
      );
      cleanups.unshift(() => yard.close());
      const server = yard.servers()[0];
      if (server?.status !== "ready")
        throw new Error(`${variant.label}: the echo server failed: ${server?.error}`);
      const run: Running = {
        variant,
        yard,
        drained: opened?.drained ?? (async () => {}),
        busyMs: opened?.busyMs ?? (() => 0),
        peak: opened?.peak ?? (() => 0),
        inStoreMs: 0,
        calls: [],
        drainedPerCall: [],
        measured: 0,
        ...(opened ? { store: opened.store } : {}),
      };
      for (let i = 0; i < options.warmup; i += 1) await yard.callTool("s0_echo", { text: "warm" });
      await run.drained();
      running.push(run);
    }
    const count = await runRounds(rounds(context, options.policy), async (round) => {
      for (const run of rotate(running, round)) {
        if (run.error) continue;
        try {
          const blockStarted = performance.now();
          const busyBefore = run.busyMs();
          for (let i = 0; i < options.block; i += 1) {
            const started = performance.now();
            await run.yard.callTool("s0_echo", { text: "ping" });
            run.calls.push(performance.now() - started);
          }
          await run.drained();
          run.drainedPerCall.push((performance.now() - blockStarted) / options.block);
          run.inStoreMs += run.busyMs() - busyBefore;
          run.measured += options.block;
        } catch (error) {
          run.error = (error as Error).message;
        }
      }
    });
    context.log(`${options.id}: ${count} rounds of ${options.block} calls`);

    // What each store holds: audit rows per call, and that the calls were recorded (each its own run).
    const written = new Map<string, string>();
    for (const run of running) {
      if (!run.store) continue;
      await run.drained();
      const calls = options.warmup + run.measured;
      const head = await run.store.auditHead();
      const [last] = await run.store.runs({ limit: 1 });
      written.set(
        run.variant.id,
        `${(head.seq / calls).toFixed(2)} audit rows/call, ${last?.kind === "call" ? "each call a run" : "NO runs recorded"}, at most ${run.peak()} writes under way`,
      );
    }

    const off = running.find((run) => run.variant.id === "off" && !run.error);
    const base = {
      p50: off ? median(off.calls) : Number.NaN,
      p99: off ? percentile(off.calls, 0.99) : Number.NaN,
      block: off ? median(off.drainedPerCall) : Number.NaN,
    };
    const µs = (ms: number) => (ms * 1_000).toFixed(0);
    const plus = (ms: number) => `${ms >= 0 ? "+" : "−"}${µs(Math.abs(ms))}`;
    const times = (ms: number, against: number) => `${(ms / against).toFixed(2)}×`;
    const rows: Row[] = [];
    const header = [
      "variant",
      "p50 µs",
      "×off",
      "+µs",
      "p99 µs",
      "×off",
      "+µs",
      "block µs/call",
      "×off",
      "+µs",
      "in store µs/call",
      "written",
    ];
    const cells: string[][] = [];
    const notes: string[] = [];
    for (const variant of variants) {
      const run = running.find((r) => r.variant === variant);
      if (!run || run.error) {
        const why = variant.skipped
          ? `skipped: ${variant.skipped}`
          : `failed: ${run?.error ?? "did not start"}`;
        rows.push({ id: variant.id, label: variant.label, median: Number.NaN, samples: 0, error: why });
        notes.push(`  ${variant.label}: ${why}`);
        continue;
      }
      const p50 = median(run.calls);
      const p99 = percentile(run.calls, 0.99);
      const block = median(run.drainedPerCall);
      const extra = written.get(variant.id) ?? "";
      const line = [
        variant.label,
        µs(p50),
        times(p50, base.p50),
        plus(p50 - base.p50),
        µs(p99),
        times(p99, base.p99),
        plus(p99 - base.p99),
        µs(block),
        times(block, base.block),
        plus(block - base.block),
        run.store ? µs(run.inStoreMs / run.measured) : "",
        extra,
      ];
      cells.push(line);
      rows.push({
        id: variant.id,
        label: variant.label,
        median: p50,
        p99,
        samples: run.calls.length,
        extra: `p50 ${line[2]} off (${line[3]} µs/call), p99 ${line[5]} (${line[6]} µs); block ${line[7]} µs/call, ${line[8]} off (${line[9]} µs); in store ${line[10] || 0} µs/call; ${extra}`,
      });
    }
    const widths = header.map((title, column) =>
      Math.max(title.length, ...cells.map((line) => line[column]!.length)),
    );
    const render = (line: string[]) =>
      `  ${line
        .map((cell, column) =>
          column === 0 || column === line.length - 1
            ? cell.padEnd(widths[column]!)
            : cell.padStart(widths[column]!),
        )
        .join("  ")
        .trimEnd()}`;
    const lines = [render(header), ...cells.map(render), ...notes];
    result = {
      id: options.id,
      title: options.title,
      unit: "ms",
      method: `${count} rounds × ${options.block} sequential calls per variant after ${options.warmup} warm-up calls, variants interleaved, one stdio SDK echo server each; p50/p99 of each call alone, "block" = a block from its first call to its last write done, per call (median over blocks); "in store" = time inside the store's record and append until they return (SQLite: the whole write; PostgreSQL: handing it to the pool); "writes under way": the most at once, the ${options.warmup} warm-up calls in a row included`,
      rows,
      table: lines.join("\n"),
    };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    for (const drop of drops)
      leftBehind.push(await drop().catch((error) => `a PostgreSQL schema (${(error as Error).message})`));
  }
  if (readdirSync(tmpdir()).includes(basename(folder))) leftBehind.push(folder);
  const left = leftBehind.filter(Boolean);
  if (left.length > 0) throw new Error(`the recorder bench left behind: ${left.join(", ")}`);
  result.table += `\n  left behind: nothing (${folder} removed${drops.length > 0 ? `, ${drops.length} PostgreSQL schemas dropped` : ""})`;
  return result;
}
