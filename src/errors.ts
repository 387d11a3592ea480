/**
 * Stable error codes. Scripts match on `code`, never on the message.
 *
 * - `CONFIG_INVALID`: the config file or object is malformed (CLI exit 2).
 * - `TOOL_NOT_FOUND`: no tool of that name in the catalog.
 * - `INVALID_ARGUMENTS`: arguments do not match the tool's input schema; nothing was sent.
 * - `TIMEOUT`: the call's deadline passed; the server was told to cancel.
 * - `CANCELLED`: the caller's `AbortSignal` fired; the server was told to cancel.
 * - `SERVER_UNAVAILABLE`: the server is not connected, crashed, or is restarting.
 * - `SERVER_ERROR`: the server answered with a JSON-RPC error (see `rpcCode`).
 * - `CIRCUIT_OPEN`: the server's circuit breaker is open; the call failed fast.
 * - `POLICY_DENIED`: a policy refused the request.
 * - `REFUSED`: a run's own check refused the call before anything was sent (an agent's guard: the same
 *   call too many times, a tool it was not offered; a plan's step that could not run).
 * - `QUEUE_FULL`: the server's call queue is full; the call was refused at once.
 * - `RATE_LIMITED`: the server said "not now" (HTTP 429, or 503 with `Retry-After`) for longer than the
 *   call's deadline, or the server's own `rateLimit` has no token for it within it; `retryAfterMs` says
 *   when to try again. The request was not processed.
 * - `RESULT_TOO_LARGE`: the server's answer was over the size limit (`maxResultBytes`, on any transport) and was dropped; the connection lives on.
 * - `CLOSED`: the Switchyard was closed.
 * - `MODEL_NOT_CONFIGURED`: no model to ask (CLI exit 2).
 * - `MODEL_ERROR`: the model's server refused or failed the request (after retries where they help).
 * - `MODEL_TIMEOUT`: the model did not answer in time.
 * - `INVALID_INPUT`: a public API was given a value it cannot use (a tool name that is not a string,
 *   options of the wrong type); nothing was sent.
 * - `CAPABILITY_MISSING`: the server asked for something this client does not offer (an elicitation,
 *   sampling, roots); `capability` names it. A limit of the client: it never counts against the server.
 * - `INVALID_RESULT`: the server's answer broke its own contract (`structuredContent` that does not match
 *   its `outputSchema`): a fault of the tool, not of the arguments.
 * - `AUTH_REQUIRED`: the server refused the client (HTTP 401 or 403); `status` holds it and `challenge`
 *   the `WWW-Authenticate` header when the server sent one.
 * - `RESOURCE_NOT_FOUND`: no server that can take requests lists that resource URI (or a template
 *   matching it); the message has the closest URIs.
 * - `RESOURCE_AMBIGUOUS`: several servers list that URI; the message names them: pass `server`.
 * - `PROMPT_NOT_FOUND`: no prompt of that name in the catalog; the message has the closest names.
 * - `TOOL_QUARANTINED`: the tool is quarantined for what a scan found in its definition (poisoned text,
 *   a look-alike name, a change since it was pinned); nothing was sent. `switchyard trust <server>`
 *   accepts it as it is now.
 * - `SKILL_REFUSED`: a skill a server serves (the Skills extension) failed a check — its entry (no
 *   digests, over the limits, a bad name), a file's size or digest, its `SKILL.md` frontmatter against
 *   the entry's, or a file its entry does not list; the message names the server, the skill and what.
 * - `TASK_NOT_FOUND`: a task picked up again by its id (a plan run resumed) is not known to its server
 *   any more (it expired, or the server restarted), and its tool was not safe to call again.
 */
export type ErrorCode =
  | "CONFIG_INVALID"
  | "TOOL_NOT_FOUND"
  | "INVALID_ARGUMENTS"
  | "TIMEOUT"
  | "CANCELLED"
  | "SERVER_UNAVAILABLE"
  | "SERVER_ERROR"
  | "CIRCUIT_OPEN"
  | "POLICY_DENIED"
  | "REFUSED"
  | "QUEUE_FULL"
  | "RATE_LIMITED"
  | "RESULT_TOO_LARGE"
  | "CLOSED"
  | "MODEL_NOT_CONFIGURED"
  | "MODEL_ERROR"
  | "MODEL_TIMEOUT"
  | "INVALID_INPUT"
  | "CAPABILITY_MISSING"
  | "INVALID_RESULT"
  | "AUTH_REQUIRED"
  | "RESOURCE_NOT_FOUND"
  | "RESOURCE_AMBIGUOUS"
  | "PROMPT_NOT_FOUND"
  | "TOOL_QUARANTINED"
  | "SKILL_REFUSED"
  | "TASK_NOT_FOUND"
  /** The store (run records, sessions, audit log) cannot be opened, read or written. */
  | "STORE_ERROR"
  /**
   * An MCP registry (`switchyard search`, `add`) could not be reached, refused the request, has no such
   * server or version, or lists nothing that can run; `status` holds its HTTP status when it answered.
   */
  | "REGISTRY_ERROR";

