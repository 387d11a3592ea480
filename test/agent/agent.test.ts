import { afterEach, describe, expect, it } from "vitest";
import {
  Agent,
  type AgentEvent,
  OpenAIChatModel,
  routeTools,
  Switchyard,
  type WireRecord,
} from "../../src/index.js";
import { type ReceivedRequest, startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { raw, sdk } from "../helpers.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

/** A real fleet, a real scripted model server, and an agent between them. */
async function setup(script: Script<ReceivedRequest>, options: { stream?: boolean; maxSteps?: number } = {}) {
  const wire: WireRecord[] = [];
  const yard = await Switchyard.connect(
    { mcpServers: { a: sdk(), b: raw(), c: raw() } },
    { wireTrace: (record) => wire.push(record) },
  );
  const server = await startScriptedOpenAIServer(script);
  opened.push(yard, server);
  const events: AgentEvent[] = [];
  const model = new OpenAIChatModel({
    baseURL: server.baseURL,
    model: "scripted",
    apiKey: "test-key",
    ...(options.stream ? { stream: true } : {}),
  });
  const agent = new Agent({
    model,
    host: yard,
    ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
    onEvent: (event) => events.push(event),
  });
  const toolCallsSent = (tool: string) =>
    wire.filter(
      (r) =>
        r.direction === "to-server" &&
        (r.message as { method?: string }).method === "tools/call" &&
        (r.message as { params: { name: string } }).params.name === tool,
    );
  return { yard, server, agent, events, wire, toolCallsSent };
}

function lastToolMessages(request: ReceivedRequest) {
  return request.messages.filter((m) => m.role === "tool") as Array<{
    tool_call_id: string;
    content: string;
  }>;
}

for (const stream of [false, true]) {
  describe(`the agent loop (${stream ? "streaming" : "non-streaming"} model)`, () => {
    it("runs parallel tool calls on two servers and pairs each result with its id, in call order", async () => {
      const { agent, server, events } = await setup(
        [
          {
            content: "Let me look.",
            toolCalls: [
              { id: "call_slow", name: "a_sleep", arguments: { ms: 300 } },
              { id: "call_fast", name: "b_echo", arguments: { text: "from b" } },
            ],
          },
          { content: "Both done." },
        ],
        { stream },
      );
      const result = await agent.run("Do two things at once.");
      expect(result).toMatchObject({ answer: "Both done.", stopReason: "answer", steps: 2 });
      expect(result.calls.map((c) => [c.id, c.name, c.server, c.tool, c.ok])).toEqual([
        ["call_slow", "a_sleep", "a", "sleep", true],
        ["call_fast", "b_echo", "b", "echo", true],
      ]);

      // Both calls started before either finished.
      const order = events
        .filter((e) => e.type === "call_started" || e.type === "call_finished")
        .map((e) => e.type);
      expect(order.slice(0, 2)).toEqual(["call_started", "call_started"]);

      // What the model was sent: the tools, and the full history in order with ids paired.
      const [first, second] = server.requests;
      expect(first!.stream ?? false).toBe(stream);
      const offered = first!.tools!.map((t) => t.function.name);
      expect(offered).toEqual(expect.arrayContaining(["a_sleep", "a_echo", "a_add", "b_echo", "c_echo"]));
      expect(first!.tools!.find((t) => t.function.name === "a_add")!.function.parameters).toMatchObject({
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
      });
      expect(second!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
      expect(second!.messages[1]).toEqual({ role: "user", content: "Do two things at once." });
      expect(second!.messages[2]).toMatchObject({
        role: "assistant",
        content: "Let me look.",
        tool_calls: [
          { id: "call_slow", type: "function", function: { name: "a_sleep", arguments: '{"ms":300}' } },
          { id: "call_fast", type: "function", function: { name: "b_echo", arguments: '{"text":"from b"}' } },
        ],
      });
      expect(lastToolMessages(second!)).toEqual([
        { role: "tool", tool_call_id: "call_slow", content: "[tool a_sleep → ok]\nslept 300" },
        { role: "tool", tool_call_id: "call_fast", content: "[tool b_echo → ok]\nfrom b" },
      ]);
    });
  });
}

describe("the agent loop", () => {
  it("chains calls: the second call's arguments come from the first call's result", async () => {
    const { agent, server, toolCallsSent } = await setup((request, index) => {
      if (index === 0) return { toolCalls: [{ id: "sum", name: "a_add", arguments: { a: 20, b: 22 } }] };
      if (index === 1) {
        const sum = lastToolMessages(request)[0]!.content.split("\n")[1]!;
        return { toolCalls: [{ id: "say", name: "b_echo", arguments: { text: `the sum is ${sum}` } }] };
      }
      return { content: lastToolMessages(request).at(-1)!.content.split("\n")[1]! };
    });
    const result = await agent.run("Add 20 and 22, then say it.");
    expect(result.answer).toBe("the sum is 42");
    expect((toolCallsSent("echo")[0]!.message as { params: unknown }).params).toMatchObject({
      name: "echo",
      arguments: { text: "the sum is 42" },
    });
    // Full history every step: the third request holds both earlier rounds.
    expect(server.requests[2]!.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
    ]);
  });

  it("never sends invalid arguments: the model gets the problem and the schema, and may retry", async () => {
    const { agent, server, toolCallsSent } = await setup([
      {
        toolCalls: [
          { id: "bad_json", name: "a_add", arguments: '{"a": 1, "b": ' },
          { id: "missing", name: "a_add", arguments: { a: 1 } },
          { id: "wrong_type", name: "a_add", arguments: { a: "one", b: 2 } },
          { id: "unknown", name: "a_ad", arguments: {} },
        ],
      },
      { toolCalls: [{ id: "coerced", name: "a_add", arguments: { a: "7", b: 1 } }] },
      { content: "8" },
    ]);
    const result = await agent.run("Add.");
    expect(result.answer).toBe("8");
    const tools = lastToolMessages(server.requests[1]!);
    expect(tools[0]!.content).toMatch(
      /^\[tool a_add → invalid arguments\]\nThe arguments are not valid JSON/,
    );
    expect(tools[0]!.content).toContain('"required":["a","b"]');
    expect(tools[1]!.content).toContain('missing required field "b"');
    expect(tools[2]!.content).toMatch(/"a" must be number/);
    expect(tools[3]!.content).toMatch(/There is no tool named a_ad\. Available tools: .*a_add/);
    expect(result.calls.slice(0, 4).map((c) => c.error?.code)).toEqual([
      "INVALID_ARGUMENTS",
      "INVALID_ARGUMENTS",
      "INVALID_ARGUMENTS",
      "TOOL_NOT_FOUND",
    ]);
    // Only the coerced retry reached the server, with "7" turned into 7.
    expect(
      toolCallsSent("add").map((r) => (r.message as { params: { arguments: unknown } }).params.arguments),
    ).toEqual([{ a: 7, b: 1 }]);
    expect(lastToolMessages(server.requests[2]!).at(-1)!.content).toBe("[tool a_add → ok]\n8");
  });

  it("reports a tool error as an error, and a crashed server as unavailable without calling it again", async () => {
    const { agent, server, toolCallsSent } = await setup([
      { toolCalls: [{ id: "f", name: "a_fail" }] },
      { toolCalls: [{ id: "boom", name: "b_crash" }] },
      { toolCalls: [{ id: "again", name: "b_echo", arguments: { text: "hello?" } }] },
      { content: "Server b is down; a failed on purpose." },
    ]);
    const result = await agent.run("Try things.");
    expect(result.stopReason).toBe("answer");
    expect(lastToolMessages(server.requests[1]!)[0]!.content).toBe(
      "[tool a_fail → error]\nfail: requested failure",
    );
    const crash = lastToolMessages(server.requests[2]!).at(-1)!.content;
    expect(crash).toMatch(
      /^\[tool b_crash → unavailable\]\nb_crash is unavailable: .*Do not call tools of server b again/,
    );
    const refused = lastToolMessages(server.requests[3]!).at(-1)!.content;
    expect(refused).toMatch(
      /^\[tool b_echo → refused\]\nrefused: b_echo is unavailable in this run \(server b is down\)/,
    );
    expect(toolCallsSent("echo")).toHaveLength(0);
    expect(result.calls.map((c) => c.error?.code)).toEqual(["TOOL_ERROR", "SERVER_UNAVAILABLE", "REFUSED"]);
  });

  it("ends a model that never stops calling tools at maxSteps, saying so", async () => {
    const { agent, server } = await setup(
      (_request, index) => ({ toolCalls: [{ name: "b_echo", arguments: { text: `round ${index}` } }] }),
      { maxSteps: 3 },
    );
    const result = await agent.run("Loop forever.");
    expect(result).toMatchObject({ stopReason: "max_steps", steps: 3 });
    expect(result.answer).toBe("Stopped after 3 steps without a final answer (maxSteps).");
    expect(server.requests).toHaveLength(3);
    expect(result.calls).toHaveLength(3);
  });

  it("refuses the same tool with the same arguments past maxIdenticalCalls, without calling the server", async () => {
    const { agent, server, toolCallsSent } = await setup((_request, index) =>
      index < 5 ? { toolCalls: [{ name: "c_echo", arguments: { text: "same" } }] } : { content: "giving up" },
    );
    const result = await agent.run("Repeat.");
    expect(result.stopReason).toBe("answer");
    expect(toolCallsSent("echo")).toHaveLength(3);
    expect(result.calls.map((c) => c.ok)).toEqual([true, true, true, false, false]);
    expect(lastToolMessages(server.requests[4]!).at(-1)!.content).toMatch(
      /^\[tool c_echo → refused\]\nrefused: c_echo was already called 3 times with these same arguments/,
    );
  });

  it("stops with an error when the model hangs past its timeout", async () => {
    const server = await startScriptedOpenAIServer([{ hang: true }]);
    const yard = await Switchyard.connect({ mcpServers: { b: raw() } });
    opened.push(server, yard);
    const agent = new Agent({
      model: new OpenAIChatModel({ baseURL: server.baseURL, model: "slow", timeoutMs: 300 }),
      host: yard,
    });
    const result = await agent.run("Hello?");
    expect(result.stopReason).toBe("error");
    expect(result.error).toMatch(/model slow at http:\/\/127\.0\.0\.1:\d+\/v1 did not answer within 300 ms/);
  });

  it("carries the conversation across runs", async () => {
    const { agent, server } = await setup([{ content: "Hi Ann." }, { content: "Your name is Ann." }]);
    const first = await agent.run("I am Ann.");
    await agent.run("What is my name?", { history: first.messages });
    expect(server.requests[1]!.messages.map((m) => [m.role, m.content])).toEqual([
      ["system", expect.any(String)],
      ["user", "I am Ann."],
      ["assistant", "Hi Ann."],
      ["user", "What is my name?"],
    ]);
  });
});

describe("the agent with the router", () => {
  it("offers the tools that matter for the conversation, and keeps a used tool offered", async () => {
    const topics = [
      "weather_forecast",
      "stock_price",
      "currency_convert",
      "flight_search",
      "hotel_booking",
      "translate_text",
      "news_headlines",
      "calendar_event",
      "email_send",
      "music_play",
      "recipe_find",
      "movie_showtimes",
      "traffic_report",
      "package_tracking",
      "restaurant_reservation",
      "fitness_log",
    ];
    const yard = await Switchyard.connect({ mcpServers: { life: raw("--tools", topics.join(",")) } });
    const server = await startScriptedOpenAIServer([
      { toolCalls: [{ id: "w", name: "life_weather_forecast", arguments: {} }] },
      { content: "Sunny." },
    ]);
    opened.push(yard, server);
    const agent = new Agent({
      model: new OpenAIChatModel({ baseURL: server.baseURL, model: "m" }),
      host: yard,
      selectTools: routeTools(yard, { topK: 3, offerAllUpTo: 5 }),
    });
    const result = await agent.run("What is the weather forecast for Beijing tomorrow?");
    expect(result.answer).toBe("Sunny.");
    const offered = server.requests.map((request) => request.tools!.map((t) => t.function.name));
    expect(yard.tools().length).toBeGreaterThan(15);
    expect(offered[0]!.length).toBeLessThanOrEqual(4);
    expect(offered[0]![0]).toBe("life_weather_forecast");
    expect(offered[1]).toContain("life_weather_forecast");
  });
});
