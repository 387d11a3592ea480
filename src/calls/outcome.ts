import { isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { CallRecord } from "../telemetry/events.js";
import { describeTarget } from "./approval.js";
import { labelOf } from "./check-input.js";
import type { RequestRecord } from "./recorder.js";
import type {
  RequestContext,
  RequestInput,
  RequestInterceptor,
  RequestOutcome,
  RequestResult,
  RequestResults,
} from "./request.js";
import { resultText } from "./results.js";

/** What ending a request reads: the interceptors told of its failure, and the redaction of a failure's text. */
export interface OutcomeParts {
  interceptors: readonly RequestInterceptor[];
  /**
   * Redacts a failure's text (the Switchyard's redactor): what a server said in an error, or left on its
   * stderr, reaches the caller, the record and the span without the secrets in it.
   */
  redactText?: ((text: string) => string) | undefined;
}

/**
 * The request succeeded: its outcome, once its call row is written — one that cannot be fails the request
 * (`audit.onWriteError: "fail"`), so no caller gets a result whose row is lost.
 */
export async function succeeded<T>(
  record: RequestRecord,
  context: RequestContext,
  result: RequestResult,
  parts: OutcomeParts,
): Promise<RequestOutcome<T>> {
  const text = resultText(result);
  const toolError = context.kind === "tool" && (result as RequestResults["tool"]).isError;
  const cached = context.kind === "tool" && (result as RequestResults["tool"]).cached === true;
  const end = { ...(text !== undefined ? { text } : {}), toolError, ...(cached ? { cached } : {}) };
  const unaudited = await record.audited(end);
  if (unaudited) return failed(record, context, unaudited, parts, true);
  return { ok: true, result: result as T, record: record.finished(end) };
}

/**
 * The request failed: as a SwitchyardError (redacted), told to the interceptors, with its `call` row
 * (when admitted and not `audited` already) and its record.
 */
export async function failed<T>(
  record: RequestRecord,
  context: RequestContext | undefined,
  error: unknown,
  parts: OutcomeParts,
  audited = false,
): Promise<RequestOutcome<T>> {
  const raw = asSwitchyardError(context, error);
  const failure = parts.redactText ? raw.redacted(parts.redactText) : raw;
  if (context) for (const interceptor of parts.interceptors) interceptor.onError?.(context, failure);
  const refusal = (error as { refusal?: CallRecord["error"] }).refusal;
  const end = { error: refusal ?? failure };
  // A failure whose row cannot be written fails as it is (the row's loss is logged and counted).
  if (!audited) await record.audited(end);
  return { ok: false, error: failure, record: record.finished(end) };
}

function asSwitchyardError(context: RequestContext | undefined, error: unknown): SwitchyardError {
  if (isSwitchyardError(error)) return error;
  const where = context ? describeTarget(context) : "the request";
  return new SwitchyardError("SERVER_ERROR", `${where} failed: ${messageOf(error)}`, {
    ...(context
      ? { server: context.server, ...(context.kind === "tool" ? { tool: context.tool } : {}) }
      : {}),
    cause: error,
  });
}

/** The record of a request refused before it could be recorded (bad input, a closed Switchyard): never emitted. */
export function unrecorded(input: RequestInput, error: SwitchyardError): CallRecord {
  return {
    id: input?.callId ?? "",
    name: labelOf(input),
    ok: false,
    ms: 0,
    error: { code: error.code, message: error.message },
  };
}

/** A request's arguments as its record keeps them: JSON text (a tool call's own text when it came as text). */
export function recordedArguments(input: RequestInput): string {
  return safeJson(argumentsOf(input));
}

function argumentsOf(input: RequestInput): unknown {
  switch (input.kind) {
    case "prompt":
      return input.arguments ?? {};
    case "complete":
      return { ref: input.ref, argument: input.argument };
    case "tool":
      return input.argumentsText ?? input.arguments;
    case "skills":
      return input.cursor !== undefined ? { cursor: input.cursor } : {};
    default:
      return { uri: input.uri };
  }
}

function safeJson(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value ?? {}) ?? "";
  } catch {
    return String(value);
  }
}
