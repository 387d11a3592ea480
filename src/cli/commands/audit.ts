import { readFileSync, writeFileSync } from "node:fs";
import {
  type AuditCheckpoint,
  type AuditRow,
  auditCheckpoint,
  DEFAULT_AUDIT_FOLLOW_INTERVAL_MS,
  DEFAULT_AUDIT_TAIL_ROWS,
  parseAuditCheckpoint,
  verifyAudit,
} from "../../internal.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { countOf } from "../table.js";
import { parseLimit } from "./runs.js";

/**
 * `switchyard audit verify [--checkpoint <file>]`: check the whole chain — with the config's
 * `audit.key`, every signature too; with a checkpoint, that the log still holds it. Exit 0 when
 * intact, 1 naming each problem (tampered rows, forged signatures, a checkpoint lost, gaps).
 */
export async function auditVerifyCommand(
  ctx: CommandContext,
  flags: { checkpoint?: string },
): Promise<number> {
  const checkpoint = flags.checkpoint !== undefined ? readCheckpoint(flags.checkpoint) : undefined;
  const key = ctx.auditSection().key;
  const store = await ctx.requireStore();
  const verified = await verifyAudit(store, { key, checkpoint });
  if (ctx.out.json) ctx.out.data({ store: store.location, signed: key !== undefined, ...verified });
  else if (verified.ok) {
    ctx.out.result(
      `audit log ok: ${countOf(verified.rows, "row")}, chain head ${verified.head.hash} (row ${verified.head.seq}) in ${store.location}${key !== undefined ? "; signatures checked with audit.key" : checkpoint ? "" : "; not signed (no audit.key): only the chain is checked, a rewrite of the whole log would go unseen"}${checkpoint ? `; holds the checkpoint of ${checkpoint.time} (row ${checkpoint.seq})` : ""}`,
    );
  } else {
    const gapsOnly = verified.problems.every((problem) => problem.kind === "gap");
    ctx.out.result(
      [
        `audit log ${gapsOnly ? "INCOMPLETE" : "TAMPERED"}: ${countOf(verified.problems.length, "problem")} in ${verified.rows} rows of ${store.location}`,
        ...verified.problems.map((problem) => `  ${problem.kind}: ${problem.message}`),
      ].join("\n"),
    );
  }
  return verified.ok ? EXIT_OK : EXIT_FAILED;
}

/**
 * `switchyard audit checkpoint [--out <file>]`: where the chain stands now — its head row, that
 * row's hash, how many rows — signed with the config's `audit.key`, printed (or written to a file)
 * to keep outside the database, for `audit verify --checkpoint`. Refused (exit 1) for a log that
 * does not verify: a checkpoint must not vouch for a tampered log.
 */
export async function auditCheckpointCommand(ctx: CommandContext, flags: { out?: string }): Promise<number> {
  const key = ctx.auditSection().key;
  const store = await ctx.requireStore();
  const verified = await verifyAudit(store, { key });
  const tampered = verified.problems.filter((problem) => problem.kind !== "gap");
  if (tampered.length > 0)
    throw new CliError(
      `the audit log of ${store.location} does not verify (${countOf(tampered.length, "problem")}, first: ${tampered[0]!.message}): no checkpoint is taken of it; see switchyard audit verify`,
    );
  const checkpoint = auditCheckpoint(verified.head, verified.rows, store.location, key);
  const text = `${JSON.stringify(checkpoint, null, 2)}\n`;
  if (flags.out !== undefined) {
    writeFileSync(flags.out, text);
    if (!ctx.out.json)
      ctx.out.result(
        `audit checkpoint: row ${checkpoint.seq}, ${countOf(checkpoint.rows, "row")}, ${key !== undefined ? "signed with audit.key" : "NOT signed (no audit.key)"}, written to ${flags.out}`,
      );
    else ctx.out.data(checkpoint);
  } else if (ctx.out.json) ctx.out.data(checkpoint);
  else ctx.out.result(text.trimEnd());
  if (key === undefined)
    ctx.out.note(
      "note: without audit.key the checkpoint is not signed: keep it where the database's writers cannot edit it",
    );
  return EXIT_OK;
}

function readCheckpoint(file: string): AuditCheckpoint {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError(`cannot read the checkpoint ${file}: ${(error as Error).message}`, EXIT_USAGE);
  }
  return parseAuditCheckpoint(text, file);
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
    ...(row.kind === "gap" ? [`${row.lost ?? "?"} lost since ${row.since ?? "?"}`] : []),
    ...(row.rule ? [`rule ${row.rule}`] : []),
    ...(row.ms !== undefined ? [`${Math.round(row.ms)} ms`] : []),
    ...(row.runId ? [row.runId] : []),
    ...(row.callId ? [row.callId] : []),
    ...(row.summary ? [JSON.stringify(row.summary)] : []),
  ].join("  ");
}
