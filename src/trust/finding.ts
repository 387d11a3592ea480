// What a scan reports: one finding per kind of trouble in one place of one server's text. A finding is
// data for the caller to act on (quarantine, flag, log); the scans never act themselves.

/**
 * The kinds of finding, in the order of the issue that named them: `hidden-text` (characters a reader
 * cannot see), `injection` (text aimed at the model), `exfiltration` (secrets to read or places to send
 * data to), `shadowing` (orders about another server's tools), `lookalike` (names confusable across
 * servers), `drift` (a definition that changed since it was pinned), `oversized` (floods).
 */
export const FINDING_KINDS = [
  "hidden-text",
  "injection",
  "exfiltration",
  "shadowing",
  "lookalike",
  "drift",
  "oversized",
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/**
 * How bad, worst first: `high` is worth a quarantine (an order to the model the user did not give),
 * `medium` suspicious but seen in honest tools (a URL, zero-width characters alone), `low` noise-level
 * (a long but plausible description, ANSI colours).
 */
export const SEVERITIES = ["high", "medium", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * One finding. Its JSON is exactly `{ server, tool?, kind, severity, detail }` plus an optional `where`
 * (a contract: records, `switchyard scan --json` and the audit log keep it as it is).
 */
export interface Finding {
  /** The server whose text it is. */
  server: string;
  /** The server's own name of the tool, when the text is a tool's. */
  tool?: string;
  kind: FindingKind;
  severity: Severity;
  /** What was found, in words a person can act on (the phrases matched, what was hidden). */
  detail: string;
  /**
   * Where in the definition: `description`, `title`, `name`, `inputSchema.properties.memo.description`,
   * `instructions`, `prompt:<name>`, `result`, …
   */
  where?: string;
}

const RANK: Readonly<Record<Severity, number>> = { high: 0, medium: 1, low: 2 };

/** True when `a` is at least as bad as `b`. */
export function atLeast(a: Severity, b: Severity): boolean {
  return RANK[a] <= RANK[b];
}

/** The worst severity among findings, or undefined when there are none. */
export function worstSeverity(findings: readonly Finding[]): Severity | undefined {
  let worst: Severity | undefined;
  for (const finding of findings)
    if (!worst || RANK[finding.severity] < RANK[worst]) worst = finding.severity;
  return worst;
}

/** The worse of two severities (`a` may be none yet). */
export function worse(a: Severity | undefined, b: Severity): Severity {
  return a === undefined || RANK[b] < RANK[a] ? b : a;
}