/**
 * What a failed call says about its request, decided once where the failure is caught (in `fleet/`):
 * - `not_sent`: the request never left (not connected, a refused connection, a closed pipe): safe to retry;
 * - `transient`: the server said "not now" (HTTP 429/502/503/504, JSON-RPC -32001): the tool did not run;
 * - `maybe_ran`: the request may have reached the tool (a connection dropped mid-answer);
 * - `final`: another try cannot help (bad arguments, a deadline that passed, a crash during the call).
 */
export type Delivery = "not_sent" | "transient" | "maybe_ran" | "final";

/** Structured fields carried by every {@link SwitchyardError}. */
export interface ErrorDetails {
  server?: string;
  tool?: string;
  /** JSON-RPC error code relayed from a server (`SERVER_ERROR`, `INVALID_ARGUMENTS`). */
  rpcCode?: number;
  /** JSON path of the offending config key (`CONFIG_INVALID`). */
  path?: string;
  /** HTTP status of a failed request (`MODEL_ERROR`, `AUTH_REQUIRED`). */
  status?: number;
  /** The capability the client lacks (`CAPABILITY_MISSING`): `elicitation`, `sampling`, `roots`, … */
  capability?: string;
  /** The server's `WWW-Authenticate` challenge (`AUTH_REQUIRED`). */
  challenge?: string;
  /** How long until the server (or its `rateLimit`) takes the request again, in ms (`RATE_LIMITED`). */
  retryAfterMs?: number;
  /** Whether the request reached the server and another try is safe (failed calls). */
  delivery?: Delivery;
  /** True when the failure says the server is unwell: it counts against the server's circuit breaker. */
  serverFault?: boolean;
  /**
   * Failures that share one cause (one lost connection, one crash) carry the same incident: the
   * circuit breaker counts it once.
   */
  incident?: string;
  cause?: unknown;
}

/** The one error class Switchyard throws: a stable `code`, structured fields and an actionable message. */
export class SwitchyardError extends Error {
  override readonly name = "SwitchyardError";
  readonly code: ErrorCode;
  readonly server?: string;
  readonly tool?: string;
  readonly rpcCode?: number;
  readonly path?: string;
  readonly status?: number;
  readonly capability?: string;
  readonly challenge?: string;
  readonly retryAfterMs?: number;
  readonly delivery?: Delivery;
  readonly serverFault?: boolean;
  readonly incident?: string;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    for (const key of DETAIL_KEYS) {
      if (details[key] !== undefined) (this as Record<string, unknown>)[key] = details[key];
    }
  }

  /** The same error with more details (a classification added on the way up). */
  with(details: Omit<ErrorDetails, "cause">): SwitchyardError {
    const copy = new SwitchyardError(this.code, this.message, { ...this.details(), ...details });
    if (this.stack !== undefined) copy.stack = this.stack;
    return copy;
  }

  /**
   * The same error as it may leave the process: its message and stack through `redact`, and without its
   * cause (which holds the text as it came, from a server or a library); this error itself when
   * `redact` finds nothing in its message or stack.
   */
  redacted(redact: (text: string) => string): SwitchyardError {
    const message = redact(this.message);
    const stack = this.stack === undefined ? undefined : redact(this.stack);
    if (message === this.message && stack === this.stack) return this;
    const { cause: _cause, ...details } = this.details();
    const copy = new SwitchyardError(this.code, message, details);
    if (stack !== undefined) copy.stack = stack;
    return copy;
  }

  /** The structured fields, for copying and serializing. */
  details(): ErrorDetails {
    const details: ErrorDetails = {};
    for (const key of DETAIL_KEYS) {
      if (this[key] !== undefined) (details as Record<string, unknown>)[key] = this[key];
    }
    if (this.cause !== undefined) details.cause = this.cause;
    return details;
  }
}

const DETAIL_KEYS = [
  "server",
  "tool",
  "rpcCode",
  "path",
  "status",
  "capability",
  "challenge",
  "retryAfterMs",
  "delivery",
  "serverFault",
  "incident",
] as const satisfies ReadonlyArray<Exclude<keyof ErrorDetails, "cause">>;

/** True when `error` is a {@link SwitchyardError}, optionally with the given code. */
export function isSwitchyardError(error: unknown, code?: ErrorCode): error is SwitchyardError {
  return error instanceof SwitchyardError && (code === undefined || error.code === code);
}

/** The message of anything thrown, for reasons and logs. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A message on one line: a line break and the spaces around it become one space (a parser may quote a file). */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ");
}

