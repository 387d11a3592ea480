import { afterEach, describe, expect, it } from "vitest";
import { ToolSearch as GatewayToolSearch } from "../../src/gateway/search.js";
import { type AgentConfig, createAgent, Switchyard } from "../../src/index.js";
import {
  type ReceivedRequest,
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from "../../src/testing/index.js";
import { catalogServer } from "./search-catalog.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

async function setup(
  script: ScriptedReply[],
  routing: NonNullable<AgentConfig["routing"]>,
): Promise<{ yard: Switchyard; model: ScriptedOpenAIServer; config: AgentConfig }> {
  const yard = await Switchyard.connect({ mcpServers: { cat: catalogServer() } });
  const model = await startScriptedOpenAIServer(script);
  opened.push(yard, model);
  expect(yard.tools()).toHaveLength(40);
  const config: AgentConfig = {
    model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" },
    routing,
    agent: { nudge: false },
  };
  return { yard, model, config };
}

const toolNames = (request: ReceivedRequest) => (request.tools ?? []).map((tool) => tool.function.name);
const lastMessage = (request: ReceivedRequest) => request.messages.at(-1)!;

/** Each request's tools array starts, byte for byte, with the previous request's. */
function expectToolsOnlyGrow(requests: readonly ReceivedRequest[]): void {
  for (let i = 1; i < requests.length; i++) {
    const before = requests[i - 1]!.tools ?? [];
    const after = requests[i]!.tools ?? [];
    expect(JSON.stringify(after.slice(0, before.length)), `request ${i + 1}`).toBe(JSON.stringify(before));
  }
}

const search = (query: string, id: string): ScriptedReply => ({
  toolCalls: [{ id, name: "search_tools", arguments: { query } }],
});

describe("tool search (routing.mode: search)", () => {
  it("offers search_tools and the pinned tools, finds tools for a Chinese and an English query, and appends them", async () => {
    const { yard, model, config } = await setup(
      [
        search("明天上海会下雨吗？查一下天气预报", "s1"),
        search("refund an order", "s2"),
        { toolCalls: [{ id: "c1", name: "cat_refund_order", arguments: { order_id: "SO00202410" } }] },
        { content: "Refunded; rain tomorrow." },
      ],
      { mode: "search", pinned: ["cat_export_invoice"] },
    );
    const result = await createAgent(yard, config).run("Will it rain in Shanghai? Also refund SO00202410.");
    expect(result.stopReason).toBe("answer");
    expect(model.requests).toHaveLength(4);
    const [first, second, third, fourth] = model.requests as [
      ReceivedRequest,
      ReceivedRequest,
      ReceivedRequest,
      ReceivedRequest,
    ];

    // Step 1: the pinned tool and search_tools, nothing routed.
    expect(toolNames(first)).toEqual(["cat_export_invoice", "search_tools"]);
    const searchTool = first.tools!.find((tool) => tool.function.name === "search_tools")!;
    expect(searchTool.function.parameters).toMatchObject({ required: ["query"] });

    // The Chinese search found the forecast tool; its answer names it with its one-line description.
    expect(lastMessage(second)).toMatchObject({ role: "tool", tool_call_id: "s1" });
    expect(String(lastMessage(second).content)).toContain(
      "cat_get_weather_forecast: Weather forecast for a city",
    );
    expect(toolNames(second).slice(0, 2)).toEqual(["cat_export_invoice", "search_tools"]);
    expect(toolNames(second)).toContain("cat_get_weather_forecast");

    // The English search found the refund tool, appended after everything offered before.
    expect(String(lastMessage(third).content)).toContain("cat_refund_order: Refund an order");
    expect(toolNames(third).slice(0, toolNames(second).length)).toEqual(toolNames(second));
    expect(toolNames(third)).toContain("cat_refund_order");
    expect(toolNames(second)).not.toContain("cat_refund_order");

    // The found tool ran; nothing new was found, so the last request's tools are the third's exactly.
    expect(result.calls.map((call) => [call.name, call.ok])).toEqual([
      ["search_tools", true],
      ["search_tools", true],
      ["cat_refund_order", true],
    ]);
    expect(JSON.stringify(fourth.tools)).toBe(JSON.stringify(third.tools));
    expectToolsOnlyGrow(model.requests);
    // Each request's messages start with the previous request's, byte for byte, too.
    for (let i = 1; i < model.requests.length; i++) {
      const before = model.requests[i - 1]!.messages;
      expect(JSON.stringify(model.requests[i]!.messages.slice(0, before.length))).toBe(
        JSON.stringify(before),
      );
    }
  });

  it("answers a blank search as bad arguments, one that matches nothing with what to try; a call to an unfound tool is refused", async () => {
    const { yard, model, config } = await setup(
      [
        search("   ", "s0"),
        search("zzzz qqqq", "s1"),
        { toolCalls: [{ id: "c1", name: "cat_refund_order", arguments: { order_id: "SO1" } }] },
        { content: "Sorry." },
      ],
      { mode: "search" },
    );
    const result = await createAgent(yard, config).run("Refund SO1");
    // A blank query is bad arguments, as the gateway's search_tools answers it.
    expect(result.calls[0]).toMatchObject({
      name: "search_tools",
      ok: false,
      error: { code: "INVALID_ARGUMENTS" },
    });
    expect(String(lastMessage(model.requests[1]!).content)).toContain('needs a "query"');
    expect(String(lastMessage(model.requests[2]!).content)).toContain('No tool matched "zzzz qqqq"');
    expect(toolNames(model.requests[2]!)).toEqual(["search_tools"]);
    expect(result.calls[2]).toMatchObject({
      name: "cat_refund_order",
      ok: false,
      error: { code: "REFUSED" },
    });
    expectToolsOnlyGrow(model.requests);
  });

  it("is what routing.mode auto does above searchAbove tools, and route mode never offers search_tools", async () => {
    const auto = await setup([{ content: "hi" }], { mode: "auto", searchAbove: 30 });
    await createAgent(auto.yard, auto.config).run("Refund an order");
    expect(toolNames(auto.model.requests[0]!)).toEqual(["search_tools"]);

    const below = await setup([{ content: "hi" }], { searchAbove: 40 });
    await createAgent(below.yard, below.config).run("Refund an order");
    expect(toolNames(below.model.requests[0]!)).not.toContain("search_tools");
    expect(toolNames(below.model.requests[0]!)[0]).toBe("cat_refund_order");

    const route = await setup([{ content: "hi" }], { mode: "route", searchAbove: 0 });
    await createAgent(route.yard, route.config).run("Refund an order");
    expect(toolNames(route.model.requests[0]!)).not.toContain("search_tools");
    expect(toolNames(route.model.requests[0]!)).toHaveLength(12);
  });

  it("asks for a tool need (an action and its object), in the same words as the gateway's search_tools", async () => {
    const { yard, model, config } = await setup([{ content: "nothing to do" }], { mode: "search" });
    await createAgent(yard, config).run("Hello");
    const sent = model.requests[0]!.tools!.find((tool) => tool.function.name === "search_tools")!.function;
    const served = new GatewayToolSearch(yard).tools().find((tool) => tool.name === "search_tools")!;
    const opening = (text: string) => text.split(". ").slice(0, 2).join(". ");
    expect(opening(sent.description!)).toContain("a tool need: an action and its object");
    expect(opening(sent.description!)).toBe(opening(served.description!));
    const queryOf = (schema: unknown) =>
      (schema as { properties: { query: { description: string } } }).properties.query.description;
    expect(queryOf(sent.parameters)).toBe(queryOf(served.inputSchema));
    expect(queryOf(sent.parameters)).toContain("an action and its object");
  });
});
