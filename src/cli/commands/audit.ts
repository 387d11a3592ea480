import {
  type AuditRow,
  DEFAULT_AUDIT_FOLLOW_INTERVAL_MS,
  DEFAULT_AUDIT_TAIL_ROWS,
  verifyAudit,
} from "../../internal.js";
import type { CommandContext } from "../context.js";
import { EXIT_FAILED, EXIT_OK } from "../exit-codes.js";
import { parseLimit } from "./runs.js";

/** `switchyard audit verify`: check the whole chain; exit 0 when intact, 1 naming each row that is not. */
export async function auditVerifyCommand(ctx: CommandContext): Promise<number> {
  const store = await ctx.requireStore();
  const verified = await verifyAudit(store);
  if (ctx.out.json) ctx.out.data({ store: store.location, ...verified });
  else if (verified.ok) {
    ctx.out.result(
      `audit log ok: ${verified.rows} row${verified.rows === 1 ? "" : "s"}, chain head ${verified.head.hash} (row ${verified.head.seq}) in ${store.location}`,
    );
  } else {
    ctx.out.result(
      [
        `audit log TAMPERED: ${verified.problems.length} problem${verified.problems.length === 1 ? "" : "s"} in ${verified.rows} rows of ${store.location}`,
        ...verified.problems.map((problem) => `  ${problem.kind}: ${problem.message}`),
      ].join("\n"),
    );
  }
  return verified.ok ? EXIT_OK : EXIT_FAILED;
}

/**
 * `switchyard audit tail [-n N] [--follow]`: the last rows, oldest first (`--json`: one JSON row a
 * line); `--follow` then prints rows as they are appended, until interrupted.
 */
export async function auditTailCommand(
  ctx: CommandContext,
  flags: { lines?: string; follow?: boolean },
): Promise<number> {
  const last = parseLimit(flags.lines, DEFAULT_AUDIT_TAIL_ROWS, "-n");
  const store = await ctx.requireStore();
  const print = (row: AuditRow) => ctx.out.result(ctx.out.json ? JSON.stringify(row) : describeRow(row));
  const rows = await store.audit({ last });
  rows.forEach(print);
  if (!flags.follow) return EXIT_OK;
  let seq = rows.at(-1)?.seq ?? (await store.auditHead()).seq;
  const { signal } = ctx;
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, DEFAULT_AUDIT_FOLLOW_INTERVAL_MS);
      signal.addEventListener("abort", done);
    });
    if (signal.aborted) break;
    for (const row of await store.audit({ afterSeq: seq })) {
      print(row);
      seq = row.seq;
    }
  }
  return EXIT_OK;
}

/** `12  2026-01-01T00:00:00.000Z  call  ada  orders/query  ok  3 ms  run_… call_…`. */
function describeRow(row: AuditRow): string {
  const where = row.server ? `${row.server}/${row.tool ?? row.name ?? "?"}` : (row.name ?? "-");
  return [
    String(row.seq).padStart(5),
    row.time,
    row.kind.padEnd(8),
    row.identity?.user ?? "-",
    where,
    row.outcome,
    ...(row.rule ? [`rule ${row.rule}`] : []),
    ...(row.ms !== undefined ? [`${Math.round(row.ms)} ms`] : []),
    ...(row.runId ? [row.runId] : []),
    ...(row.callId ? [row.callId] : []),
    ...(row.summary ? [JSON.stringify(row.summary)] : []),
  ].join("  ");
}
