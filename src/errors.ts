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
 * - `POLICY_DENIED`: a policy refused the call.
 * - `QUEUE_FULL`: the server's call queue is full; the call was refused at once.
 * - `RESULT_TOO_LARGE`: the server's answer was over the size limit and was dropped; the connection lives on.
 * - `CLOSED`: the Switchyard was closed.
 * - `MODEL_NOT_CONFIGURED`: no model to ask (CLI exit 2).
 * - `MODEL_ERROR`: the model's server refused or failed the request (after retries where they help).
 * - `MODEL_TIMEOUT`: the model did not answer in time.
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
  | "QUEUE_FULL"
  | "RESULT_TOO_LARGE"
  | "CLOSED"
  | "MODEL_NOT_CONFIGURED"
  | "MODEL_ERROR"
  | "MODEL_TIMEOUT";

/** Structured fields carried by every {@link SwitchyardError}. */
export interface ErrorDetails {
  server?: string;
  tool?: string;
  /** JSON-RPC error code relayed from a server (`SERVER_ERROR`, `INVALID_ARGUMENTS`). */
  rpcCode?: number;
  /** JSON path of the offending config key (`CONFIG_INVALID`). */
  path?: string;
  /** HTTP status of a failed model request (`MODEL_ERROR`). */
  status?: number;
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

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    if (details.server !== undefined) this.server = details.server;
    if (details.tool !== undefined) this.tool = details.tool;
    if (details.rpcCode !== undefined) this.rpcCode = details.rpcCode;
    if (details.path !== undefined) this.path = details.path;
    if (details.status !== undefined) this.status = details.status;
  }
}

/** True when `error` is a {@link SwitchyardError}, optionally with the given code. */
export function isSwitchyardError(error: unknown, code?: ErrorCode): error is SwitchyardError {
  return error instanceof SwitchyardError && (code === undefined || error.code === code);
}

/** The message of anything thrown, for reasons and logs. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
