// The audit log's hash chain: how a row is chained on append, and how a whole log is checked.
import { SwitchyardError } from "../errors.js";
import {
  AUDIT_GENESIS_HASH,
  AUDIT_KINDS,
  type AuditEntry,
  auditTextHash,
  canonicalJson,
} from "../telemetry/audit.js";
import type { AuditHead, Store, StoredAuditRecord } from "./store.js";

/** The row that follows `head`: numbered, its entry in canonical text, chained and hashed. */
export function chainEntry(head: AuditHead, entry: AuditEntry): StoredAuditRecord {
  checkEntry(entry);
  const seq = head.seq + 1;
  const text = canonicalJson({ ...entry, seq });
  return {
    seq,
    time: entry.time,
    kind: entry.kind,
    runId: entry.runId ?? null,
    entry: text,
    prevHash: head.hash,
    hash: auditTextHash(head.hash, text),
  };
}

/**
 * The chain's head as its row holds it.
 * @throws SwitchyardError `STORE_ERROR` when the row is gone: nothing can be appended to, or verified
 *   against, a chain whose end is unknown.
 */
export function headOfRow(row: { seq?: unknown; hash?: unknown } | undefined): AuditHead {
  if (!row || row.seq === undefined || row.hash === undefined)
    throw new SwitchyardError(
      "STORE_ERROR",
      "the audit log's head row (table audit_head) is missing: it was deleted or the database is damaged, so the chain's end is unknown and nothing can be appended or verified; restore the database from a backup",
    );
  return { seq: Number(row.seq), hash: String(row.hash) };
}

/** Refuses a malformed entry (`INVALID_INPUT`, saying what is wrong) before anything is appended. */
export function checkEntry(entry: AuditEntry): void {
  const bad = (what: string) =>
    new SwitchyardError("INVALID_INPUT", `audit entry: ${what}; nothing was appended`);
  if (typeof entry !== "object" || entry === null) throw bad("expected an object");
  if (typeof entry.time !== "string" || Number.isNaN(Date.parse(entry.time)))
    throw bad(`time must be an ISO 8601 string (got ${JSON.stringify(entry.time)})`);
  if (!AUDIT_KINDS.includes(entry.kind))
    throw bad(
      `kind must be ${AUDIT_KINDS.map((kind) => `"${kind}"`).join(", ")} (got ${JSON.stringify(entry.kind)})`,
    );
  if (typeof entry.outcome !== "string" || entry.outcome === "")
    throw bad("outcome must be a non-empty string");
}

/** What is wrong with the log at one place. */
export interface AuditProblem {
  /** The row (or, for missing rows, the first one missing). */
  seq: number;
  /**
   * `edited`: a row's content no longer matches its hash (or its columns its hashed entry);
   * `deleted`: rows are missing; `reordered`: a row is not at the place it was written at (moved,
   * renumbered, or shifted by an inserted row); `inserted`: a row the store did not append (after the
   * head, or one the next row does not follow); `broken`: a row does not follow the one before it.
   */
  kind: "edited" | "deleted" | "reordered" | "inserted" | "broken";
  message: string;
}

/** The outcome of {@link verifyAudit}. */
export interface AuditVerification {
  ok: boolean;
  /** Rows read. */
  rows: number;
  /** The chain's end as the store recorded it at the last append. */
  head: AuditHead;
  problems: AuditProblem[];
}

/** Rows read per query while verifying. */
const PAGE_ROWS = 1_000;

/**
 * Check the whole audit log: each row's hash against its content and its place, each row's link to
 * the one before, no gap in the numbering, and the end against the head the store keeps. Finds any
 * edited, deleted, inserted or reordered row, and says which. (A hash chain without a secret can be
 * rewritten whole by whoever can write the database: keep the head's hash elsewhere to catch that.)
 */
