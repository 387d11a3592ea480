// Who a run is for, and what the audit log keeps of each decision and call: the records that policy
// (calls/), the recorder and the stores (store/) share. Types only, and the one canonical form a row
// is hashed in.
import { createHash, createHmac } from "node:crypto";

/** Who a run, a call or a gateway request is for. */
export interface Identity {
  /** The user's id (a login name, an email, a token's `sub`). */
  user: string;
  roles: readonly string[];
  /** More facts policy rules may test (a team, a tenant, a token claim). */
  attributes?: Readonly<Record<string, string>>;
}

/**
 * What an audit row records: a policy decision, an approval, a call's outcome, a scan's finding, or a
 * `gap`: entries that could not be written (`audit.onWriteError: "continue"`), counted.
 */
export const AUDIT_KINDS = ["decision", "approval", "call", "finding", "gap"] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** One audit entry as it is handed to the log: everything but its place in the chain. */
export interface AuditEntry {
  /** ISO 8601. */
  time: string;
  kind: AuditKind;
  identity?: Identity;
  server?: string;
  /** The server's own name of what was asked: the tool's or the prompt's, or the resource's URI. */
  tool?: string;
  /** The catalog name (a tool, a prompt), or a resource's URI. */
  name?: string;
  /** The MCP method of a request other than a tool call (`resources/read`, `prompts/get`, …). */
  method?: string;
  /** The request's arguments, already redacted. */
  arguments?: unknown;
  /**
   * `decision`: `allow`, `deny` or `approval_required`; `approval`: `approved` or `refused`; `call`:
   * `ok`, `tool_error`, or the error code; `finding`: `quarantined`, else its severity; `gap`: `lost`.
   */
  outcome: string;
  /** The policy rule that decided (its `id`, else its index as `rules[3]`). */
  rule?: string;
  /** A short, redacted summary of the result or the reason. */
  summary?: string;
  ms?: number;
  runId?: string;
  callId?: string;
  /** A `gap` row: how many entries could not be written (from its `since` to its `time`). */
  lost?: number;
  /** A `gap` row: when the first entry it counts could not be written (ISO 8601). */
  since?: string;
}

/** An entry in the log: numbered from 1, and chained to the row before it by hash. */
export interface AuditRow extends AuditEntry {
  seq: number;
  /** The previous row's `hash` (64 zeros for the first row). */
  prevHash: string;
  /** SHA-256 (hex) of `prevHash` and the canonical JSON of the entry with its `seq`. */
  hash: string;
  /** With `audit.key`: HMAC-SHA256 (hex) of the row's `hash` under the key ({@link auditMac}). */
  mac?: string;
}

/** Where audit entries go; the store numbers and chains them. */
export interface AuditSink {
  /** A store resolves with the row it appended ({@link AuditRow}). */
  append(entry: AuditEntry): void | Promise<void> | Promise<AuditRow>;
}

/** The hash a chain starts from. */
export const AUDIT_GENESIS_HASH = "0".repeat(64);

/**
 * The one text a value is hashed as: JSON with every object's keys sorted (by UTF-16 code units), no
 * spaces, `undefined` members left out (as `JSON.stringify` does). Equal values give equal text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (typeof member !== "object" || member === null || Array.isArray(member)) return member;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(member).sort()) sorted[key] = (member as Record<string, unknown>)[key];
    return sorted;
  });
}

/** An audit row's `hash`: SHA-256 (hex) of `prevHash` followed by the canonical JSON of the entry with its `seq`. */
export function auditHash(prevHash: string, entryWithSeq: AuditEntry & { seq: number }): string {
  return auditTextHash(prevHash, canonicalJson(entryWithSeq));
}

/** {@link auditHash} of an entry already in its canonical text (as stores keep it). */
export function auditTextHash(prevHash: string, canonicalText: string): string {
  return createHash("sha256").update(prevHash).update(canonicalText).digest("hex");
}

/** What an {@link auditMac} signs: a row's hash, the chain's head, or an exported checkpoint. */
export type AuditMacPurpose = "row" | "head" | "checkpoint";

/**
 * HMAC-SHA256 (hex) under the audit key (`audit.key`, kept outside the database) of `text`, for one
 * purpose (a row's signature is never valid as a head's or a checkpoint's): whoever can write the
 * database but has not the key cannot rewrite the chain and sign it again.
 */
export function auditMac(key: string, purpose: AuditMacPurpose, text: string): string {
  return createHmac("sha256", key).update(`switchyard-audit-${purpose}\n${text}`).digest("hex");
}
