// The audit log's hash chain: how a row is chained on append, and how a whole log is checked.
import { SwitchyardError } from "../errors.js";
import {
  AUDIT_GENESIS_HASH,
  AUDIT_KINDS,
  type AuditEntry,
  auditMac,
  auditTextHash,
  canonicalJson,
} from "../telemetry/audit.js";
import { type AuditCheckpoint, checkpointMac } from "./audit-checkpoint.js";
import type { AuditHead, Store, StoredAuditRecord } from "./store.js";

/**
 * The row that follows `head`: numbered, its entry in canonical text, chained and hashed — and, with
 * the audit key, signed (`mac`).
 */
export function chainEntry(head: AuditHead, entry: AuditEntry, key?: string): StoredAuditRecord {
  checkEntry(entry);
  const seq = head.seq + 1;
  const text = canonicalJson({ ...entry, seq });
  const hash = auditTextHash(head.hash, text);
  return {
    seq,
    time: entry.time,
    kind: entry.kind,
    runId: entry.runId ?? null,
    entry: text,
    prevHash: head.hash,
    hash,
    ...(key !== undefined ? { mac: auditMac(key, "row", hash) } : {}),
  };
}

/** The head once `record` is appended, signed with the audit key when there is one. */
export function headAfter(record: StoredAuditRecord, key?: string): AuditHead {
  const head = { seq: record.seq, hash: record.hash };
  return key !== undefined ? { ...head, mac: headMac(key, head) } : head;
}

/** The head's signature: its seq and hash under the key (a row's own signature is not valid as one). */
export function headMac(key: string, head: { seq: number; hash: string }): string {
  return auditMac(key, "head", `${head.seq}\n${head.hash}`);
}

/**
 * The chain's head as its row holds it.
 * @throws SwitchyardError `STORE_ERROR` when the row is gone: nothing can be appended to, or verified
 *   against, a chain whose end is unknown.
 */
export function headOfRow(row: { seq?: unknown; hash?: unknown; mac?: unknown } | undefined): AuditHead {
  if (!row || row.seq === undefined || row.hash === undefined)
    throw new SwitchyardError(
      "STORE_ERROR",
      "the audit log's head row (table audit_head) is missing: it was deleted or the database is damaged, so the chain's end is unknown and nothing can be appended or verified; restore the database from a backup",
    );
  return {
    seq: Number(row.seq),
    hash: String(row.hash),
    ...(typeof row.mac === "string" ? { mac: row.mac } : {}),
  };
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
   * head, or one the next row does not follow); `broken`: a row does not follow the one before it;
   * `forged` (with the key): a row or the head not signed with it — rewritten, appended or cut short
   * by someone without the key; `checkpoint`: the log no longer holds a checkpoint's head (cut short,
   * wiped or rewritten); `gap`: entries that could not be written (`audit.onWriteError: "continue"`).
   */
  kind: "edited" | "deleted" | "reordered" | "inserted" | "broken" | "forged" | "checkpoint" | "gap";
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

/** What to verify the log against besides itself (`verifyAudit`'s second argument). */
export interface AuditVerifyOptions {
  /** The audit key (`audit.key`): every row after the first signed one, and the head, must be signed with it. */
  key?: string | undefined;
  /** A checkpoint taken earlier (`switchyard audit checkpoint`): the log must still hold its head. */
  checkpoint?: AuditCheckpoint | undefined;
}

/** Rows read per query while verifying. */
const PAGE_ROWS = 1_000;

/**
 * Check the whole audit log: each row's hash against its content and its place, each row's link to
 * the one before, no gap in the numbering, and the end against the head the store keeps. Finds any
 * edited, deleted, inserted or reordered row, and says which; and each `gap` row. A hash chain
 * without a secret can be rewritten whole by whoever can write the database: with `key`, each row
 * and the head must also be signed with it (a rewritten, forged or cut-short chain is not); with
 * `checkpoint`, the log must still hold the head it was taken at (a wiped or cut-short log does not).
 * @throws SwitchyardError `INVALID_INPUT` for a signed checkpoint without the key to check it.
 */
