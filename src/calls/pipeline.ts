import { abortable, Deadline } from "../abort.js";
import { DEFAULT_CALL_TIMEOUT_MS } from "../config/defaults.js";
import { isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { ServerRequest } from "../fleet/requests.js";
import type { Identity } from "../telemetry/audit.js";
import { callScope } from "../telemetry/call-scope.js";
import { type CallRecord, newId } from "../telemetry/events.js";
import { inSpan } from "../telemetry/tracer.js";
import type { ApprovalHandler } from "./approval.js";
import { describeTarget, refusalFields } from "./approval.js";
import { checkedByRun, checkToolArguments, completionArgument, promptArguments } from "./arguments.js";
import type { AuditWriter } from "./audit-writer.js";
import { checkRequestInput, labelOf } from "./check-input.js";
import { serveUnlisted, serveWithFallback, unlistedTool } from "./fallback.js";
import type { PolicyEngine } from "./policy.js";
import { admit } from "./policy-step.js";
import { type RecorderParts, RequestRecord } from "./recorder.js";
import {
  REQUEST_METHODS,
  type RequestContext,
  type RequestInput,
  type RequestInterceptor,
  type RequestKind,
  type RequestOutcome,
  type RequestResult,
  type RequestResults,
} from "./request.js";
import { quarantineOf, type Resolved, type ResolveParts, resolveRequest } from "./resolve.js";
import { sharedWaitFailure } from "./result-cache.js";
import {
  completionResult,
  promptResult,
  readFailure,
  resourceResult,
  resultText,
  toolResult,
} from "./results.js";
import { resumeTask } from "./resume-task.js";
import { isRepeatable } from "./retry.js";
import type { ManagedServer } from "./server.js";
import type { JsonSchema } from "./validate.js";

/** What the pipeline works with. */
export interface PipelineParts extends ResolveParts, Omit<RecorderParts, "audit"> {
  server(name: string): ManagedServer | undefined;
  /** The one engine that decides listings and requests; none: everything is allowed. */
  policy: PolicyEngine | undefined;
  onApproval?: ApprovalHandler | undefined;
  audit?: AuditWriter | undefined;
  /** Who a request is for when it does not say. */
  identity: Identity;
  isClosed(): boolean;
  /** Enter a call scope around each request (for wire records that name their call). */
  scopeCalls: boolean;
  /**
   * Resolves when the records of the events so far are written (the store's recorder): a task's id is
   * kept before the task is followed, so a process killed meanwhile leaves it behind.
   */
  recorded?: (() => Promise<void>) | undefined;
  /**
   * Redacts a failure's text (the Switchyard's redactor): what a server said in an error, or left on its
   * stderr, reaches the caller, the record and the span without the secrets in it.
   */
  redactText?: ((text: string) => string) | undefined;
}

/**
 * THE request pipeline, the one way a server is asked anything — by the Switchyard's methods, the
 * agent, plans, the gateway and adapters alike, for every kind of request: resolve → the run's checks
 * → validate → policy (approval) → interceptors → the server's guard (breaker, bulkhead, one deadline,
 * safe retries) → one attempt at a time on the connection → normalize → interceptors → record. It is the
 * only place that records and emits; callers get an outcome.
 */
export class RequestPipeline {
  readonly #parts: PipelineParts;
  readonly #interceptors: RequestInterceptor[] = [];
  readonly #recorder: RecorderParts;

  constructor(parts: PipelineParts) {
    this.#parts = parts;
    this.#recorder = {
      observer: parts.observer,
      redact: parts.redact,
      logger: parts.logger,
      audit: parts.audit,
    };
  }

  /** Add an interceptor at the end of the chain; returns the function that removes it. */
  use(interceptor: RequestInterceptor): () => void {
    this.#interceptors.push(interceptor);
    return () => {
      const index = this.#interceptors.indexOf(interceptor);
      if (index >= 0) this.#interceptors.splice(index, 1);
    };
  }

  /** Run one request to its outcome. Never rejects for the request's own failure: the outcome says it. */
  async run<K extends RequestKind>(
    input: Extract<RequestInput, { kind: K }>,
  ): Promise<RequestOutcome<RequestResults[K]>> {
    const invalid = checkRequestInput(input as RequestInput) ?? this.#closed(input as RequestInput);
    if (invalid) return { ok: false, error: invalid, record: unrecorded(input, invalid) };
    const kind = input.kind as RequestKind;
    const id = input.callId ?? newId("call");
    const record = new RequestRecord(this.#recorder, {
      id,
      name: labelOf(input),
      method: kind === "tool" ? undefined : REQUEST_METHODS[kind],
      options: input,
      arguments: () => safeJson(argumentsOf(input)),
    });
    let resolved: Resolved;
    try {
      resolved = resolveRequest(input, this.#parts);
    } catch (error) {
      const asked = input as RequestInput;
      const unlisted = asked.kind === "tool" ? unlistedTool(asked.name, error, this.#parts) : undefined;
      if (!unlisted) {
        record.started(undefined);
        return this.#failed(record, undefined, error);
      }
      resolved = unlisted;
    }
    record.started({ server: resolved.server, tool: resolved.tool });
    const context = this.#context(input, id, resolved);
    const span = record.trace(context);
    const work = () =>
      span
        ? inSpan(span, () => this.#stages(input, resolved, context, record))
        : this.#stages(input, resolved, context, record);
    try {
      const result = this.#parts.scopeCalls
        ? await callScope.run(
            { callId: id, ...(input.runId !== undefined ? { runId: input.runId } : {}) },
            work,
          )
        : await work();
      const text = resultText(result);
      const toolError = kind === "tool" && (result as RequestResults["tool"]).isError;
      const cached = kind === "tool" && (result as RequestResults["tool"]).cached === true;
      const end = { ...(text !== undefined ? { text } : {}), toolError, ...(cached ? { cached } : {}) };
      // The call row is written before the result goes out: one that cannot be fails the request
      // (audit.onWriteError: "fail"), so no caller gets a result whose row is lost.
      const unaudited = await record.audited(end);
      if (unaudited) return this.#failed(record, context, unaudited, true);
      return { ok: true, result: result as RequestResults[K], record: record.finished(end) };
    } catch (error) {
      return this.#failed(record, context, error);
    } finally {
      context.deadline.dispose(); // a timer an approval's wait or the guard made for it
    }
  }

  /** The request failed: its `call` row (when admitted and not `audited` already), its record. */
  async #failed<T>(
    record: RequestRecord,
    context: RequestContext | undefined,
    error: unknown,
    audited = false,
  ): Promise<RequestOutcome<T>> {
    const raw = this.#asSwitchyardError(context, error);
    const failure = this.#parts.redactText ? raw.redacted(this.#parts.redactText) : raw;
    if (context) for (const interceptor of this.#interceptors) interceptor.onError?.(context, failure);
    const refusal = (error as { refusal?: CallRecord["error"] }).refusal;
    const end = { error: refusal ?? failure };
    // A failure whose row cannot be written fails as it is (the row's loss is logged and counted).
    if (!audited) await record.audited(end);
    return { ok: false, error: failure, record: record.finished(end) };
  }

  /** Every stage after resolving, to the request's result. */
  async #stages(
    input: RequestInput,
    resolved: Resolved,
    context: RequestContext,
    record: RequestRecord,
  ): Promise<RequestResult> {
    if (input.signal?.aborted) throw this.#cancelledBefore(context, input.signal);
    if (input.kind === "tool" && resolved.unlisted)
      return serveUnlisted(input, resolved, context, record, this.#parts, (where, moved) =>
        this.#send(input, where, moved, record),
      );
    if (input.kind === "tool") {
      const schema = (resolved.local?.inputSchema ?? resolved.entry!.inputSchema) as JsonSchema;
      const given = checkedByRun(input, resolved, context, schema);
      context.args = checkToolArguments(resolved, schema, given);
      if (resolved.local) return resolved.local.run(context.args);
    } else if (input.kind === "prompt")
      context.args = promptArguments(resolved.prompt!, input.arguments ?? {});
    else if (input.kind === "complete") {
      const { argument } = completionArgument(input.argument, input.context);
      context.args = { argument: argument.name, value: argument.value };
    } else context.args = { uri: resolved.tool };

    if (input.kind !== "unsubscribe") await admit(context, resolved.target, this.#parts);
    record.admitted(context);
    for (const interceptor of this.#interceptors) {
      const rewritten = await this.#before(interceptor, context);
      if (!rewritten) continue;
      if (input.kind === "tool")
        context.args = checkToolArguments(resolved, resolved.entry!.inputSchema as JsonSchema, rewritten);
      else if (input.kind === "prompt") context.args = promptArguments(resolved.prompt!, rewritten);
    }
    let result = await this.#serve(input, resolved, context, record);
    for (const interceptor of this.#interceptors) {
      const replaced = await interceptor.after?.(context, result);
      if (replaced !== undefined) result = replaced;
    }
    return result;
  }

  /**
   * The admitted request to its server — or, for a tool call whose server names fallbacks
   * (`fallback`), to the first fallback that can serve it while the server is down, its breaker is
   * open or it was unavailable for the call (calls/fallback.ts). A call with no fallback goes straight on.
   */
  async #serve(
    input: RequestInput,
    resolved: Resolved,
    context: RequestContext,
    record: RequestRecord,
  ): Promise<RequestResult> {
    if (input.kind === "tool" && input.resumeTask)
      return resumeTask(input.resumeTask, resolved, context, this.#parts.logger, (taskId) =>
        this.#send(input, resolved, context, record, taskId),
      );
    const fallbacks = input.kind === "tool" ? this.#parts.server(resolved.server)?.fallback : undefined;
    if (!fallbacks) return this.#send(input, resolved, context, record);
    return serveWithFallback(fallbacks, resolved, context, record, this.#parts, (where, moved) =>
      this.#send(input, where, moved, record),
    );
  }

  /** The admitted request to its server, through the server's guard; its answer as the caller gets it. */
  async #send(
    input: RequestInput,
    resolved: Resolved,
    context: RequestContext,
    record: RequestRecord,
    taskId?: string,
  ): Promise<RequestResult> {
    const server = this.#parts.server(resolved.server)!;
    const guarded = {
      what: describeTarget(context),
      ...(input.kind === "tool" ? { tool: resolved.tool } : {}),
      deadline: context.deadline,
      signal: input.signal,
      priority: input.priority,
      attemptMs: server.budget(input.timeoutMs).attemptMs,
      repeatable: input.kind !== "tool" || isRepeatable(resolved.entry?.annotations),
    };
    const args = context.args;
    switch (input.kind) {
      case "tool": {
        const onProgress =
          record.listened || input.onProgress ? progressTo(record, input.onProgress) : undefined;
        const request: ServerRequest = {
          method: "tools/call",
          tool: resolved.tool,
          args,
          ...(onProgress ? { onProgress } : {}),
          ...(taskId !== undefined ? { resumeTask: taskId } : {}),
          onTask: async (created) => {
            record.task(created);
            try {
              input.onTask?.(created);
            } catch {
              // the caller's callback is its own affair, as its onProgress is
            }
            // The id is in the store before the task is followed: a process killed meanwhile leaves it.
            // Within the call's deadline and signal: a slow store delays the task, never holds it past them.
            const recorded = this.#parts.recorded?.();
            if (recorded) await abortable(recorded, context.deadline.signalWith(input.signal));
          },
        };
        // A tool quarantined since it was resolved (its lazy server, started for this call, listed it
        // changed) is not sent.
        const beforeSend = () => quarantineOf(this.#parts.catalog.get(resolved.name));
        const send = async () => toolResult(resolved, await server.send({ ...guarded, request, beforeSend }));
        // The server's result cache, when it has one and the tool only reads: after the policy and the
        // approval (a refused call stays refused), before the guard (a hit, or a call that joins an
        // identical one in flight, sends nothing).
        const key =
          taskId === undefined
            ? server.cache?.keyOf(resolved.tool, resolved.entry, args, context.identity)
            : undefined;
        if (key === undefined) return send();
        const where = { server: resolved.server, tool: resolved.tool };
        return server.cache!.serve(key, send, (shared) =>
          abortable(shared, context.deadline.signalWith(input.signal), () =>
            sharedWaitFailure(guarded.what, where, context.deadline.limitMs, input.signal?.aborted === true),
          ),
        );
      }
      case "resource":
        try {
          return resourceResult(
            resolved,
            await server.send({ ...guarded, request: { method: "resources/read", uri: resolved.tool } }),
          );
        } catch (error) {
          throw readFailure(resolved, error);
        }
      case "prompt":
        return promptResult(
          resolved,
          await server.send({
            ...guarded,
            request: { method: "prompts/get", prompt: resolved.tool, args: args as Record<string, string> },
          }),
        );
      case "complete": {
        const { argument, context: given } = completionArgument(input.argument, input.context);
        const ref =
          input.ref.type === "ref/prompt"
            ? { type: "ref/prompt" as const, name: resolved.tool }
            : { type: "ref/resource" as const, uri: resolved.tool };
        return completionResult(
          resolved,
          await server.send({
            ...guarded,
            request: { method: "completion/complete", ref, argument, ...(given ? { context: given } : {}) },
          }),
        );
      }
      case "subscribe":
        return server.send({ ...guarded, request: { method: "resources/subscribe", uri: resolved.tool } });
      case "unsubscribe":
        return server.send({ ...guarded, request: { method: "resources/unsubscribe", uri: resolved.tool } });
      case "skills": {
        const request = { method: "skills/list" as const, cursor: input.cursor };
        return { server: resolved.server, ...(await server.send({ ...guarded, request })) };
      }
      case "skill": {
        const request = { method: "skills/get" as const, uri: resolved.tool };
        return { server: resolved.server, ...(await server.send({ ...guarded, request })) };
      }
    }
  }

  async #before(
    interceptor: RequestInterceptor,
    context: RequestContext,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      return await interceptor.before?.(context);
    } catch (error) {
      throw isSwitchyardError(error)
        ? error
        : new SwitchyardError(
            "POLICY_DENIED",
            `${describeTarget(context)} was refused: ${messageOf(error)}`,
            {
              ...refusalFields(context),
              cause: error,
            },
          );
    }
  }

  /** The request as the policy, approvals and interceptors see it (its arguments are filled in as they are checked). */
  #context(input: RequestInput, id: string, resolved: Resolved): RequestContext {
    const server = resolved.local ? undefined : this.#parts.server(resolved.server);
    const limitMs = server
      ? server.budget(input.timeoutMs).limitMs
      : (input.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
    return {
      id,
      kind: input.kind,
      method: REQUEST_METHODS[input.kind],
      name: resolved.name,
      server: resolved.server,
      tool: resolved.tool,
      ...(resolved.entry ? { entry: resolved.entry } : {}),
      ...(resolved.uri !== undefined ? { uri: resolved.uri } : {}),
      args: {},
      identity: input.identity ?? this.#parts.identity,
      ...(input.runId !== undefined ? { runId: input.runId } : {}),
      ...(input.step !== undefined ? { step: input.step } : {}),
      options: input,
      deadline: new Deadline(limitMs),
    };
  }

  #closed(input: RequestInput): SwitchyardError | undefined {
    if (!this.#parts.isClosed()) return undefined;
    const what = labelOf(input);
    return new SwitchyardError(
      "CLOSED",
      `cannot ${input.kind === "tool" ? "call" : "ask for"} ${what}: this Switchyard is closed`,
      input.kind === "tool" ? { tool: what } : {},
    );
  }

  /** Cancelled before it began: nothing is sent (the SDK would throw a bare AbortError). */
  #cancelledBefore(context: RequestContext, signal: AbortSignal): SwitchyardError {
    return new SwitchyardError(
      "CANCELLED",
      `${context.kind === "tool" ? "call to " : ""}${context.name} was cancelled before it started`,
      {
        ...refusalFields(context),
        cause: signal.reason,
        delivery: "not_sent",
      },
    );
  }

  #asSwitchyardError(context: RequestContext | undefined, error: unknown): SwitchyardError {
    if (isSwitchyardError(error)) return error;
    const where = context ? describeTarget(context) : "the request";
    return new SwitchyardError("SERVER_ERROR", `${where} failed: ${messageOf(error)}`, {
      ...(context
        ? { server: context.server, ...(context.kind === "tool" ? { tool: context.tool } : {}) }
        : {}),
      cause: error,
    });
  }
}

/** A request's progress to the caller's `onProgress` and to the record's `call_progress` events. */
function progressTo(
  record: RequestRecord,
  own: ((progress: { progress: number; total?: number; message?: string }) => void) | undefined,
) {
  return (progress: { progress: number; total?: number; message?: string }) => {
    try {
      own?.(progress);
    } catch {
      // the caller's callback is its own affair
    }
    record.progress(progress);
  };
}

/** The record of a request refused before it could be recorded (bad input, a closed Switchyard): never emitted. */
function unrecorded(input: RequestInput, error: SwitchyardError): CallRecord {
  return {
    id: input?.callId ?? "",
    name: labelOf(input),
    ok: false,
    ms: 0,
    error: { code: error.code, message: error.message },
  };
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
