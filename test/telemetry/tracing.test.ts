import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, createLogger, OpenAIChatModel, Switchyard } from "../../src/index.js";
import { checkPlan, runPlan } from "../../src/plan/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT } from "../helpers.js";

const TELEMETRY_SERVER = `${ROOT}test/fixtures/telemetry-server.mjs`;
const RESOURCE_SERVER = `${ROOT}test/fixtures/resource-server.mjs`;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  // What an application's OpenTelemetry setup does (NodeSDK, NodeTracerProvider.register()).
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

describe("OpenTelemetry traces", () => {
  it("span a run: run → step → model turn and call → server request, with a traceparent the server received", async () => {
    exporter.reset();
    await using model = await startScriptedOpenAIServer([
      {
        toolCalls: [
          { id: "c1", name: "t_trace_meta", arguments: {} },
          { id: "c2", name: "t_fail", arguments: { text: "no" } },
        ],
      },
      { content: "done" },
    ]);
    const lines: string[] = [];
    await using yard = await Switchyard.connect(
      { mcpServers: { t: { command: NODE, args: [TELEMETRY_SERVER] } } },
      { logger: createLogger({ level: "debug", format: "json", write: (line) => lines.push(line) }) },
    );
    expect(yard.servers()[0]).toMatchObject({ status: "ready", protocolVersion: "2026-07-28" });
    const agent = new Agent({
      model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted", apiKey: "k" }),
      host: yard,
    });
    const result = await agent.run("What trace context do you see?");
    expect(result.stopReason).toBe("answer");

    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.filter((span) => span.name === name);
    const [run] = named("invoke_agent switchyard");
    expect(run).toBeDefined();
    expect(run!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "switchyard.run.id": result.runId,
      "switchyard.run.outcome": "answer",
    });
    expect(parentOf(run!)).toBeUndefined();
    const steps = named("step 1").concat(named("step 2"));
    expect(steps).toHaveLength(2);
    for (const step of steps) expect(parentOf(step)).toBe(run!.spanContext().spanId);
    const chats = named("chat scripted");
    expect(chats).toHaveLength(2);
    expect(chats.map(parentOf).sort()).toEqual(steps.map((step) => step.spanContext().spanId).sort());
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "scripted",
    });
    expect(chats[0]!.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);

    const [call] = named("execute_tool t_trace_meta");
    expect(parentOf(call!)).toBe(named("step 1")[0]!.spanContext().spanId);
    expect(call!.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "t_trace_meta",
      "gen_ai.tool.call.id": "c1",
      "switchyard.server": "t",
      "switchyard.run.id": result.runId,
    });
    const [request] = named("tools/call trace_meta");
    expect(parentOf(request!)).toBe(call!.spanContext().spanId);
    expect(request!.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "trace_meta",
      "mcp.protocol.version": "2026-07-28",
      "network.transport": "pipe",
    });

    // The server saw the server request's span as the parent of its work: same trace, that span's id.
    const seen = JSON.parse(result.record.calls[0]!.ok ? messageText(result, "c1") : "{}") as {
      traceparent: string | null;
    };
    const { traceId, spanId } = request!.spanContext();
    expect(seen.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(traceId).toBe(run!.spanContext().traceId);

    // The failing call: an error span on the call and on its server request.
    const [failed] = named("execute_tool t_fail");
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed!.attributes["error.type"]).toBe("tool_error");
    const [failedRequest] = named("tools/call fail");
    expect(failedRequest!.status.code).toBe(SpanStatusCode.ERROR);
    expect(parentOf(failedRequest!)).toBe(failed!.spanContext().spanId);

    // Log lines written inside a call carry its span's ids.
    const traced = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.trace_id);
    expect(traced.length).toBeGreaterThan(0);
    expect(traced.every((line) => line.trace_id === traceId)).toBe(true);
  });

  it("records a refused call as an error span, with no server request", async () => {
    exporter.reset();
    await using yard = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [TELEMETRY_SERVER] } },
    });
    await expect(yard.callTool("t_reveal", { text: 5 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
    });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(["execute_tool t_reveal"]);
    expect(spans[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[0]!.attributes["error.type"]).toBe("INVALID_ARGUMENTS");
    expect(spans[0]!.events.map((event) => event.name)).toContain("exception");
  });

  it("records a call the run refused with the run's own words as the span's message", async () => {
    exporter.reset();
    await using yard = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [TELEMETRY_SERVER] } },
    });
    const outcome = await yard.request({
      kind: "tool",
      name: "t_reveal",
      arguments: {},
      check: () => ({ code: "REFUSED", message: "t_reveal was not offered at this step" }),
    });
    expect(outcome.ok).toBe(false);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(["execute_tool t_reveal"]);
    expect(spans[0]!.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "t_reveal was not offered at this step",
    });
    expect(spans[0]!.attributes["error.type"]).toBe("REFUSED");
  });

  it("spans a plan: its run, and each step's call under it", async () => {
    exporter.reset();
    await using yard = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [TELEMETRY_SERVER] } },
    });
    const plan = checkPlan({
      name: "probe",
      steps: [
        { id: "meta", tool: "t_trace_meta" },
        { id: "after", tool: "t_reveal", args: { text: "{{steps.meta.text}}" } },
      ],
    });
    const result = await runPlan(plan, { host: yard });
    expect(result.ok).toBe(true);
    const spans = exporter.getFinishedSpans();
    const [run] = spans.filter((span) => span.name === "run_plan probe");
    expect(run!.attributes).toMatchObject({
      "switchyard.run.id": result.runId,
      "switchyard.plan.name": "probe",
      "switchyard.run.outcome": "ok",
    });
    const calls = spans.filter((span) => span.name.startsWith("execute_tool "));
    expect(calls.map((span) => span.name).sort()).toEqual([
      "execute_tool t_reveal",
      "execute_tool t_trace_meta",
    ]);
    for (const call of calls) expect(parentOf(call)).toBe(run!.spanContext().spanId);
  });

  it("spans the other requests sent to a server: a prompt by its name", async () => {
    exporter.reset();
    await using yard = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [TELEMETRY_SERVER] } },
    });
    await yard.getPrompt("t_greet");
    const spans = exporter.getFinishedSpans();
    // The pipeline's span of the request (by its catalog name), and the attempt's client span under it.
    expect(spans.map((span) => span.name)).toEqual(["prompts/get greet", "prompts/get t_greet"]);
    expect(spans[0]!.attributes).toMatchObject({
      "mcp.method.name": "prompts/get",
      "gen_ai.prompt.name": "greet",
      "switchyard.server": "t",
    });
    expect(parentOf(spans[0]!)).toBe(spans[1]!.spanContext().spanId);
  });

  it("names a resource request's spans by the method alone, the URI an attribute (one span name per URI is too many)", async () => {
    exporter.reset();
    await using yard = await Switchyard.connect({
      mcpServers: { notes: { command: NODE, args: [RESOURCE_SERVER] } },
    });
    await yard.readResource("notes://notes/readme");
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(["resources/read", "resources/read"]);
    for (const span of spans)
      expect(span.attributes).toMatchObject({
        "mcp.method.name": "resources/read",
        "mcp.resource.uri": "notes://notes/readme",
      });
  });

  it("sends no traceparent to a server on an older revision", async () => {
    exporter.reset();
    await using yard = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [TELEMETRY_SERVER], versionNegotiation: "legacy" } },
    });
    expect(yard.servers()[0]!.protocolVersion).not.toBe("2026-07-28");
    const result = await yard.callTool("t_trace_meta", {});
    expect(JSON.parse(result.text)).toEqual({ traceparent: null, tracestate: null });
    // It is traced all the same.
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual([
      "tools/call trace_meta",
      "execute_tool t_trace_meta",
    ]);
  });

  it("sends no traceparent when no span is active", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [TELEMETRY_SERVER] } },
    });
    trace.disable(); // no SDK: the API's no-op spans
    try {
      const result = await yard.callTool("t_trace_meta", {});
      expect(JSON.parse(result.text)).toEqual({ traceparent: null, tracestate: null });
    } finally {
      trace.setGlobalTracerProvider(provider);
    }
  });
});

/** The text of the tool message that answered call `id`, without its anchor line. */
function messageText(
  result: { messages: Array<{ role: string; content?: unknown; toolCallId?: string }> },
  id: string,
) {
  const message = result.messages.find((m) => m.role === "tool" && m.toolCallId === id);
  const text = String(message?.content ?? "");
  return text.slice(text.indexOf("{"));
}