export async function verifyAudit(store: Store): Promise<AuditVerification> {
  const head = await store.auditHead();
  const problems: AuditProblem[] = [];
  let previous: { seq: number; hash: string; intact: boolean } = {
    seq: 0,
    hash: AUDIT_GENESIS_HASH,
    intact: true,
  };
  let rows = 0;
  for (;;) {
    const page = await store.auditRecords({ afterSeq: previous.seq, limit: PAGE_ROWS });
    for (const record of page) {
      rows += 1;
      checkRecord(record, previous, problems);
      previous = { seq: record.seq, hash: record.hash, intact: problems.at(-1)?.seq !== record.seq };
    }
    if (page.length < PAGE_ROWS) break;
  }
  if (previous.seq < head.seq) {
    problems.push({
      seq: previous.seq + 1,
      kind: "deleted",
      message: `${span(previous.seq + 1, head.seq)} missing from the end: the last append was row ${head.seq} (deleted)`,
    });
  } else if (previous.seq > head.seq) {
    problems.push({
      seq: head.seq + 1,
      kind: "inserted",
      message: `${span(head.seq + 1, previous.seq)} after the last row the store appended (row ${head.seq}): inserted`,
    });
  } else if (previous.hash !== head.hash) {
    problems.push({
      seq: head.seq,
      kind: head.seq === 0 ? "inserted" : "edited",
      message: `row ${head.seq} is not the row the store appended last (its hash differs from the head's): replaced`,
    });
  }
  return { ok: problems.length === 0, rows, head, problems: mergeShifts(problems) };
}

function checkRecord(
  record: StoredAuditRecord,
  previous: { seq: number; hash: string; intact: boolean },
  problems: AuditProblem[],
): void {
  const { seq } = record;
  const found = (kind: AuditProblem["kind"], message: string) => problems.push({ seq, kind, message });
  const gap = seq > previous.seq + 1;
  if (gap) {
    problems.push({
      seq: previous.seq + 1,
      kind: "deleted",
      message: `${span(previous.seq + 1, seq - 1)} missing (deleted)`,
    });
  }
  if (auditTextHash(record.prevHash, record.entry) !== record.hash) {
    found("edited", `row ${seq}: its content does not match its hash (edited)`);
    return;
  }
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(record.entry) as Record<string, unknown>;
  } catch {
    found("edited", `row ${seq}: its entry is not JSON (edited)`);
    return;
  }
  if (entry.seq !== seq) {
    found("reordered", `row ${seq}: it was written as row ${String(entry.seq)} (moved or renumbered)`);
    return;
  }
  const columns: Array<[string, unknown, unknown]> = [
    ["time", record.time, entry.time],
    ["kind", record.kind, entry.kind],
    ["run_id", record.runId, entry.runId ?? null],
  ];
  for (const [column, stored, hashed] of columns) {
    if (stored !== hashed) {
      found(
        "edited",
        `row ${seq}: its ${column} column says ${JSON.stringify(stored)}, the hashed entry ${JSON.stringify(hashed)} (edited)`,
      );
      return;
    }
  }
  if (!gap && record.prevHash !== previous.hash && previous.intact) {
    found(
      previous.seq === 0 ? "broken" : "inserted",
      `row ${seq} does not follow row ${previous.seq} (its prevHash is not row ${previous.seq}'s hash): row ${previous.seq} was inserted or replaced`,
    );
  }
}

/** `row 4 is` / `rows 4–7 are`. */
function span(from: number, to: number): string {
  return from === to ? `row ${from} is` : `rows ${from}–${to} are`;
}

/** Rows shifted by one insertion or deletion say so once: `rows 5–9: written as rows 4–8 (…)`. */
function mergeShifts(problems: AuditProblem[]): AuditProblem[] {
  const merged: AuditProblem[] = [];
  let run: { first: AuditProblem; last: number; shift: number } | undefined;
  const flush = () => {
    if (!run) return;
    if (run.last === run.first.seq) merged.push(run.first);
    else {
      const { seq } = run.first;
      const direction = run.shift > 0 ? "a row was inserted before them" : "rows before them were deleted";
      merged.push({
        seq,
        kind: "reordered",
        message: `rows ${seq}–${run.last}: written as rows ${seq - run.shift}–${run.last - run.shift} (renumbered: ${direction})`,
      });
    }
    run = undefined;
  };
  for (const problem of problems) {
    const written = /written as row (-?\d+)/.exec(problem.message)?.[1];
    const shift = problem.kind === "reordered" && written !== undefined ? problem.seq - Number(written) : 0;
    if (run && shift !== 0 && shift === run.shift && problem.seq === run.last + 1) {
      run.last = problem.seq;
      continue;
    }
    flush();
    if (shift !== 0) run = { first: problem, last: problem.seq, shift };
    else merged.push(problem);
  }
  flush();
  return merged;
}
