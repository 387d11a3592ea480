import { DEFAULT_RECORDED_ERROR_CHARS } from "../config/defaults.js";
import type { SwitchyardError } from "../errors.js";
import {
  type CallRecord,
  elapsedMs,
  type Observer,
  type RecordedError,
  recordedError,
  type SwitchyardEvent,
} from "../telemetry/events.js";
import type { Logger } from "../telemetry/logger.js";
import { endSpan, failSpan, type Span, SpanKind, startSpan } from "../telemetry/tracer.js";
import type { AuditWriter } from "./audit-writer.js";
import type { RequestContext, RequestOptions } from "./request.js";

/** What a request's record knows before it is resolved: its id, what was asked, for whom. */
export interface RecordStart {
  id: string;
  name: string;
  /** Absent for a tool call. */
  method?: string | undefined;
  options: RequestOptions;
  /** The arguments as given, for `call_started`. */
  arguments: () => string;
}

/** Where a request's record goes: the Switchyard's observers (redacted), the log, the audit log. */
export interface RecorderParts {
  observer: Observer & { readonly size: number };
  /** Redacts an event for a run's own listener (the observers' events are redacted on their way). */
  redact: (event: SwitchyardEvent) => SwitchyardEvent;
  logger: Logger;
  audit: AuditWriter | undefined;
}

/** How a request ended: with a result (`text`, `toolError` when a tool answered `isError`), or `error`. */
export interface RequestEnd {
  text?: string;
  toolError?: boolean;
  /** The result came from the server's result cache: nothing was sent. */
  cached?: boolean;
  error?: SwitchyardError | RecordedError;
}

/**
 * The one record of one request: `call_started`, `call_progress` and `call_finished` for the
 * Switchyard's observers and the run's own listener, its span, its debug log line, and its `call` row
 * in the audit log once it was admitted ({@link audited}, before it is finished). Events are built
 * only when someone listens.
 */
export class RequestRecord {
  readonly #parts: RecorderParts;
  readonly #start: RecordStart;
  readonly #started = performance.now();
  readonly #listened: boolean;
  #where: { server: string; tool: string } | undefined;
  #admitted: RequestContext | undefined;
  #span: Span | undefined;
  /** The fallback server the request went to, when its own server could not serve it. */
  #servedBy: string | undefined;
  #taskId: string | undefined;

  constructor(parts: RecorderParts, start: RecordStart) {
    this.#parts = parts;
    this.#start = start;
    this.#listened = parts.observer.size > 0 || start.options.onEvent !== undefined;
  }

  /** Whether events are heard (progress is asked for only then, unless the caller wants it). */
  get listened(): boolean {
    return this.#listened;
  }

