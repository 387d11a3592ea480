import { Deadline } from "../abort.js";
import { DEFAULT_CALL_TIMEOUT_MS } from "../config/defaults.js";
import { isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";
import { callScope } from "../telemetry/call-scope.js";
import { newId } from "../telemetry/events.js";
import { inSpan } from "../telemetry/tracer.js";
import type { ApprovalHandler } from "./approval.js";
import { describeTarget, refusalFields } from "./approval.js";
import { checkedByRun, checkToolArguments, completionArgument, promptArguments } from "./arguments.js";
import type { AuditWriter } from "./audit-writer.js";
import { checkRequestInput, labelOf } from "./check-input.js";
import { serveUnlisted, serveWithFallback, unlistedTool } from "./fallback.js";
import { failed, type OutcomeParts, recordedArguments, succeeded, unrecorded } from "./outcome.js";
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
import { type Resolved, type ResolveParts, resolveRequest } from "./resolve.js";
import { resumeTask } from "./resume-task.js";
import { sendRequest } from "./send.js";
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
  readonly #outcome: OutcomeParts;

  constructor(parts: PipelineParts) {
    this.#parts = parts;
    this.#outcome = { interceptors: this.#interceptors, redactText: parts.redactText };
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
      arguments: () => recordedArguments(input),
    });
    let resolved: Resolved;
    try {
      resolved = resolveRequest(input, this.#parts);
    } catch (error) {
      const asked = input as RequestInput;
      const unlisted = asked.kind === "tool" ? unlistedTool(asked.name, error, this.#parts) : undefined;
      if (!unlisted) {
        record.started(undefined);
        return failed(record, undefined, error, this.#outcome);
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
      return await succeeded(record, context, result, this.#outcome);
    } catch (error) {
      return failed(record, context, error, this.#outcome);
    } finally {
      context.deadline.dispose(); // a timer an approval's wait or the guard made for it
    }
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
        sendRequest({ input, resolved: where, context: moved, record }, this.#parts),
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
        sendRequest({ input, resolved, context, record, taskId }, this.#parts),
      );
    const fallbacks = input.kind === "tool" ? this.#parts.server(resolved.server)?.fallback : undefined;
    if (!fallbacks) return sendRequest({ input, resolved, context, record }, this.#parts);
    return serveWithFallback(fallbacks, resolved, context, record, this.#parts, (where, moved) =>
      sendRequest({ input, resolved: where, context: moved, record }, this.#parts),
    );
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
}
