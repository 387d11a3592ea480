// OpenTelemetry spans through `@opentelemetry/api` alone: without an SDK registered by the user every
// span is the API's non-recording one (no attributes are built, no context is entered), so tracing
// costs a function call or two. Names and attributes follow the GenAI and MCP semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/): `invoke_agent`, `chat {model}`,
// `execute_tool {tool}`, `{mcp.method.name} {tool}`; what they do not cover is `switchyard.*`.
import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";

export { type Span, SpanKind } from "@opentelemetry/api";

/** The instrumentation scope of every Switchyard span. */
export const TRACER_NAME = "switchyard";

let cached: { provider: TracerProvider; tracer: Tracer } | undefined;
/** The tracer of the provider registered now (the API's no-op one when there is none), kept while it stays. */
function tracer(): Tracer {
  const global = trace.getTracerProvider();
  const provider = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer(TRACER_NAME) };
  return cached.tracer;
}

/** How a span is started. */
export interface SpanOptions {
  kind?: SpanKind;
  /** Built only when the span records (an SDK is registered and sampled it in). */
  attributes?: () => Attributes;
  /** The parent; default: the active context. */
  parent?: Context;
}

/** Start a span (a non-recording one, at no cost, when no SDK is registered). */
export function startSpan(name: string, options: SpanOptions = {}): Span {
  const span = tracer().startSpan(
    name,
    options.kind !== undefined ? { kind: options.kind } : {},
    options.parent ?? context.active(),
  );
  if (options.attributes && span.isRecording()) span.setAttributes(options.attributes());
  return span;
}

/** The context with `span` as the active span, to parent other spans on; the active one for a no-op span. */
export function contextOf(span: Span, parent: Context = context.active()): Context {
  return isSpanContextValid(span.spanContext()) ? trace.setSpan(parent, span) : parent;
}

/** Run `work` with `span` active (for the spans and `traceparent` of what it does); as is for a no-op span. */
export function inSpan<T>(span: Span, work: () => T): T {
  return isSpanContextValid(span.spanContext())
    ? context.with(trace.setSpan(context.active(), span), work)
    : work();
}

/**
 * End a span; with an error, record it (an exception event, status `ERROR` with its message, and
 * `error.type`: its code, such as `TIMEOUT`, else its class name).
 */
export function endSpan(span: Span, error?: unknown, attributes?: () => Attributes): void {
  if (span.isRecording()) {
    if (attributes) span.setAttributes(attributes());
    if (error !== undefined) failSpan(span, error);
  }
  span.end();
}

/** Mark a span failed (`error.type` and status `ERROR`) without ending it. */
export function failSpan(span: Span, error: unknown, type?: string): void {
  if (!span.isRecording()) return;
  const message = error instanceof Error ? error.message : String(error);
  const code =
    type ??
    (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
      ? error.code
      : error instanceof Error
        ? error.name
        : "_OTHER");
  if (error instanceof Error) span.recordException(error);
  span.setAttribute("error.type", code);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * The W3C trace context of the active span, as MCP sends it in a request's `_meta` (SEP-414):
 * `traceparent` (`00-<trace id>-<span id>-<flags>`) and `tracestate` when there is one; none without
 * a valid active span.
 */
export function traceContextMeta(): { traceparent: string; tracestate?: string } | undefined {
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  if (!isSpanContextValid(span.spanContext())) return undefined;
  const traceparent = `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
  const state = traceState?.serialize();
  return state ? { traceparent, tracestate: state } : { traceparent };
}

/**
 * The active span's ids for a log line (`trace_id`, `span_id`, `trace_flags`), as OpenTelemetry's log
 * model names them; a new object each time (pino merges the line's own fields into it).
 */
export function traceFields(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!isSpanContextValid(span.spanContext())) return {};
  return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}`.slice(-2) };
}

/** Usage a model turn reports, for its span. */
interface TurnUsage {
  usage?: { promptTokens: number; completionTokens: number };
  finishReason?: string;
}

/**
 * The spans of one run: the run's (`invoke_agent switchyard`, or `run_plan <name>`), one per step
 * (`step <n>`) and one per model turn (`chat <model>`, GenAI), each a child of the one before; the
 * calls made inside {@link RunSpans.within} are the step's children (through the active context).
 */
export class RunSpans {
  readonly #run: Span;
  readonly #runContext: Context;
  #step: Span | undefined;
  #stepContext: Context;

  constructor(options: { kind: "agent" | "plan"; runId: string; name?: string; model?: string }) {
    const { kind, runId, name, model } = options;
    this.#run = startSpan(kind === "agent" ? "invoke_agent switchyard" : `run_plan ${name ?? "plan"}`, {
      kind: SpanKind.INTERNAL,
      attributes: () => ({
        ...(kind === "agent"
          ? { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "switchyard" }
          : { "switchyard.plan.name": name ?? "plan" }),
        ...(model ? { "gen_ai.request.model": model } : {}),
        "switchyard.run.id": runId,
        "switchyard.run.kind": kind,
      }),
    });
    this.#runContext = contextOf(this.#run, context.active());
    this.#stepContext = this.#runContext;
  }

  /** A new step begins (the previous one, if any, ends). */
  step(step: number): void {
    this.#step?.end();
    this.#step = startSpan(`step ${step}`, {
      parent: this.#runContext,
      attributes: () => ({ "switchyard.step": step }),
    });
    this.#stepContext = contextOf(this.#step, this.#runContext);
  }

  /** One model turn, in its `chat <model>` span (tokens and finish reason recorded when it answers). */
  async model<T extends TurnUsage>(model: string, work: () => Promise<T>): Promise<T> {
    const span = startSpan(`chat ${model}`, {
      kind: SpanKind.CLIENT,
      parent: this.#stepContext,
      attributes: () => ({ "gen_ai.operation.name": "chat", "gen_ai.request.model": model }),
    });
    try {
      const response = await context.with(contextOf(span, this.#stepContext), work);
      endSpan(span, undefined, () => ({
        ...(response.usage
          ? {
              "gen_ai.usage.input_tokens": response.usage.promptTokens,
              "gen_ai.usage.output_tokens": response.usage.completionTokens,
            }
          : {}),
        ...(response.finishReason ? { "gen_ai.response.finish_reasons": [response.finishReason] } : {}),
      }));
      return response;
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  }

  /** Run `work` (the step's calls) with the step's span active. */
  within<T>(work: () => T): T {
    return context.with(this.#stepContext, work);
  }

  /** The run ended: its last step's span and its own end (`ERROR` with the error, when there is one). */
  end(outcome: string, error?: unknown): void {
    this.#step?.end();
    this.#step = undefined;
    endSpan(this.#run, error, () => ({ "switchyard.run.outcome": outcome }));
  }
}
