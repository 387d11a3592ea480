import type { Catalog, CatalogEntry } from "../catalog/catalog.js";
import { isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";
import { callScope } from "../telemetry/call-scope.js";
import {
  type CallRecord,
  elapsedMs,
  newId,
  type Observer,
  type RecordedError,
  recordedError,
} from "../telemetry/events.js";
import type { Logger } from "../telemetry/logger.js";
import { endSpan, failSpan, inSpan, SpanKind, startSpan } from "../telemetry/tracer.js";
import { normalizeResult, type ToolResult } from "./normalize.js";
import { checkIdentity } from "./policy.js";
import type { ManagedServer } from "./server.js";
import { describeParameters, outputProblems, validateArguments } from "./validate.js";

/** Options for one call. */
export interface CallToolOptions {
  /** Deadline for this call; default: the server's `timeoutMs` (60 s). */
  timeoutMs?: number;
  /** Cancels the call: the server is sent `notifications/cancelled`, the call rejects with `CANCELLED`. */
  signal?: AbortSignal;
  /** The run this call belongs to (an agent or plan run), for records, events, logs and wire records. */
  runId?: string;
  /** The call's id (the model's `tool_call_id`, a plan step's id); default: a new one. */
  callId?: string;
  /** The agent step that asked for the call. */
  step?: number;
  /** Each progress notification the server sends for this call (a progress token goes with every call). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Who the call is for, as the policy sees it; default: the Switchyard's identity. */
  identity?: Identity;
}

/** One call on its way through the pipeline, as interceptors see it. */
export interface CallContext {
  readonly id: string;
  readonly runId?: string;
  readonly step?: number;
  /** The catalog name called. */
  readonly name: string;
  /** The server's config key and the tool's own name there. */
  readonly server: string;
  readonly tool: string;
  readonly entry: CatalogEntry;
  /** The arguments as they will be sent: validated and coerced; an interceptor may replace them. */
  args: Record<string, unknown>;
  readonly options: Readonly<CallToolOptions>;
  /**
   * When the call must end (`performance.now()` time), if an interceptor spent some of its deadline
   * (waiting for an approval): the server is given what is left of it.
   */
  deadline?: number;
}

/**
 * A step of every call, plugged into the pipeline (policy, audit, tracing, the gateway, user code).
 * Interceptors run in the order they were added: `before` after the arguments are validated and before
 * anything is sent, `after` on the normalized result, `onError` when the call fails at any stage after
 * it was resolved.
 */
export interface CallInterceptor {
  /**
   * Look at a call before it is sent. Throw to refuse it: a `SwitchyardError` goes to the caller as it
   * is, anything else as `POLICY_DENIED` with its message. Return an object to send those arguments
   * instead (they are checked against the schema again).
   */
  before?(
    call: CallContext,
  ): undefined | Record<string, unknown> | Promise<undefined | Record<string, unknown>>;
  /** Look at a result; return a result to hand back instead. */
  after?(call: CallContext, result: ToolResult): undefined | ToolResult | Promise<undefined | ToolResult>;
  /** The call failed. For observing: the error goes on to the caller as it is. */
  onError?(call: CallContext, error: SwitchyardError): void;
}

/** What the pipeline works with. */
export interface PipelineParts {
  catalog: Catalog;
  server(name: string): ManagedServer | undefined;
  observer: Observer & { readonly size: number };
  /**
   * The server a name not in the catalog would belong to, when that server is down (it failed to
   * connect, so its tools were never listed): the name is its namespace's.
   */
  downServerFor(name: string): { server: string; status: string; error?: string } | undefined;
  logger: Logger;
  isClosed(): boolean;
  /** Enter a call scope around each call (for wire records that name their call). */
  scopeCalls: boolean;
}

/**
 * THE call pipeline, the one way a tool is called — by `Switchyard.callTool`, the agent, plans, the
 * gateway and adapters alike: resolve → validate → interceptors (policy) → the server's guard (breaker,
 * bulkhead, one deadline, safe retries) → one attempt at a time on the connection → normalize →
 * interceptors → record (events, logs).
 */
export class CallPipeline {
  readonly #parts: PipelineParts;
  readonly #interceptors: CallInterceptor[] = [];

  constructor(parts: PipelineParts) {
    this.#parts = parts;
  }

  /** Add an interceptor at the end of the chain; returns the function that removes it. */
  use(interceptor: CallInterceptor): () => void {
    this.#interceptors.push(interceptor);
    return () => {
      const index = this.#interceptors.indexOf(interceptor);
      if (index >= 0) this.#interceptors.splice(index, 1);
    };
  }

  /**
   * Call a tool by its catalog name.
   * @throws SwitchyardError with a code saying what failed, the server and the tool.
   */
  async call(name: unknown, args: unknown, options: CallToolOptions = {}): Promise<ToolResult> {
    checkInput(name, options);
    const { catalog, observer, logger } = this.#parts;
    if (this.#parts.isClosed()) {
      throw new SwitchyardError("CLOSED", `cannot call ${name}: this Switchyard is closed`, { tool: name });
    }
    const id = options.callId ?? newId("call");
    const entry = catalog.get(name);
    // Records cost nothing when nobody reads them: no observer, and debug logs off.
    const observed = observer.size > 0;
    const recording = observed || logger.isLevelEnabled?.("debug") !== false;
    const started = recording ? performance.now() : 0;
    if (observed) {
      observer.onEvent({
        type: "call_started",
        id,
        name,
        arguments: safeJson(args),
        ...(options.runId !== undefined ? { runId: options.runId } : {}),
        ...(options.step !== undefined ? { step: options.step } : {}),
        ...(entry ? { server: entry.server, tool: entry.tool } : {}),
      });
    }
    const finish = recording
      ? (error: RecordedError | undefined, result?: ToolResult) =>
          this.#record({ id, name, entry, options, started, observed }, error, result)
      : undefined;

    if (!entry) {
      const failure = this.#unavailable(name) ?? this.#notFound(name);
      finish?.(recordedError(failure));
      throw failure;
    }
    const call: CallContext = {
      id,
      name,
      server: entry.server,
      tool: entry.tool,
      entry,
      args: {},
      options,
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      ...(options.step !== undefined ? { step: options.step } : {}),
    };
    // The call's span (GenAI `execute_tool`): the server requests of its attempts are its children.
    const span = startSpan(`execute_tool ${name}`, {
      kind: SpanKind.INTERNAL,
      attributes: () => callSpanAttributes(call),
    });
    try {
      // Cancelled before it began: nothing is sent (the SDK would throw a bare AbortError).
      if (options.signal?.aborted) {
        throw new SwitchyardError("CANCELLED", `call to ${name} was cancelled before it started`, {
          server: entry.server,
          tool: entry.tool,
          cause: options.signal.reason,
          delivery: "not_sent",
          serverFault: false,
        });
      }
      const run = () => inSpan(span, () => this.#run(call, args));
      const result = this.#parts.scopeCalls
        ? await callScope.run(
            { callId: id, ...(options.runId !== undefined ? { runId: options.runId } : {}) },
            run,
          )
        : await run();
      if (result.isError) failSpan(span, "the tool answered with an error", "tool_error");
      span.end();
      finish?.(
        result.isError ? { code: "TOOL_ERROR", message: result.text.slice(0, 500) } : undefined,
        result,
      );
      return result;
    } catch (error) {
      endSpan(span, error);
      const failure = isSwitchyardError(error)
        ? error
        : new SwitchyardError(
            "SERVER_ERROR",
            `call to ${entry.tool} on server ${entry.server} failed: ${messageOf(error)}`,
            {
              server: entry.server,
              tool: entry.tool,
              cause: error,
            },
          );
      for (const interceptor of this.#interceptors) interceptor.onError?.(call, failure);
      finish?.(recordedError(failure));
      throw failure;
    }
  }

  /** The call's record: a debug log line, and `call_finished` for the observers. */
  #record(
    call: {
      id: string;
      name: string;
      entry: CatalogEntry | undefined;
      options: CallToolOptions;
      started: number;
      observed: boolean;
    },
    error: RecordedError | undefined,
    result?: ToolResult,
  ): void {
    const { id, name, entry, options } = call;
    const record: CallRecord = {
      id,
      name,
      ok: error === undefined,
      ms: elapsedMs(call.started),
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      ...(entry ? { server: entry.server, tool: entry.tool } : {}),
      ...(error ? { error } : {}),
      ...(result ? { result: result.text } : {}),
    };
    this.#parts.logger.debug(
      {
        runId: options.runId,
        callId: id,
        server: entry?.server,
        tool: entry?.tool,
        ms: record.ms,
        error: error?.code,
      },
      error ? "call failed" : "call finished",
    );
    if (call.observed) {
      this.#parts.observer.onEvent({
        type: "call_finished",
        ...record,
        ...(options.step !== undefined ? { step: options.step } : {}),
      });
    }
  }

  async #run(call: CallContext, args: unknown): Promise<ToolResult> {
    const { entry } = call;
    if (entry.unsupported !== undefined) {
      throw new SwitchyardError(
        "CAPABILITY_MISSING",
        `${entry.name} (tool ${entry.tool} on server ${entry.server}) cannot be called from here: it ${entry.unsupported}`,
        {
          server: entry.server,
          tool: entry.tool,
          capability: "tasks",
          delivery: "final",
          serverFault: false,
        },
      );
    }
    call.args = this.#validate(entry, args);
    for (const interceptor of this.#interceptors) {
      let rewritten: Record<string, unknown> | undefined;
      try {
        rewritten = await interceptor.before?.(call);
      } catch (error) {
        throw isSwitchyardError(error)
          ? error
          : new SwitchyardError(
              "POLICY_DENIED",
              `call to ${entry.tool} on server ${entry.server} was refused: ${messageOf(error)}`,
              { server: entry.server, tool: entry.tool, cause: error, delivery: "final", serverFault: false },
            );
      }
      if (rewritten) call.args = this.#validate(entry, rewritten);
    }
    const server = this.#parts.server(entry.server)!;
    const onProgress = this.#progressOf(call);
    const { signal } = call.options;
    const timeoutMs =
      call.deadline === undefined ? call.options.timeoutMs : Math.max(1, call.deadline - performance.now());
    const guarded =
      timeoutMs === undefined && !signal && !onProgress
        ? NO_OPTIONS
        : {
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
            ...(signal ? { signal } : {}),
            ...(onProgress ? { onProgress } : {}),
          };
    const answered = await server.call(entry, call.args, guarded);
    const broken = outputProblems(entry.outputSchema, answered);
    if (broken) {
      throw new SwitchyardError(
        "INVALID_RESULT",
        `server ${entry.server} answered the call to ${entry.tool} with a result that breaks the tool's own output schema: ${broken.join("; ")}. The tool misbehaved; the arguments were not the problem`,
        { server: entry.server, tool: entry.tool, delivery: "final", serverFault: false },
      );
    }
    let result = normalizeResult(answered);
    for (const interceptor of this.#interceptors) {
      const replaced = await interceptor.after?.(call, result);
      if (replaced) result = replaced;
    }
    return result;
  }

  /** Where a call's progress goes: the caller's `onProgress` and, when observed, `call_progress` events. */
  #progressOf(call: CallContext): CallToolOptions["onProgress"] {
    const { observer } = this.#parts;
    const own = call.options.onProgress;
    if (!own && observer.size === 0) return undefined;
    return (progress) => {
      try {
        own?.(progress);
      } catch {
        // the caller's callback is its own affair
      }
      if (observer.size > 0) {
        observer.onEvent({
          type: "call_progress",
          id: call.id,
          name: call.name,
          progress: progress.progress,
          ...(call.runId !== undefined ? { runId: call.runId } : {}),
          ...(progress.total !== undefined ? { total: progress.total } : {}),
          ...(progress.message !== undefined ? { message: progress.message } : {}),
        });
      }
    };
  }

  #validate(entry: CatalogEntry, args: unknown): Record<string, unknown> {
    const checked = validateArguments(entry.inputSchema, args ?? {});
    if (checked.ok) return checked.value;
    throw new SwitchyardError(
      "INVALID_ARGUMENTS",
      `invalid arguments for ${entry.name} (tool ${entry.tool} on server ${entry.server}): ${checked.problems.join("; ")}. Expected: ${describeParameters(entry.inputSchema, checked.fields)}`,
      { server: entry.server, tool: entry.tool, delivery: "final", serverFault: false },
    );
  }

  #unavailable(name: string): SwitchyardError | undefined {
    const down = this.#parts.downServerFor(name);
    if (!down) return undefined;
    return new SwitchyardError(
      "SERVER_UNAVAILABLE",
      `${name} would be a tool of server ${down.server}, which is ${down.status}${down.error ? `: ${down.error}` : ""}; its tools are not available until it connects (fix it, then reconnect)`,
      { server: down.server, tool: name, delivery: "final", serverFault: false },
    );
  }

  #notFound(name: string): SwitchyardError {
    const suggestions = this.#parts.catalog.suggest(name);
    const hint = suggestions.length
      ? `did you mean ${suggestions.join(", ")}?`
      : "list the tools to see what there is";
    return new SwitchyardError("TOOL_NOT_FOUND", `no tool named ${name} in the catalog; ${hint}`, {
      tool: name,
      delivery: "final",
      serverFault: false,
    });
  }
}

