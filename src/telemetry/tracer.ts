// OpenTelemetry spans through `@opentelemetry/api` alone: until the user registers something with the
// API (an SDK, a context manager) it is not loaded and every span is one shared non-recording span;
// after that, an unsampled span builds no attributes and enters no context, so tracing costs a
// function call or two. Names and attributes follow the GenAI and MCP semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/): `invoke_agent`, `chat {model}`,
// `execute_tool {tool}`, `{mcp.method.name} {tool}`; what they do not cover is `switchyard.*`.
import type {
  SpanKind as ApiSpanKind,
  Attributes,
  Context,
  Span,
  Tracer,
  TracerProvider,
} from "@opentelemetry/api";
import { lazyRequire } from "../lazy-require.js";

export type { Span } from "@opentelemetry/api";

/** The instrumentation scope of every Switchyard span. */
export const TRACER_NAME = "switchyard";

/** Span kinds, as the API numbers them (its enum, without loading the API to read it). */
export const SpanKind = {
  INTERNAL: 0,
  SERVER: 1,
  CLIENT: 2,
  PRODUCER: 3,
  CONSUMER: 4,
} as const satisfies Record<keyof typeof ApiSpanKind, number>;
type Kind = (typeof SpanKind)[keyof typeof SpanKind];
/** `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;

type Api = typeof import("@opentelemetry/api");
/** The OpenTelemetry API, loaded on first use (also by operation-metrics.ts). */
export const loadApi = lazyRequire<Api>("@opentelemetry/api");
/**
 * Where the OpenTelemetry API (1.x) keeps what is registered with it — a tracer provider, a context
 * manager, a propagator — shared by every copy of the API in the process. Until something is
 * registered there, every span would be the API's non-recording one: Switchyard then does not load
 * the API at all (less memory, and no span objects per call).
 */
export const API_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** The API, once anything is registered with it; `undefined` while tracing is off. */
function otel(): Api | undefined {
  return (globalThis as Record<symbol, unknown>)[API_GLOBAL] === undefined ? undefined : loadApi();
}

/** The span handed out while tracing is off: records nothing, carries no context. */
const OFF_SPAN: Span = {
  spanContext: () => ({
    traceId: "00000000000000000000000000000000",
    spanId: "0000000000000000",
    traceFlags: 0,
  }),
  setAttribute: () => OFF_SPAN,
  setAttributes: () => OFF_SPAN,
  addEvent: () => OFF_SPAN,
  addLink: () => OFF_SPAN,
  addLinks: () => OFF_SPAN,
  setStatus: () => OFF_SPAN,
  updateName: () => OFF_SPAN,
  end: () => {},
  isRecording: () => false,
  recordException: () => {},
};

let cached: { provider: TracerProvider; tracer: Tracer } | undefined;
/** The tracer of the provider registered now (the API's no-op one when there is none), kept while it stays. */
function tracer(api: Api): Tracer {
  const global = api.trace.getTracerProvider();
  const provider = global instanceof api.ProxyTracerProvider ? global.getDelegate() : global;
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer(TRACER_NAME) };
  return cached.tracer;
}

/** How a span is started. */
export interface SpanOptions {
  kind?: Kind;
  /** Built only when the span records (an SDK is registered and sampled it in). */
  attributes?: () => Attributes;
  /** The parent; default: the active context. */
  parent?: Context;
}

/** Start a span (a non-recording one, at no cost, when no SDK is registered). */
export function startSpan(name: string, options: SpanOptions = {}): Span {
  const api = otel();
  if (!api) return OFF_SPAN;
  const span = tracer(api).startSpan(
    name,
    options.kind !== undefined ? { kind: options.kind as ApiSpanKind } : {},
    options.parent ?? api.context.active(),
  );
  if (options.attributes && span.isRecording()) span.setAttributes(options.attributes());
  return span;
}

/**
 * The context with `span` as the active span, to parent other spans on; the active one for a no-op
 * span; none while tracing is off.
 */
function contextOf(span: Span, parent?: Context): Context | undefined {
  const api = otel();
  if (!api) return undefined;
  const base = parent ?? api.context.active();
  return api.isSpanContextValid(span.spanContext()) ? api.trace.setSpan(base, span) : base;
}

/** Run `work` in `within` (a context from {@link contextOf}); as is without one. */
function inContext<T>(within: Context | undefined, work: () => T): T {
  const api = within === undefined ? undefined : otel();
  return api ? api.context.with(within!, work) : work();
}