  /** The request began: where it goes, when that is known. */
  started(where: { server: string; tool: string } | undefined): void {
    this.#where = where;
    const { id, name, method, options } = this.#start;
    if (!this.#listened) return;
    this.#emit({
      type: "call_started",
      id,
      name,
      ...(method !== undefined ? { method } : {}),
      arguments: this.#start.arguments(),
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      ...(options.step !== undefined ? { step: options.step } : {}),
      ...(where ?? {}),
    });
  }

  /**
   * The request's span: a tool call's GenAI `execute_tool <name>`, another request's
   * `{mcp.method.name} {target}` as the MCP semantic conventions name it — `prompts/get <name>`, and
   * the method alone for the rest (a resource's URI is an attribute, not part of the name: one name per
   * URI is too many). The requests its attempts send are its children. Ended with the record.
   */
  trace(request: RequestContext): Span {
    const tool = request.kind === "tool";
    const name = tool
      ? `execute_tool ${request.name}`
      : request.kind === "prompt"
        ? `${request.method} ${request.name}`
        : request.method;
    this.#span = startSpan(name, {
      kind: SpanKind.INTERNAL,
      attributes: () => ({
        "mcp.method.name": request.method,
        ...(tool
          ? {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": request.name,
              "gen_ai.tool.call.id": request.id,
            }
          : request.kind === "prompt"
            ? { "gen_ai.prompt.name": request.name }
            : request.uri !== undefined
              ? { "mcp.resource.uri": request.uri }
              : {}),
        "switchyard.server": request.server,
        "switchyard.tool": request.tool,
        ...(request.runId !== undefined ? { "switchyard.run.id": request.runId } : {}),
        ...(request.step !== undefined ? { "switchyard.step": request.step } : {}),
      }),
    });
    return this.#span;
  }

  /**
   * The server runs the call as a task (or a task was picked up for it): the record, events and span
   * carry its id, and `call_task` says it at once.
   */
  task(taskId: string): void {
    this.#taskId = taskId;
    this.#span?.setAttribute("switchyard.task.id", taskId);
    if (!this.#listened) return;
    const { id, name, options } = this.#start;
    this.#emit({
      type: "call_task",
      id,
      name,
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      ...(this.#where ?? {}),
      ...(this.#servedBy !== undefined ? { servedBy: this.#servedBy } : {}),
      taskId,
    });
  }

  /** The request went to a fallback server (its own was down): the record, events and span say which. */
  servedBy(server: string): void {
    this.#servedBy = server;
    this.#span?.setAttribute("switchyard.served_by", server);
  }

  /** The request passed the policy: its outcome gets a `call` row in the audit log. */
  admitted(request: RequestContext): void {
    this.#admitted = request;
  }

  progress(progress: { progress: number; total?: number; message?: string }): void {
    if (!this.#listened) return;
    const { id, name, options } = this.#start;
    this.#emit({
      type: "call_progress",
      id,
      name,
      progress: progress.progress,
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      ...(progress.total !== undefined ? { total: progress.total } : {}),
      ...(progress.message !== undefined ? { message: progress.message } : {}),
    });
  }

  /**
   * The request's `call` row, once it was admitted: resolves when it is written, or with the error the
   * request must fail with when it cannot be (`audit.onWriteError: "fail"`).
   */
  async audited(end: RequestEnd): Promise<SwitchyardError | undefined> {
    if (!this.#admitted || !this.#parts.audit) return undefined;
    const error = errorOf(end);
    return await this.#parts.audit.write(this.#admitted, {
      kind: "call",
      outcome: error ? (error.code === "TOOL_ERROR" ? "tool_error" : error.code) : "ok",
      ms: Math.round(elapsedMs(this.#started) * 1000) / 1000,
      ...(error ? { summary: error.message.slice(0, 200) } : end.cached ? { summary: "cached" } : {}),
    });
  }

  /**
   * The request ended: with a result (`text` is its rendering; `toolError` when a tool answered
   * `isError`), or with `error`. Returns its record.
   */
  finished(end: RequestEnd): CallRecord {
    const { id, name, method, options } = this.#start;
    const error = errorOf(end);
    const record: CallRecord = {
      id,
      name,
      ...(method !== undefined ? { method } : {}),
      ok: error === undefined,
      ms: elapsedMs(this.#started),
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      ...(this.#where ?? {}),
      ...(this.#servedBy !== undefined ? { servedBy: this.#servedBy } : {}),
      ...(this.#taskId !== undefined ? { taskId: this.#taskId } : {}),
      ...(error ? { error } : {}),
      ...(end.text !== undefined ? { result: end.text } : {}),
      ...(end.cached ? { cached: true as const } : {}),
    };
    this.#endSpan(end, error);
    const { logger } = this.#parts;
    if (logger.isLevelEnabled?.("debug") !== false)
      logger.debug(
        {
          runId: options.runId,
          callId: id,
          server: this.#where?.server,
          tool: this.#where?.tool,
          ...(this.#servedBy !== undefined ? { servedBy: this.#servedBy } : {}),
          ms: record.ms,
          error: error?.code,
        },
        error ? "call failed" : "call finished",
      );
    if (this.#listened)
      this.#emit({
        type: "call_finished",
        ...record,
        ...(options.step !== undefined ? { step: options.step } : {}),
      });
    return record;
  }

  #endSpan(end: { error?: unknown }, error: RecordedError | undefined): void {
    const span = this.#span;
    if (!span) return;
    if (end.error) endSpan(span, end.error);
    else {
      if (error) failSpan(span, "the tool answered with an error", "tool_error");
      span.end();
    }
  }

  #emit(event: SwitchyardEvent): void {
    if (this.#parts.observer.size > 0) this.#parts.observer.onEvent(event);
    const own = this.#start.options.onEvent;
    if (own) {
      try {
        own(this.#parts.redact(event));
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

/** What a request's end records as its error: its own, a tool's `isError` answer, or none. */
function errorOf(end: RequestEnd): RecordedError | undefined {
  if (end.error) return end.error instanceof Error ? recordedError(end.error) : end.error;
  if (end.toolError)
    return { code: "TOOL_ERROR", message: (end.text ?? "").slice(0, DEFAULT_RECORDED_ERROR_CHARS) };
  return undefined;
}
