import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, streamText } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeToolsFor, aiSdkTools, routedStep } from "../../src/adapters/ai-sdk.js";
import type { RequestInput, Switchyard, SwitchyardEvent } from "../../src/index.js";
import { type ReceivedRequest, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { exampleFleet } from "./fleet.js";

let yard: Switchyard;
const events: SwitchyardEvent[] = [];

beforeAll(async () => {
  yard = await exampleFleet();
  yard.observe((event) => events.push(event));
}, 60_000);

afterAll(async () => {
  await yard?.close();
});

const modelAt = (baseURL: string) =>
  createOpenAICompatible({ name: "scripted", baseURL }).chatModel("scripted");

/** The tool messages of a request, as the provider sent them: call id → content. */
const toolMessages = (request: ReceivedRequest) =>
  Object.fromEntries(
    request.messages
      .filter((message) => message.role === "tool")
      .map((message) => [message.tool_call_id as string, String(message.content)]),
  );

describe("switchyard/ai-sdk", () => {
  it("runs parallel tool calls of generateText through the pipeline, each result paired with its call's id", async () => {
    await using model = await startScriptedOpenAIServer([
      {
        toolCalls: [
          { id: "env-1", name: "environment_get_environment_status", arguments: { area_code: "BJ-CY" } },
          {
            id: "geo-1",
            name: "geo_simulate_geolocation",
            arguments: { lat: "39.92", lng: 116.44, radius: 500 },
          },
        ],
      },
      { content: "适合跑步。" },
    ]);
    events.length = 0;
    const result = await generateText({
      model: modelAt(model.baseURL),
      tools: aiSdkTools(yard),
      stopWhen: stepCountIs(4),
      prompt: "附近适合户外跑步吗？我在 39.92, 116.44。",
    });
    expect(result.text).toBe("适合跑步。");
    const [first] = result.steps;
    expect(first!.toolResults.map((r) => [r.toolCallId, r.toolName])).toEqual([
      ["env-1", "environment_get_environment_status"],
      ["geo-1", "geo_simulate_geolocation"],
    ]);
    const sent = toolMessages(model.requests[1]!);
    expect(sent["env-1"]).toContain("AQI");
    expect(sent["geo-1"]).toContain("landmark");
    // The pipeline made both calls, under the model's ids; "39.92" was coerced to a number on the way.
    const finished = events.filter((e) => e.type === "call_finished");
    expect(finished.map((e) => e.type === "call_finished" && [e.id, e.server, e.ok])).toEqual(
      expect.arrayContaining([
        ["env-1", "environment", true],
        ["geo-1", "geo", true],
      ]),
    );
    // Every tool of the catalog was offered, with the server's JSON Schema.
    const offered = model.requests[0]!.tools!.map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(yard.tools().map((t) => t.name)));
    const geo = model.requests[0]!.tools!.find((t) => t.function.name === "geo_simulate_geolocation");
    expect(geo!.function.parameters).toMatchObject({ required: expect.arrayContaining(["lat", "lng"]) });
  });

  it("hands the model Switchyard's errors as tool errors: bad arguments never sent, a tool's own error", async () => {
    await using model = await startScriptedOpenAIServer([
      {
        toolCalls: [
          { id: "bad", name: "environment_get_environment_status", arguments: { area_code: 7 } },
          {
            id: "far",
            name: "geo_simulate_geolocation",
            arguments: { lat: 39.9, lng: 116.4, radius: 99999 },
          },
          { id: "sku", name: "inventory_check_stock", arguments: { sku: "SKU-0000" } },
        ],
      },
      { content: "出错了。" },
    ]);
    events.length = 0;
    const result = await streamText({
      model: modelAt(model.baseURL),
      tools: aiSdkTools(yard),
      stopWhen: stepCountIs(4),
      prompt: "附近适合户外跑步吗？",
    });
    const parts: Array<{ type: string; toolCallId?: string; error?: unknown }> = [];
    for await (const part of result.fullStream) parts.push(part as (typeof parts)[number]);
    const errors = parts.filter((part) => part.type === "tool-error");
    expect(errors.map((part) => part.toolCallId).sort()).toEqual(["bad", "far", "sku"]);
    expect(errors.find((part) => part.toolCallId === "sku")!.error).toMatchObject({ code: "TOOL_ERROR" });
    const sent = toolMessages(model.requests[1]!);
    // The agent's words, first the anchor line: what was wrong, then what to do.
    expect(sent.bad).toMatch(
      /^\[tool environment_get_environment_status → invalid arguments\].*"area_code" must be one of.*Fix the arguments and call again/s,
    );
    expect(sent.far).toMatch(/"radius" must be <= 50000/);
    expect(sent.sku).toMatch(/^\[tool inventory_check_stock → error\].*SKU-1001/s);
    const finished = events.filter((e) => e.type === "call_finished");
    // Arguments that do not fit the schema are never sent: the pipeline records the refusal.
    expect(finished.find((e) => e.type === "call_finished" && e.id === "bad")).toMatchObject({
      ok: false,
      error: { code: "INVALID_ARGUMENTS" },
    });
  });

  it("passes the step's abortSignal and toolCallId to the pipeline as the call's signal and id", async () => {
    const seen: RequestInput[] = [];
    // The same Switchyard, its requests watched on the way in.
    const watched = new Proxy(yard, {
      get(target, key) {
        if (key === "request")
          return (input: RequestInput) => {
            seen.push(input);
            return target.request(input);
          };
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const tools = aiSdkTools(watched, { names: ["geo_simulate_geolocation"] });
    expect(Object.keys(tools)).toEqual(["geo_simulate_geolocation"]);
    const controller = new AbortController();
    const output = await tools.geo_simulate_geolocation!.execute!({ lat: 1, lng: 1 }, {
      toolCallId: "call-7",
      messages: [],
      abortSignal: controller.signal,
    } as never);
    expect(String(output)).toContain("landmark");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.signal).toBe(controller.signal);
    expect(seen[0]!.callId).toBe("call-7");
  });

  it("routes with prepareStep: each step offers the router's pick as activeTools", async () => {
    await using model = await startScriptedOpenAIServer([{ content: "好的。" }]);
    const prepareStep = routedStep(yard, { router: { topK: 2, offerAllUpTo: 0 } });
    await generateText({
      model: modelAt(model.baseURL),
      tools: aiSdkTools(yard),
      prepareStep,
      prompt: "北京朝阳的空气质量 AQI 和 PM2.5 怎么样？",
    });
    const offered = model.requests[0]!.tools!.map((t) => t.function.name);
    expect(offered.length).toBeLessThanOrEqual(2);
    expect(offered).toContain("environment_get_environment_status");
    const names = await activeToolsFor(yard, { router: { topK: 2, offerAllUpTo: 0 } })([
      { role: "user", content: "查一下 C10001 最近 7 天的订单" },
    ]);
    expect(names).toContain("orders_query_recent_orders");
    expect(names).not.toContain("environment_get_environment_status");
  });
});
