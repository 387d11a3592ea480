import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { budgetFor } from "../../src/context/budget.js";
import { SUMMARY_HEADING } from "../../src/context/compact.js";
import {
  Agent,
  type AgentOptions,
  type ChatMessage,
  createAgent,
  type LocalTool,
  OpenAIChatModel,
  resolveConfig,
  Switchyard,
} from "../../src/index.js";
import { type ReceivedRequest, startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { NODE, ROOT, sdk } from "../helpers.js";
import { counter, expectPaired, MODEL, requestTokens } from "./received-requests.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

/** A catalog server with one tool whose every answer is a JSON text of about `resultChars` characters. */
function bigServer(resultChars: number) {
  const dir = mkdtempSync(path.join(tmpdir(), "sy-context-"));
  const catalog = path.join(dir, "tools.json");
  const tools = [
    {
      name: "list_items",
      description: "List the items of an inventory.",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
    },
  ];
  writeFileSync(catalog, JSON.stringify(tools));
  return {
    command: NODE,
    args: [
      `${ROOT}test/fixtures/catalog-server.mjs`,
      "--catalog",
      catalog,
      "--result-chars",
      String(resultChars),
    ],
  };
}

async function setup(
  script: Script<ReceivedRequest>,
  options: Partial<Omit<AgentOptions, "model" | "host">> = {},
  servers: Record<string, unknown> = { a: sdk() },
) {
  const yard = await Switchyard.connect({ mcpServers: servers } as never);
  const server = await startScriptedOpenAIServer(script);
  opened.push(yard, server);
  const model = new OpenAIChatModel({ baseURL: server.baseURL, model: MODEL, apiKey: "test-key" });
  const agent = new Agent({ model, host: yard, ...options });
  return { yard, server, agent };
}

function toolMessages(request: ReceivedRequest) {
  return request.messages.filter((m) => m.role === "tool") as Array<{
    tool_call_id: string;
    content: string;
  }>;
}

function offeredNames(request: ReceivedRequest): string[] {
  return (request.tools ?? []).map((t) => t.function.name);
}

describe("result handles", () => {
  it("shows a large result as valid shaped JSON plus a handle, and read_result returns what was left out", async () => {
    const { agent, server } = await setup(
      [
        { toolCalls: [{ id: "c1", name: "big_list_items", arguments: { q: "all" } }] },
        {
          toolCalls: [
            { id: "c2", name: "read_result", arguments: { handle: "r1", path: "$.items[500].name" } },
          ],
        },
        { toolCalls: [{ id: "c3", name: "read_result", arguments: { handle: "r1", offset: 50_000 } }] },
        { content: "Item 501 is there." },
      ],
      { context: { window: 16_000 } },
      { big: bigServer(60_000) },
    );
    const result = await agent.run("What is item 501 called?");
    expect(result).toMatchObject({ stopReason: "answer", answer: "Item 501 is there." });
    const [first, second, third, fourth] = server.requests;
    const budget = budgetFor(16_000);

    // No handle yet: read_result is not offered.
    expect(offeredNames(first!)).toEqual(["big_list_items"]);
    // The shaped view: within the result's share, its JSON valid, and the handle named.
    expect(offeredNames(second!)).toEqual(["big_list_items", "read_result"]);
    const view = toolMessages(second!)[0]!.content;
    expect(counter.count(view)).toBeLessThanOrEqual(budget.result);
    expect(view).toContain('handle "r1"');
    const lines = view.split("\n");
    expect(lines[0]).toBe("[tool big_list_items → ok]");
    const json = JSON.parse(lines.slice(2).join("\n")) as { tool: string; items: Array<{ name: string }> };
    expect(json.tool).toBe("list_items");
    expect(JSON.stringify(json)).not.toContain("list_items item 501");

    // read_result picks a JSON path, and pages by offset.
    expect(toolMessages(third!)[1]!.content).toBe(
      "[tool read_result → ok]\n[r1 (big_list_items) at $.items[500].name: characters 0–19 of 19; this is the end]\nlist_items item 501",
    );
    const page = toolMessages(fourth!)[2]!.content;
    expect(page).toMatch(
      /^\[tool read_result → ok\]\n\[r1 \(big_list_items\): characters 50000–\d+ of \d+; /,
    );
    expect(counter.count(page)).toBeLessThanOrEqual(budget.result);

    // Nothing is lost: the whole result is stored; read_result calls are recorded as the agent's own.
    const stored = result.handles.get("r1")!;
    expect((JSON.parse(stored.text) as { items: unknown[] }).items.length).toBeGreaterThan(500);
    expect(result.calls.map((c) => [c.id, c.name, c.server, c.ok])).toEqual([
      ["c1", "big_list_items", "big", true],
      ["c2", "read_result", "switchyard", true],
      ["c3", "read_result", "switchyard", true],
    ]);
    for (const request of server.requests) expect(requestTokens(request)).toBeLessThanOrEqual(budget.request);
  });
});

describe("result handles off", () => {
  it("shapes a large result without a handle, and never offers read_result", async () => {
    const { agent, server } = await setup(
      [{ toolCalls: [{ id: "c1", name: "big_list_items", arguments: {} }] }, { content: "ok" }],
      { context: { window: 16_000, handles: false } },
      { big: bigServer(60_000) },
    );
    const result = await agent.run("List them.");
    expect(result.answer).toBe("ok");
    const view = toolMessages(server.requests[1]!)[0]!.content;
    expect(view).toMatch(
      /^\[tool big_list_items → ok\]\n\[JSON shaped to fit: .*ask for less, e\.g\. a narrower query\]\n\{/,
    );
    expect(view).not.toContain("handle");
    expect(server.requests.map(offeredNames)).toEqual([["big_list_items"], ["big_list_items"]]);
    expect(result.handles.size).toBe(0);
  });
});

describe("same-tool collapse", () => {
  it("replaces earlier results of the same call by stubs pointing at the latest answered one", async () => {
    const same = (id: string) => ({ toolCalls: [{ id, name: "a_echo", arguments: { text: "same" } }] });
    const { agent, server } = await setup([
      same("e1"),
      same("e2"),
      same("e3"),
      same("e4"),
      { content: "done" },
    ]);
    const result = await agent.run("Echo it a few times.");
    expect(result.stopReason).toBe("answer");
    const stub = (id: string, latest: string) => ({
      tool_call_id: id,
      content: `[tool a_echo → repeated: the same call was made again later (call ${latest}); its result there is the current one]`,
    });
    const contents = (index: number) =>
      toolMessages(server.requests[index]!).map(({ tool_call_id, content }) => ({ tool_call_id, content }));
    expect(contents(1)).toEqual([{ tool_call_id: "e1", content: "[tool a_echo → ok]\nsame" }]);
    expect(contents(3)).toEqual([
      stub("e1", "e3"),
      stub("e2", "e3"),
      { tool_call_id: "e3", content: "[tool a_echo → ok]\nsame" },
    ]);
    // The fourth call is refused (maxIdenticalCalls): the third result stays, the one to use.
    const after = contents(4);
    expect(after.slice(0, 3)).toEqual([
      stub("e1", "e3"),
      stub("e2", "e3"),
      { tool_call_id: "e3", content: "[tool a_echo → ok]\nsame" },
    ]);
    expect(after[3]!.content).toMatch(
      /^\[tool a_echo → refused\]\nrefused: a_echo was already called 3 times/,
    );
    // The working record keeps every result as it was.
    const recorded = result.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(recorded.slice(0, 3)).toEqual(Array(3).fill("[tool a_echo → ok]\nsame"));
  });
});

/** A model that calls a_echo with a different long text each step, then answers at step `steps`. */
function echoScript(steps: number): Script<ReceivedRequest> {
  return (_request, index) =>
    index + 1 >= steps
      ? { content: "All echoed." }
      : {
          toolCalls: [
            {
              id: `s${index + 1}`,
              name: "a_echo",
              arguments: { text: `step ${index + 1}: ${"lorem ipsum dolor sit amet ".repeat(12)}` },
            },
          ],
        };
}

describe("compaction", () => {
  const window = 4_000;
  const context = { window, answerTokens: 200 };

  it("summarizes the oldest rounds past 80% of the window, keeps pairs and the last rounds whole, never over", async () => {
    const { agent, server } = await setup(echoScript(30), { maxSteps: 40, maxCallsPerTool: 0, context });
    const result = await agent.run("Echo thirty things.");
    expect(result).toMatchObject({ stopReason: "answer", steps: 30 });
    expect(server.requests).toHaveLength(30);
    for (const [index, request] of server.requests.entries()) {
      expectPaired(request);
      const tokens = requestTokens(request);
      // Never past the compaction threshold; what was sent is what the agent estimated.
      expect(tokens, `request ${index + 1}`).toBeLessThanOrEqual(window * 0.8);
      expect(result.record.steps[index]!.promptEstimate).toBe(tokens);
      // The question is always there, word for word.
      expect(request.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
        "Echo thirty things.",
      ]);
    }
    // Without compaction the run's record is far larger than the window.
    expect(counter.countMessages(result.messages)).toBeGreaterThan(window);
    const compactedAt = result.record.steps.filter((step) => step.compacted).map((step) => step.step);
    expect(compactedAt.length).toBeGreaterThan(0);
    const last = server.requests.at(-1)!;
    const system = String(last.messages[0]!.content);
    expect(system).toContain(SUMMARY_HEADING);
    // Extractive: a line per call and per result; the oldest lines go first when they do not fit.
    expect(system).toMatch(/\n- called a_echo \{"text":"step \d+: lorem.*\n {2}→ a_echo: step \d+: lorem/);
    expect(system).toMatch(/\(\d+ older lines left out\)/);
    // The last four rounds (keepRounds) are whole.
    const ids = last.messages.flatMap((m) =>
      ((m.tool_calls as Array<{ id: string }>) ?? []).map((c) => c.id),
    );
    expect(ids.slice(-4)).toEqual(["s26", "s27", "s28", "s29"]);
    expect(
      toolMessages(last)
        .slice(-4)
        .map((m) => m.tool_call_id),
    ).toEqual(["s26", "s27", "s28", "s29"]);
    // The working record is whole; the history to continue from starts with the summary.
    expect(result.messages.filter((m) => m.role === "tool")).toHaveLength(29);
    expect(result.history[0]).toMatchObject({ role: "system" });
    expect(String(result.history[0]!.content)).toContain(SUMMARY_HEADING);
    expect(result.history.length).toBeLessThan(result.messages.length);
  });

  it("asks the summarizer model, when one is given, for the summary in the system prompt", async () => {
    const summaries = await startScriptedOpenAIServer(() => ({
      content: "SUMMARY: the user had echoes made.",
    }));
    opened.push(summaries);
    const summarizer = new OpenAIChatModel({ baseURL: summaries.baseURL, model: MODEL, apiKey: "k" });
    const { agent, server } = await setup(echoScript(30), {
      maxSteps: 40,
      maxCallsPerTool: 0,
      context: { ...context, summarizer },
    });
    const result = await agent.run("Echo thirty things.");
    expect(result.stopReason).toBe("answer");
    expect(summaries.requests.length).toBeGreaterThan(0);
    const asked = summaries.requests[0]!;
    expect(asked.tools ?? []).toEqual([]);
    expect(String(asked.messages[1]!.content)).toContain("a_echo");
    const system = String(server.requests.at(-1)!.messages[0]!.content);
    expect(system).toContain(`${SUMMARY_HEADING}\nSUMMARY: the user had echoes made.`);
    for (const request of server.requests) {
      expectPaired(request);
      expect(requestTokens(request)).toBeLessThanOrEqual(window * 0.8);
    }
  });

  it("summarizes extractively when the summarizer model fails", async () => {
    const summaries = await startScriptedOpenAIServer(() => ({
      status: 400,
      body: { error: { message: "no" } },
    }));
    opened.push(summaries);
    const summarizer = new OpenAIChatModel({ baseURL: summaries.baseURL, model: MODEL, apiKey: "k" });
    const { agent, server } = await setup(echoScript(30), {
      maxSteps: 40,
      maxCallsPerTool: 0,
      context: { ...context, summarizer },
    });
    const result = await agent.run("Echo thirty things.");
    expect(result.stopReason).toBe("answer");
    expect(summaries.requests.length).toBeGreaterThan(0);
    expect(String(server.requests.at(-1)!.messages[0]!.content)).toMatch(
      /\n- called a_echo \{"text":"step \d+/,
    );
  });

  it("runs a question after a 200-turn history within the window, and continues from the compacted history", async () => {
    const history: ChatMessage[] = [];
    for (let turn = 1; turn <= 200; turn++) {
      history.push(
        { role: "user", content: `Question ${turn}: what does the echo say about topic ${turn}?` },
        {
          role: "assistant",
          content: null,
          toolCalls: [{ id: `h${turn}`, name: "a_echo", arguments: `{"text":"topic ${turn}"}` }],
        },
        { role: "tool", toolCallId: `h${turn}`, content: `[tool a_echo → ok]\ntopic ${turn}` },
        { role: "assistant", content: `The echo says topic ${turn}.` },
      );
    }
    expect(counter.countMessages(history)).toBeGreaterThan(window * 2);
    const { agent, server } = await setup([{ content: "Answer 201." }, { content: "Answer 202." }], {
      context,
    });
    const first = await agent.run("Question 201?", { history });
    expect(first.answer).toBe("Answer 201.");
    const second = await agent.run("Question 202?", { history: first.history, handles: first.handles });
    expect(second.answer).toBe("Answer 202.");
    for (const request of server.requests) {
      expectPaired(request);
      expect(requestTokens(request)).toBeLessThanOrEqual(window * 0.8);
      expect(String(request.messages[0]!.content)).toContain(SUMMARY_HEADING);
    }
    // The latest turns are whole, and the question last.
    const sent = server.requests[1]!.messages;
    expect(sent.at(-1)).toEqual({ role: "user", content: "Question 202?" });
    expect(sent.at(-2)).toMatchObject({ role: "assistant", content: "Answer 201." });
    expect(sent.some((m) => m.content === "The echo says topic 200.")).toBe(true);
    // The summary of the first run is carried over (one system message at the head of the history).
    expect(second.history.filter((m) => m.role === "system")).toHaveLength(1);
  });
});

describe("local tools", () => {
  it("offers a local tool beside the catalog's, answers it without a server, and records it as switchyard's", async () => {
    const clock: LocalTool = {
      tool: {
        name: "what_time",
        description: "The time.",
        parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] },
      },
      offered: (state) => state.step === 1 || state.calls.length > 0,
      run: (args) => `12:00 in ${(args as { zone: string }).zone}`,
    };
    const events: string[] = [];
    const { agent, server } = await setup(
      [
        {
          toolCalls: [
            { id: "t1", name: "what_time", arguments: { zone: "UTC" } },
            { id: "t2", name: "what_time", arguments: {} },
          ],
        },
        { content: "noon" },
      ],
      { localTools: [clock], onEvent: (event) => events.push(event.type) },
    );
    const result = await agent.run("What time is it?");
    expect(result.answer).toBe("noon");
    expect(offeredNames(server.requests[0]!).at(-1)).toBe("what_time");
    expect(toolMessages(server.requests[1]!)).toEqual([
      { role: "tool", tool_call_id: "t1", content: "[tool what_time → ok]\n12:00 in UTC" },
      {
        role: "tool",
        tool_call_id: "t2",
        content: expect.stringMatching(
          /^\[tool what_time → invalid arguments\]\ninvalid arguments for what_time: .*zone/,
        ),
      },
    ]);
    expect(result.calls.map((c) => [c.id, c.server, c.tool, c.ok])).toEqual([
      ["t1", "switchyard", "what_time", true],
      ["t2", "switchyard", "what_time", false],
    ]);
    expect(events.filter((type) => type === "call_finished")).toHaveLength(2);
  });

  it("refuses local tools with a duplicate or unsafe name, naming it", async () => {
    const { yard } = await setup([]);
    const model = new OpenAIChatModel({ baseURL: "http://127.0.0.1:9/v1", model: MODEL, apiKey: "k" });
    const named = (name: string): LocalTool => ({
      tool: { name, description: "", parameters: { type: "object" } },
      offered: () => true,
      run: () => "",
    });
    expect(() => new Agent({ model, host: yard, localTools: [named("read_result")] })).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT", message: expect.stringContaining('"read_result"') }),
    );
    expect(() => new Agent({ model, host: yard, localTools: [named("bad name")] })).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT", message: expect.stringContaining("bad name") }),
    );
  });
});

describe("the agent.context config section", () => {
  it("is read by createAgent (model.contextWindow, collapseRepeats, the model as summarizer)", async () => {
    const same = (id: string) => ({ toolCalls: [{ id, name: "a_echo", arguments: { text: "same" } }] });
    const server = await startScriptedOpenAIServer([same("e1"), same("e2"), { content: "done" }]);
    const yard = await Switchyard.connect({ mcpServers: { a: sdk() } });
    opened.push(server, yard);
    const config = resolveConfig(
      {
        mcpServers: {},
        model: { baseURL: server.baseURL, name: MODEL, apiKey: "k", contextWindow: 6_000 },
        agent: { nudge: false, context: { collapseRepeats: false, summarizer: "model", keepRounds: 2 } },
      },
      { env: {} },
    );
    const agent = createAgent(yard, config);
    const result = await agent.run("Echo twice.");
    expect(result.answer).toBe("done");
    // Not collapsed: both results as they came.
    expect(toolMessages(server.requests[2]!).map((m) => m.content)).toEqual([
      "[tool a_echo → ok]\nsame",
      "[tool a_echo → ok]\nsame",
    ]);
  });

  it("rejects bad values, naming the key", () => {
    const bad = (context: unknown) => () =>
      resolveConfig({ mcpServers: {}, agent: { context } }, { env: {} });
    expect(bad({ compactAt: 2 })).toThrow(/agent\.context\.compactAt.*at most 1/);
    expect(bad({ summarizer: "gpt" })).toThrow(/agent\.context\.summarizer.*"extractive" or "model"/);
    expect(bad({ keepRound: 2 })).toThrow(/agent\.context/);
  });
});
