import { afterEach, describe, expect, it } from "vitest";
import { REWRITE_INSTRUCTIONS } from "../../src/agent/query-rewrite.js";
import {
  type AgentConfig,
  createAgent,
  OpenAIChatModel,
  QueryRewriter,
  type RewriteRecord,
  routerFor,
  routeTools,
  Switchyard,
} from "../../src/index.js";
import {
  type ReceivedRequest,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from "../../src/testing/index.js";
import { catalogServer } from "./search-catalog.js";

// routing.rewrite: the agent's model rewrites a request into tool needs before the offer is ranked,
// against a real fleet (the 40-tool catalog server) and a real HTTP model speaking chat completions.

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

/** Nothing in it says "weather" or "forecast" (the weather tool's words); SO00202410 finds the refund. */
const REQUEST =
  "My parcel SO00202410 came broken, I want my cash returned. And will I need an umbrella in Shanghai tomorrow?";
const NEEDS = '["refund an order", "get weather forecast for a city"]';

const isRewrite = (request: ReceivedRequest) => request.messages[0]?.content === REWRITE_INSTRUCTIONS;
const toolNames = (request: ReceivedRequest) => (request.tools ?? []).map((tool) => tool.function.name);

/** A model that answers rewrites with `rewrite` and everything else with a plain answer. */
async function setup(rewrite: ScriptedReply, routing: NonNullable<AgentConfig["routing"]> = {}) {
  const yard = await Switchyard.connect({ mcpServers: { cat: catalogServer() } });
  const model = await startScriptedOpenAIServer((request) =>
    isRewrite(request) ? rewrite : { content: "done" },
  );
  opened.push(yard, model);
  const config: AgentConfig = {
    model: { baseURL: model.baseURL, name: "scripted", apiKey: "k", maxRetries: 0 },
    routing: { mode: "route", topK: 3, rewrite: true, ...routing },
    agent: { nudge: false },
  };
  const warnings: string[] = [];
  const rewrites: RewriteRecord[] = [];
  const agent = createAgent(yard, config, {
    onRewriteWarning: (message) => warnings.push(message),
    onRewrite: (record) => rewrites.push(record),
  });
  const answered = () => model.requests.filter((request) => !isRewrite(request));
  return { yard, model, agent, warnings, rewrites, answered };
}

describe("routing.rewrite", () => {
  it("offers the tool of each need the model wrote, where the raw request misses one, and keeps what the raw request found", async () => {
    const off = await setup({ content: NEEDS }, { rewrite: false });
    await off.agent.run(REQUEST);
    expect(off.model.requests.filter(isRewrite)).toHaveLength(0);
    const raw = toolNames(off.answered()[0]!);
    expect(raw).toContain("cat_refund_order");
    expect(raw).not.toContain("cat_get_weather_forecast");

    const on = await setup({ content: NEEDS, usage: { promptTokens: 90, completionTokens: 12 } });
    const result = await on.agent.run(REQUEST);
    expect(result.stopReason).toBe("answer");
    const [rewrite, turn] = on.model.requests;
    expect(isRewrite(rewrite!)).toBe(true);
    expect(rewrite!.messages[1]).toEqual({ role: "user", content: REQUEST });
    expect(rewrite!.tools ?? []).toEqual([]);
    const offered = toolNames(turn!);
    expect(offered).toContain("cat_get_weather_forecast");
    expect(offered).toContain("cat_refund_order");
    // The rewrite is not a model turn of the run: one step, whose tokens are its own.
    expect(result.steps).toBe(1);
    expect(on.rewrites).toEqual([
      {
        request: REQUEST,
        needs: ["refund an order", "get weather forecast for a city"],
        ms: expect.any(Number),
        tokens: { input: 90, output: 12 },
      },
    ]);
    expect(on.warnings).toEqual([]);
  });

  it.each<[string, ScriptedReply]>([
    ["garbage", { content: "Sure! Here are the needs: refund, weather." }],
    ["a list of non-strings", { content: '[{"need": "refund an order"}]' }],
    ["HTTP 500", { status: 500 }],
  ])("on %s routes on the raw request, answers, and warns once", async (_, reply) => {
    const { agent, model, warnings, rewrites, answered } = await setup(reply);
    const first = await agent.run(REQUEST);
    const second = await agent.run("Export the invoice of last month, then archive the ticket");
    expect([first.stopReason, second.stopReason]).toEqual(["answer", "answer"]);
    const offered = toolNames(answered()[0]!);
    expect(offered).toContain("cat_refund_order");
    expect(offered).not.toContain("cat_get_weather_forecast");
    expect(model.requests.filter(isRewrite)).toHaveLength(2);
    expect(rewrites.map((record) => record.error === undefined)).toEqual([false, false]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("routing on the raw request");
  });

  it("past its deadline routes on the raw request", async () => {
    const yard = await Switchyard.connect({ mcpServers: { cat: catalogServer() } });
    const model = await startScriptedOpenAIServer([{ hang: true }]);
    opened.push(yard, model);
    const warnings: string[] = [];
    const rewrite = new QueryRewriter({
      model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted", maxRetries: 0 }),
      timeoutMs: 300,
      onWarning: (message) => warnings.push(message),
    });
    const router = routerFor(yard, { topK: 3 });
    const messages = [{ role: "user" as const, content: REQUEST }];
    const rewritten = await routeTools(yard, router, { rewrite })({ messages, usedTools: new Set() });
    const raw = await routeTools(yard, router)({ messages, usedTools: new Set() });
    expect(rewritten).toEqual(raw);
    expect(model.requests).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("no answer within 300 ms");
  });

  it("asks once per request text: every step of a run and the same request again reuse the rewrite", async () => {
    const yard = await Switchyard.connect({ mcpServers: { cat: catalogServer() } });
    let turns = 0;
    const model = await startScriptedOpenAIServer((request) => {
      if (isRewrite(request)) return { content: NEEDS };
      turns += 1;
      // The first turn of each run calls a tool, so each run takes two steps.
      return turns % 2 === 1
        ? { toolCalls: [{ id: `c${turns}`, name: "cat_get_weather_forecast", arguments: { city: "上海" } }] }
        : { content: "done" };
    });
    opened.push(yard, model);
    const config: AgentConfig = {
      model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" },
      routing: { mode: "route", topK: 3, rewrite: true },
      agent: { nudge: false },
    };
    const agent = createAgent(yard, config);
    const first = await agent.run(REQUEST);
    const again = await agent.run(REQUEST);
    expect([first.steps, again.steps]).toEqual([2, 2]);
    expect(model.requests.filter(isRewrite)).toHaveLength(1);
    expect(model.requests.filter((request) => !isRewrite(request))).toHaveLength(4);
  });

  it("routes the nudge's step on the user's request: the reminder is neither rewritten nor ranked", async () => {
    const air = "北京朝阳区今天空气质量怎么样？";
    const yard = await Switchyard.connect({ mcpServers: { cat: catalogServer() } });
    const model = await startScriptedOpenAIServer((request) =>
      isRewrite(request) ? { content: '["get air quality of a district"]' } : { content: "今天空气不错。" },
    );
    opened.push(yard, model);
    const agent = createAgent(yard, {
      model: { baseURL: model.baseURL, name: "scripted", apiKey: "k", maxRetries: 0 },
      routing: { mode: "route", topK: 3, rewrite: true },
      agent: { nudge: true },
    });
    await agent.run(air);
    const turns = model.requests.filter((request) => !isRewrite(request));
    // The answer without a tool call got the reminder, and the model was asked again.
    expect(turns).toHaveLength(2);
    expect(String(turns[1]!.messages.at(-1)?.content)).toMatch(/^You answered without calling a tool/);
    expect(model.requests.filter(isRewrite).map((request) => request.messages[1]?.content)).toEqual([air]);
    expect(toolNames(turns[1]!)).toContain("cat_get_air_quality");
  });

  it("asks nothing when the catalog is offered whole", async () => {
    const { agent, model } = await setup({ content: NEEDS }, { offerAllUpTo: 100 });
    expect((await agent.run(REQUEST)).stopReason).toBe("answer");
    expect(model.requests.filter(isRewrite)).toHaveLength(0);
    expect(toolNames(model.requests[0]!)).toHaveLength(40);
  });
});

describe("QueryRewriter's callbacks", () => {
  it("a callback that throws fails neither the rewrite nor the run", async () => {
    const model = await startScriptedOpenAIServer([{ content: NEEDS }, { status: 500 }]);
    opened.push(model);
    const rewrite = new QueryRewriter({
      model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted", maxRetries: 0 }),
      onRewrite: () => {
        throw new Error("the caller's bug");
      },
      onWarning: () => {
        throw new Error("the caller's other bug");
      },
    });
    expect(await rewrite.needs(REQUEST)).toEqual(["refund an order", "get weather forecast for a city"]);
    expect(await rewrite.needs("something the model fails on")).toEqual([]);
  });
});
