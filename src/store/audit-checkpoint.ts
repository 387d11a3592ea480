// The audit log's checkpoint: where the chain stood at one time (its head row, its hash, how many rows),
// signed with the audit key, to be kept outside the database — a log later cut short, wiped or
// rewritten no longer holds it, and `verifyAudit(store, { checkpoint })` says so.
import { SwitchyardError } from "../errors.js";
import { auditMac, canonicalJson } from "../telemetry/audit.js";

/** A checkpoint as `switchyard audit checkpoint` exports it (JSON). */
export interface AuditCheckpoint {
  /** The format's version: 1. */
  switchyardAuditCheckpoint: 1;
  /** The store it was taken of (its file, or its PostgreSQL URL without the password); informative. */
  store: string;
  /** The head row at that time. */
  seq: number;
  /** That row's hash: every row up to it is fixed by it. */
  hash: string;
  /** Rows the log had. */
  rows: number;
  /** ISO 8601. */
  time: string;
  /** With `audit.key`: HMAC-SHA256 (hex) of the rest under the key; absent: the checkpoint is not signed. */
  mac?: string;
}

/** A checkpoint of a log whose head is `head` and which has `rows` rows, signed when a key is given. */
export function auditCheckpoint(
  head: { seq: number; hash: string },
  rows: number,
  store: string,
  key: string | undefined,
  time = new Date().toISOString(),
): AuditCheckpoint {
  const body = { switchyardAuditCheckpoint: 1 as const, store, seq: head.seq, hash: head.hash, rows, time };
  return key !== undefined ? { ...body, mac: checkpointMac(key, body) } : body;
}

/** The signature of a checkpoint's content (everything but `mac`). */
export function checkpointMac(key: string, checkpoint: AuditCheckpoint): string {
  const { mac: _mac, ...body } = checkpoint;
  return auditMac(key, "checkpoint", canonicalJson(body));
}

/**
 * A checkpoint read back from its text (`where` names it in errors).
 * @throws SwitchyardError `INVALID_INPUT` when it is not a checkpoint `switchyard audit checkpoint` wrote.
 */
export function parseAuditCheckpoint(text: string, where: string): AuditCheckpoint {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new SwitchyardError("INVALID_INPUT", `${where} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const wrong = (what: string) =>
    new SwitchyardError(
      "INVALID_INPUT",
      `${where} is not an audit checkpoint (${what}): give a file \`switchyard audit checkpoint --out\` wrote`,
    );
  if (typeof value !== "object" || value === null || value.switchyardAuditCheckpoint !== 1)
    throw wrong('no "switchyardAuditCheckpoint": 1');
  if (!Number.isInteger(value.seq) || (value.seq as number) < 0) throw wrong("seq must be a whole number");
  if (!Number.isInteger(value.rows) || (value.rows as number) < 0) throw wrong("rows must be a whole number");
  if (typeof value.hash !== "string" || !/^[0-9a-f]{64}$/.test(value.hash))
    throw wrong("hash must be 64 hex digits");
  if (typeof value.time !== "string" || Number.isNaN(Date.parse(value.time)))
    throw wrong("time must be an ISO 8601 string");
  if (typeof value.store !== "string") throw wrong("store must be a string");
  if (value.mac !== undefined && typeof value.mac !== "string") throw wrong("mac must be a string");
  return value as unknown as AuditCheckpoint;
}