/** A call span's attributes (GenAI `execute_tool`, and which server and tool it went to). */
function callSpanAttributes(call: CallContext): Record<string, string | number> {
  return {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": call.name,
    "gen_ai.tool.call.id": call.id,
    "switchyard.server": call.server,
    "switchyard.tool": call.tool,
    ...(call.runId !== undefined ? { "switchyard.run.id": call.runId } : {}),
    ...(call.step !== undefined ? { "switchyard.step": call.step } : {}),
  };
}

/** The guard's options when the call has none of its own. */
const NO_OPTIONS = Object.freeze({});

/** Refuse what cannot be a call, before anything else: a coded error, never a `TypeError`. */
function checkInput(name: unknown, options: unknown): asserts name is string {
  if (typeof name !== "string" || name === "") {
    throw new SwitchyardError(
      "INVALID_INPUT",
      `a tool name must be a non-empty string (got ${describe(name)}); list the tools to see the names`,
    );
  }
  if (options === null || typeof options !== "object") {
    throw new SwitchyardError(
      "INVALID_INPUT",
      `call options for ${name} must be an object (got ${describe(options)})`,
      {
        tool: name,
      },
    );
  }
  const { timeoutMs, signal, identity } = options as CallToolOptions;
  if (identity !== undefined) checkIdentity(identity, `callTool ${name}`);
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === "number" && timeoutMs > 0 && Number.isFinite(timeoutMs))
  ) {
    throw new SwitchyardError(
      "INVALID_INPUT",
      `timeoutMs for ${name} must be a number of milliseconds above 0 (got ${describe(timeoutMs)})`,
      { tool: name },
    );
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new SwitchyardError(
      "INVALID_INPUT",
      `signal for ${name} must be an AbortSignal (got ${describe(signal)})`,
      {
        tool: name,
      },
    );
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `"${value}"`;
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  return typeof value;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value ?? {}) ?? "";
  } catch {
    return String(value);
  }
}