/** Run `work` with `span` active (for the spans and `traceparent` of what it does); as is for a no-op span. */
export function inSpan<T>(span: Span, work: () => T): T {
  if (span === OFF_SPAN) return work();
  const api = otel();
  return api?.isSpanContextValid(span.spanContext())
    ? api.context.with(api.trace.setSpan(api.context.active(), span), work)
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

/**
 * What every span's texts go through before they are recorded: the redaction of each live Switchyard
 * (spans go to one process-wide provider, whichever Switchyard's request made them; a secret any of
 * them knows is kept out of all of them).
 */
const spanRedactions = new Set<(text: string) => string>();

/**
 * Redact the texts of every span recorded from now on (an error's message and stack, a status message)
 * with `redact`, until the function returned is called.
 */
export function redactSpans(redact: (text: string) => string): () => void {
  spanRedactions.add(redact);
  return () => spanRedactions.delete(redact);
}

function redacted(text: string): string {
  let clean = text;
  for (const redact of spanRedactions) clean = redact(clean);
  return clean;
}

/** Mark a span failed (`error.type` and status `ERROR`) without ending it. */
export function failSpan(span: Span, error: unknown, type?: string): void {
  if (!span.isRecording()) return;
  // An Error, or a recorded one ({ code, message }: a refusal the pipeline records as the run said it).
  const message = redacted(
    typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
      ? error.message
      : String(error),
  );
  const code =
    type ??
    (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
      ? error.code
      : error instanceof Error
        ? error.name
        : "_OTHER");
  if (error instanceof Error) {
    // Its message and stack as they would be written anywhere else: redacted.
    span.recordException({
      name: error.name,
      message,
      ...(error.stack !== undefined ? { stack: redacted(error.stack) } : {}),
      ...("code" in error && typeof error.code === "string" ? { code: error.code } : {}),
    });
  }
  span.setAttribute("error.type", code);
  span.setStatus({ code: STATUS_ERROR, message });
}

/**
 * The W3C trace context of the active span, as MCP sends it in a request's `_meta` (SEP-414):
 * `traceparent` (`00-<trace id>-<span id>-<flags>`) and `tracestate` when there is one; none without
 * a valid active span.
 */
export function traceContextMeta(): { traceparent: string; tracestate?: string } | undefined {
  const api = otel();
  const span = api?.trace.getSpan(api.context.active());
  if (!api || !span) return undefined;
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  if (!api.isSpanContextValid(span.spanContext())) return undefined;
  const traceparent = `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
  const state = traceState?.serialize();
  return state ? { traceparent, tracestate: state } : { traceparent };
}

/**
 * The active span's ids for a log line (`trace_id`, `span_id`, `trace_flags`), as OpenTelemetry's log
 * model names them; a new object each time (pino merges the line's own fields into it).
 */
export function traceFields(): Record<string, string> {
  const api = otel();
  const span = api?.trace.getSpan(api.context.active());
  if (!api || !span) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!api.isSpanContextValid(span.spanContext())) return {};
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
  readonly #runContext: Context | undefined;
  #step: Span | undefined;
  #stepContext: Context | undefined;

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
    this.#runContext = contextOf(this.#run);
    this.#stepContext = this.#runContext;
  }

  /** A new step begins (the previous one, if any, ends). */
  step(step: number): void {
    this.#step?.end();
    this.#step = startSpan(`step ${step}`, {
      ...(this.#runContext ? { parent: this.#runContext } : {}),
      attributes: () => ({ "switchyard.step": step }),
    });
    this.#stepContext = contextOf(this.#step, this.#runContext);
  }

  /** One model turn, in its `chat <model>` span (tokens and finish reason recorded when it answers). */
  async model<T extends TurnUsage>(model: string, work: () => Promise<T>): Promise<T> {
    const span = startSpan(`chat ${model}`, {
      kind: SpanKind.CLIENT,
      ...(this.#stepContext ? { parent: this.#stepContext } : {}),
      attributes: () => ({ "gen_ai.operation.name": "chat", "gen_ai.request.model": model }),
    });
    try {
      const response = await inContext(contextOf(span, this.#stepContext), work);
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
    return inContext(this.#stepContext, work);
  }

  /** The run ended: its last step's span and its own end (`ERROR` with the error, when there is one). */
  end(outcome: string, error?: unknown): void {
    this.#step?.end();
    this.#step = undefined;
    endSpan(this.#run, error, () => ({ "switchyard.run.outcome": outcome }));
  }
}
