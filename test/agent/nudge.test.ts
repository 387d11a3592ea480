import { afterEach, describe, expect, it } from "vitest";
import { type AgentConfig, createAgent, DEFAULT_SYSTEM_PROMPT, Switchyard } from "../../src/internal.js";
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
  sections: Pick<AgentConfig, "agent" | "routing"> = {},
): Promise<{ yard: Switchyard; model: ScriptedOpenAIServer; config: AgentConfig }> {
  const yard = await Switchyard.connect({ mcpServers: { cat: catalogServer() } });
  const model = await startScriptedOpenAIServer(script);
  opened.push(yard, model);
  return {
    yard,
    model,
    config: { model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" }, ...sections },
  };
}

/** The user messages after the question: the reminders the model was sent. */
const reminders = (request: ReceivedRequest) =>
  request.messages.filter((message) => message.role === "user").slice(1);

const AIR = "北京朝阳区今天空气质量怎么样？";

describe("the fallback nudge", () => {
  it("reminds the model once, naming the tool, when it answers from memory a question a tool scores highly on", async () => {
    const { yard, model, config } = await setup([
      { content: "今天空气不错，AQI 大约 50。" },
      { toolCalls: [{ id: "c1", name: "cat_get_air_quality", arguments: { district: "朝阳区" } }] },
      { content: "AQI 来自监测数据。" },
    ]);
    const result = await createAgent(yard, config).run(AIR);
    expect(result.stopReason).toBe("answer");
    expect(result.answer).toBe("AQI 来自监测数据。");
    expect(model.requests).toHaveLength(3);
    expect(reminders(model.requests[0]!)).toEqual([]);
    // The second request: the answer from memory, then one reminder naming the air-quality tool.
    const second = model.requests[1]!.messages;
    expect(second.at(-2)).toMatchObject({ role: "assistant", content: "今天空气不错，AQI 大约 50。" });
    expect(second.at(-1)).toMatchObject({ role: "user" });
    expect(String(second.at(-1)!.content)).toMatch(
      /^You answered without calling a tool.*cat_get_air_quality/,
    );
    // After a tool was called, answers are taken as they are: no more reminders.
    expect(reminders(model.requests[2]!)).toHaveLength(1);
    expect(result.calls.map((call) => call.name)).toEqual(["cat_get_air_quality"]);
  });

  it("is sent at most once per run: a second answer from memory ends the run", async () => {
    const { yard, model, config } = await setup([{ content: "AQI 50." }, { content: "AQI 50, really." }]);
    const result = await createAgent(yard, config).run(AIR);
    expect(result).toMatchObject({ stopReason: "answer", answer: "AQI 50, really.", steps: 2 });
    expect(model.requests).toHaveLength(2);
    expect(reminders(model.requests[1]!)).toHaveLength(1);
  });

  it("is not sent when agent.nudge is false, nor for a question that matches no tool", async () => {
    const off = await setup([{ content: "AQI 50." }], { agent: { nudge: false } });
    expect((await createAgent(off.yard, off.config).run(AIR)).answer).toBe("AQI 50.");
    expect(off.model.requests).toHaveLength(1);

    const hello = await setup([{ content: "你好！" }]);
    expect((await createAgent(hello.yard, hello.config).run("你好")).answer).toBe("你好！");
    expect(hello.model.requests).toHaveLength(1);

    // "rain" alone scores low for the forecast tool: no nudge without a pattern.
    const low = await setup([{ content: "Maybe." }]);
    await createAgent(low.yard, low.config).run("Is it going to rain tomorrow?");
    expect(low.model.requests).toHaveLength(1);
  });

  it("is sent for a question that a configured pattern matches, and its message can be set", async () => {
    const { yard, model, config } = await setup([{ content: "Maybe." }, { content: "Still maybe." }], {
      agent: { nudge: { patterns: ["\\brain\\b|下雨"], message: "请调用工具（{tools}），不要凭记忆回答。" } },
    });
    await createAgent(yard, config).run("Is it going to rain tomorrow?");
    expect(model.requests).toHaveLength(2);
    expect(reminders(model.requests[1]!)).toEqual([
      { role: "user", content: "请调用工具（cat_get_weather_forecast），不要凭记忆回答。" },
    ]);
  });

  it("in tool search mode tells the model to find the tool with search_tools", async () => {
    const { yard, model, config } = await setup([{ content: "AQI 50." }, { content: "AQI 50." }], {
      routing: { mode: "search" },
    });
    await createAgent(yard, config).run(AIR);
    expect(String(reminders(model.requests[1]!)[0]!.content)).toContain(
      "cat_get_air_quality; find them with search_tools",
    );
  });

  it("rides on a system prompt that tells the model to call tools for live data", async () => {
    const { yard, model, config } = await setup([{ content: "你好！" }]);
    await createAgent(yard, config).run("你好");
    expect(model.requests[0]!.messages[0]).toEqual({ role: "system", content: DEFAULT_SYSTEM_PROMPT });
    expect(DEFAULT_SYSTEM_PROMPT).toMatch(
      /live or specific data .* call the tool .* instead of answering from memory/,
    );
  });
});