/** Walk an error's `cause` chain (bounded) and return the first link that matches. */
export function findCause<T extends object>(
  error: unknown,
  match: (cause: object) => cause is T,
): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth += 1) {
    if (match(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The first Node error `code` along the cause chain that is one of `codes` (ECONNREFUSED, EPIPE, …). */
export function systemErrorCode(error: unknown, codes: ReadonlySet<string>): string | undefined {
  return findCause(error, (cause): cause is { code: string } =>
    codes.has(String((cause as { code?: unknown }).code)),
  )?.code;
}

/** The HTTP status an SDK HTTP error carries somewhere along the cause chain. */
export function httpStatusOf(error: unknown): number | undefined {
  return findCause(
    error,
    (cause): cause is { data: { status: number } } =>
      typeof (cause as { data?: { status?: unknown } }).data?.status === "number",
  )?.data.status;
}

/**
 * What went wrong, as a person should read it: the system error and address under a `fetch failed`
 * (`connect ECONNREFUSED 127.0.0.1:59998`), an HTML error page as its status and `<title>` (never the
 * page) — in the message, or in the body an SDK HTTP error keeps beside it (the version probe's) — the
 * message otherwise.
 */
export function readableFailure(error: unknown): string {
  const system = findCause(
    error,
    (cause): cause is Error & { code: string } =>
      cause instanceof Error &&
      /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(String((cause as { code?: unknown }).code)),
  );
  const message = messageOf(error);
  if (/fetch failed|SSE error|terminated/i.test(message)) {
    if (system)
      return system.message.includes(system.code) ? system.message : `${system.message} (${system.code})`;
    // Some transports keep only the text of the cause: `… fetch failed: connect ECONNREFUSED 127.0.0.1:9`.
    const quoted = /((?:connect |getaddrinfo )?E[A-Z]{3,}\b[^;]*)$/.exec(message)?.[1];
    if (quoted) return quoted;
  }
  const status = httpStatusOf(error);
  const page = status !== undefined ? `HTTP ${status}` : "an HTML error page";
  if (HTML_PAGE.test(message)) return withoutHtml(message, page);
  const body = htmlBodyOf(error);
  if (body === undefined) return message;
  // The message may name the status already ("… answered the probe with HTTP 502"): the title follows.
  return `${message.endsWith(page) ? message : `${message}: ${page}`}${pageTitle(body)} (an HTML page, not MCP)`;
}

/** Where an HTML page starts in a text. */
const HTML_PAGE = /<!doctype html|<html[\s>]/i;

/** Replace an HTML page inside a message by `page` (its status line) and its title. */
function withoutHtml(message: string, page: string): string {
  const start = message.search(HTML_PAGE);
  return `${message.slice(0, start).replace(/[:\s]+$/, "")}: ${page}${pageTitle(message)} (an HTML page, not MCP)`;
}

/** ` "502 Bad Gateway"` for a page with that `<title>`; empty without one. */
function pageTitle(page: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(page)?.[1]?.replace(/\s+/g, " ").trim();
  return title ? ` "${title}"` : "";
}

/** The HTML page an SDK HTTP error keeps as the response's body (`data.text`) along the cause chain. */
function htmlBodyOf(error: unknown): string | undefined {
  return findCause(error, (cause): cause is { data: { text: string } } => {
    const text = (cause as { data?: { text?: unknown } }).data?.text;
    return typeof text === "string" && HTML_PAGE.test(text);
  })?.data.text;
}

/**
 * The names closest to `word`, best first, for "did you mean" hints; none when nothing is close. The
 * one measure of closeness everywhere (tools, prompts, servers, config keys, plan inputs): the better of
 * shared character pairs (long names, reordered words) and edit distance (short names, typos).
 */
export function closestNames(word: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = word.toLowerCase();
  const scored = [...new Set(candidates)]
    .map((name) => ({ name, score: similarity(wanted, name.toLowerCase()) }))
    .sort((a, b) => b.score - a.score);
  // Only names about as close as the closest one: a shared prefix alone is not a suggestion.
  const floor = Math.max(0.55, (scored[0]?.score ?? 0) * 0.85);
  return scored
    .filter((candidate) => candidate.score >= floor)
    .slice(0, limit)
    .map((candidate) => candidate.name);
}

/** "did you mean a, b?" for the names closest to `word`, or "" when none is close. */
export function didYouMean(word: string, candidates: Iterable<string>, limit = 3): string {
  const near = closestNames(word, candidates, limit);
  return near.length ? `did you mean ${near.join(", ")}?` : "";
}

/** How alike two lower-case names are, 0 to 1. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const edits = 1 - editDistance(a, b) / Math.max(a.length, b.length);
  return Math.max(edits, dice(a, b));
}

/** Dice coefficient over character bigrams: cheap and good enough for typos. */
function dice(a: string, b: string): number {
  const grams = (s: string) =>
    new Set(Array.from({ length: Math.max(s.length - 1, 0) }, (_, i) => s.slice(i, i + 2)));
  const left = grams(a);
  const right = grams(b);
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const gram of left) if (right.has(gram)) shared += 1;
  return (2 * shared) / (left.size + right.size);
}

/** Edit distance: insertions, deletions, substitutions and swaps of two neighbours ("nmae" → "name") count one. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