export async function verifyAudit(
  store: Store,
  options: AuditVerifyOptions = {},
): Promise<AuditVerification> {
  const { key, checkpoint } = options;
  if (checkpoint?.mac !== undefined && key === undefined)
    throw new SwitchyardError(
      "INVALID_INPUT",
      "the checkpoint is signed: verify it with the audit key it was signed with (audit.key in the config)",
    );
  const head = await store.auditHead();
  const problems: AuditProblem[] = [];
  const signatures = key !== undefined ? new Signatures(key) : undefined;
  const gaps: AuditProblem[] = [];
  let atCheckpoint: StoredAuditRecord | undefined;
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
      signatures?.check(record);
      if (record.kind === "gap") gaps.push(gapProblem(record));
      if (record.seq === checkpoint?.seq) atCheckpoint = record;
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
  if (signatures) problems.push(...signatures.problems(head));
  if (checkpoint) problems.push(...checkpointProblems(checkpoint, atCheckpoint, rows, key));
  const found = [...mergeShifts(problems), ...gaps].sort((a, b) => a.seq - b.seq);
  return { ok: found.length === 0, rows, head, problems: found };
}

/** Each row's and the head's signature under the key, problems said once per run of rows. */
class Signatures {
  readonly #key: string;
  #signedSeen = false;
  /** Runs of rows with a bad (or, after a signed one, missing) signature. */
  readonly #bad: Array<{ from: number; to: number; missing: boolean }> = [];

  constructor(key: string) {
    this.#key = key;
  }

  check(record: StoredAuditRecord): void {
    let missing: boolean;
    if (record.mac === undefined) {
      if (!this.#signedSeen) return; // rows written before the key was set
      missing = true;
    } else {
      this.#signedSeen = true;
      if (record.mac === auditMac(this.#key, "row", record.hash)) return;
      missing = false;
    }
    const last = this.#bad.at(-1);
    if (last && last.to === record.seq - 1 && last.missing === missing) last.to = record.seq;
    else this.#bad.push({ from: record.seq, to: record.seq, missing });
  }

  problems(head: AuditHead): AuditProblem[] {
    const found: AuditProblem[] = this.#bad.map(({ from, to, missing }) => ({
      seq: from,
      kind: "forged",
      message: missing
        ? `${span(from, to)} not signed, though rows before are: written by someone without audit.key (forged)`
        : `${span(from, to)} not signed with audit.key (the signature does not match): rewritten without the key (forged), or the key is not the one the log was written with`,
    }));
    if (head.seq > 0 && head.mac !== headMac(this.#key, head))
      found.push({
        seq: head.seq,
        kind: "forged",
        message: `the head (row ${head.seq}) is ${head.mac === undefined ? "not signed" : "not signed with audit.key"}: the log was cut short, rewritten or appended to by someone without the key (forged), or it was written without the key`,
      });
    return found;
  }
}

/** A `gap` row, as verify reports it. */
function gapProblem(record: StoredAuditRecord): AuditProblem {
  let entry: { lost?: unknown; since?: unknown; summary?: unknown } = {};
  try {
    entry = JSON.parse(record.entry) as typeof entry;
  } catch {
    // an edited row: said as such
  }
  const lost = typeof entry.lost === "number" ? entry.lost : "some";
  return {
    seq: record.seq,
    kind: "gap",
    message: `row ${record.seq}: ${lost} audit entr${lost === 1 ? "y was" : "ies were"} not written${typeof entry.since === "string" ? ` from ${entry.since}` : ""} to ${record.time} (audit.onWriteError: continue)${typeof entry.summary === "string" ? `: ${entry.summary}` : ""}`,
  };
}

/** Whether the log still holds the checkpoint's head (and its signature is the key's). */
function checkpointProblems(
  checkpoint: AuditCheckpoint,
  row: StoredAuditRecord | undefined,
  rows: number,
  key: string | undefined,
): AuditProblem[] {
  const taken = `the checkpoint of ${checkpoint.time} (row ${checkpoint.seq}, ${checkpoint.rows} rows)`;
  const problem = (message: string): AuditProblem => ({ seq: checkpoint.seq, kind: "checkpoint", message });
  if (checkpoint.mac !== undefined && key !== undefined && checkpoint.mac !== checkpointMac(key, checkpoint))
    return [
      problem(`${taken} is not signed with audit.key: the file was edited, or signed with another key`),
    ];
  if (checkpoint.seq === 0) return [];
  if (!row)
    return [
      problem(
        `${taken}: row ${checkpoint.seq} is gone, the log has ${rows} row${rows === 1 ? "" : "s"}: rows were cut from the end, or the log was wiped`,
      ),
    ];
  if (row.hash !== checkpoint.hash)
    return [
      problem(
        `${taken}: row ${checkpoint.seq} is not the row it holds (its hash differs): the log was rewritten up to it`,
      ),
    ];
  if (rows < checkpoint.rows)
    return [problem(`${taken}: the log has ${rows} rows, fewer than then: rows were deleted`)];
  return [];
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
