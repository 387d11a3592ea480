// What a scan reports (trust/ makes them): one finding per kind of trouble in one place of one server's
// text — one record, which events, the store, the viewer and the audit log carry as it is. A finding is
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
  /** The tool's definition was accepted as it is (`trust`): reported, never quarantining. */
  accepted?: boolean;
}
