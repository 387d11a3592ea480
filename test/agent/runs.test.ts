import { afterEach, describe, expect, it } from "vitest";
import { LAST_STEP_NOTE } from "../../src/agent/model-turn.js";
import {
  Agent,
  type AgentEvent,
  OpenAIChatModel,
  Switchyard,
  type SwitchyardEvent,
  type WireRecord,
} from "../../src/index.js";
import { type ReceivedRequest, type Script, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT, raw, sdk } from "../helpers.js";

const CONTRACT_SERVER = `${ROOT}test/fixtures/contract-server.mjs`;
const NEEDY_SERVER = `${ROOT}test/fixtures/needy-server.mjs`;

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

/** A real fleet, a real scripted model server, and an agent whose events and host events are kept. */
async function setup(
  mcpServers: Record<string, unknown>,
  script: Script<ReceivedRequest>,
  options: { maxSteps?: number; stream?: boolean } = {},
) {
  const wire: WireRecord[] = [];
  const yard = await Switchyard.connect({ mcpServers }, { wireTrace: (record) => wire.push(record) });
  const server = await startScriptedOpenAIServer(script);
  opened.push(yard, server);
  const events: AgentEvent[] = [];
  const hostEvents: SwitchyardEvent[] = [];
  yard.observe((event) => hostEvents.push(event));
  const agent = new Agent({
    model: new OpenAIChatModel({
      baseURL: server.baseURL,
      model: "scripted",
      ...(options.stream ? { stream: true } : {}),
    }),
    host: yard,
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    onEvent: (event) => events.push(event),
  });
  const sent = (tool: string) =>
    wire.filter(
      (r) =>
        r.direction === "to-server" &&
        (r.message as { method?: string }).method === "tools/call" &&
        (r.message as { params: { name: string } }).params.name === tool,
    );
  return { yard, server, agent, events, hostEvents, sent };
}

function toolMessages(request: ReceivedRequest) {
  return request.messages.filter((m) => m.role === "tool") as Array<{
    tool_call_id: string;
    content: string;
  }>;
}

describe("an agent run's records and events", () => {
  it("reports run_started … run_finished with the record, and gives the host its run and call ids", async () => {
    const { yard, agent, events, hostEvents } = await setup({ a: sdk(), b: raw() }, [
      {
        toolCalls: [
          { id: "sum", name: "a_add", arguments: { a: 1, b: 2 } },
          { id: "broken", name: "b_echo", arguments: '{"text": ' },
        ],
        usage: { promptTokens: 10, completionTokens: 5 },
      },
      { content: "3", usage: { promptTokens: 10, completionTokens: 5 } },
    ]);
    const result = await agent.run("Add 1 and 2.");
    expect(result.runId).toMatch(/^run_/);
    const { runId } = result;

    // The agent's own observer hears everything of the run, in order.
    expect(events.map((e) => e.type)).toEqual([
      "run_started",
      "step_started",
      "model_answered",
      "call_started",
      "call_started",
      "call_finished",
      "call_shaped",
      "call_finished",
      "call_shaped",
      "step_started",
      "model_answered",
      "answer",
      "run_finished",
    ]);
    expect(events.every((e) => "runId" in e && e.runId === runId)).toBe(true);
    expect(events[0]).toMatchObject({ type: "run_started", kind: "agent", input: "Add 1 and 2." });
    // Each step says which tools were offered, by name (what the store records and `runs show` prints).
    const offeredNames = yard.tools().map((tool) => tool.name);
    expect(events.filter((event) => event.type === "step_started")).toEqual([
      { type: "step_started", runId, step: 1, tools: offeredNames.length, offered: offeredNames },
      { type: "step_started", runId, step: 2, tools: offeredNames.length, offered: offeredNames },
    ]);
    expect(events.at(-1)).toEqual({ type: "run_finished", runId, record: result.record });

    // The record: every step with what was offered, the model's time and tokens; every call.
    expect(result.record).toMatchObject({
      id: runId,
      kind: "agent",
      outcome: "answer",
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      ms: expect.any(Number),
      tokens: { input: 20, output: 10 },
    });
    const offered = yard.tools().length;
    expect(result.record.steps).toEqual([
      {
        step: 1,
        offered,
        toolCalls: 2,
        modelMs: expect.any(Number),
        promptEstimate: expect.any(Number),
        tokens: { input: 10, output: 5 },
      },
      {
        step: 2,
        offered,
        toolCalls: 0,
        modelMs: expect.any(Number),
        promptEstimate: expect.any(Number),
        tokens: { input: 10, output: 5 },
      },
    ]);
    expect(result.calls).toEqual(result.record.calls);
    expect(result.calls).toEqual([
      { id: "sum", runId, name: "a_add", server: "a", tool: "add", ok: true, ms: expect.any(Number) },
      {
        id: "broken",
        runId,
        name: "b_echo",
        server: "b",
        tool: "echo",
        ok: false,
        ms: expect.any(Number),
        error: { code: "INVALID_ARGUMENTS", message: expect.stringContaining("not valid JSON") },
      },
    ]);

    // The host's observers hear each call once, from the pipeline (with the agent's run id and the
    // model's tool_call_id): the one that reached the server, and the one refused before it.
    const calls = hostEvents.filter((e) => e.type === "call_started" || e.type === "call_finished");
    expect(calls.map((e) => [e.type, e.id, e.runId].join(" ")).sort()).toEqual([
      `call_finished broken ${runId}`,
      `call_finished sum ${runId}`,
      `call_started broken ${runId}`,
      `call_started sum ${runId}`,
    ]);
    expect(calls.find((e) => e.type === "call_started" && e.id === "sum")).toMatchObject({
      step: 1,
      name: "a_add",
      server: "a",
      tool: "add",
    });
    expect(hostEvents.map((e) => e.type).filter((type) => !type.startsWith("call_"))).toEqual([
      "run_started",
      "step_started",
      "model_answered",
      "step_started",
      "model_answered",
      "answer",
      "run_finished",
    ]);
  });

  it("records a model failure with its code and stops with an error", async () => {
    const { agent, events } = await setup({ b: raw() }, [
      { status: 400, body: { error: { message: "no" } } },
    ]);
    const result = await agent.run("Hello?");
    expect(result.stopReason).toBe("error");
    expect(result.record).toMatchObject({
      outcome: "error",
      error: { code: "MODEL_ERROR", message: expect.stringContaining("no") },
      steps: [{ step: 1, toolCalls: 0 }],
    });
    expect(events.at(-1)).toMatchObject({ type: "run_finished", record: { outcome: "error" } });
  });
});

describe("the step limit", () => {
  it("offers no tools on the last step, says it is the last turn, and does not make calls asked for anyway", async () => {
    const { agent, server, sent } = await setup(
      { b: raw() },
      (_request, index) => ({
        toolCalls: [{ id: `c${index}`, name: "b_echo", arguments: { text: `round ${index}` } }],
      }),
      { maxSteps: 3 },
    );
    const result = await agent.run("Loop forever.");
    expect(result).toMatchObject({ stopReason: "max_steps", steps: 3 });
    expect(result.answer).toBe("Stopped after 3 steps without a final answer (maxSteps).");

    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((request) => request.tools?.length ?? 0)).toEqual([5, 5, 0]);
    expect(server.requests[2]).not.toHaveProperty("tools");
    expect(server.requests[2]).not.toHaveProperty("tool_choice");
    expect(server.requests[2]!.messages[0]!.content).toContain(LAST_STEP_NOTE);
    expect(server.requests[1]!.messages[0]!.content).not.toContain(LAST_STEP_NOTE);

    // Two calls were made; the third was not (no server call), and is recorded so.
    expect(sent("echo")).toHaveLength(2);
    expect(result.calls.map((c) => [c.id, c.ok, c.error?.code])).toEqual([
      ["c0", true, undefined],
      ["c1", true, undefined],
      ["c2", false, "REFUSED"],
    ]);
    expect(result.calls[2]!.error!.message).toMatch(/^not made: this was the run's last step/);
    // The history stays valid: every tool call has its tool message.
    expect(result.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "c2" });
  });

  it("ends with the answer the model gives on the last step", async () => {
    const { agent, server } = await setup(
      { b: raw() },
      (request, index) =>
        request.tools
          ? { toolCalls: [{ id: `c${index}`, name: "b_echo", arguments: { text: "x" } }] }
          : { content: "x" },
      { maxSteps: 2 },
    );
    const result = await agent.run("Echo x, then answer.");
    expect(result).toMatchObject({ stopReason: "answer", answer: "x", steps: 2 });
    expect(server.requests.map((request) => request.tools?.length ?? 0)).toEqual([5, 0]);
  });
});

describe("what the model is told when a tool fails", () => {
  it("says a tool whose answer breaks its own output schema misbehaved, not that the arguments were wrong", async () => {
    const { agent, server, sent } = await setup({ shop: { command: NODE, args: [CONTRACT_SERVER] } }, [
      { toolCalls: [{ id: "t", name: "shop_bad_total", arguments: { order: "A1" } }] },
      { content: "The total is not available." },
    ]);
    const result = await agent.run("What is the total of order A1?");
    expect(result.stopReason).toBe("answer");
    expect(sent("bad_total")).toHaveLength(1);
    const told = toolMessages(server.requests[1]!)[0]!.content;
    expect(told).toMatch(
      /^\[tool shop_bad_total → error\]\nshop_bad_total misbehaved: its answer did not match/,
    );
    expect(told).toContain("not of your arguments");
    expect(told).not.toMatch(/fix the arguments/i);
    expect(result.calls[0]!.error?.code).toBe("INVALID_RESULT");
  });

  it("says a tool that needs what this client cannot provide should not be called again, and refuses it after", async () => {
    const { agent, server } = await setup({ needy: { command: NODE, args: [NEEDY_SERVER] } }, [
      { toolCalls: [{ id: "first", name: "needy_confirm" }] },
      { toolCalls: [{ id: "again", name: "needy_confirm" }] },
      { content: "I cannot confirm from here." },
    ]);
    const result = await agent.run("Confirm it.");
    expect(result.stopReason).toBe("answer");
    const first = toolMessages(server.requests[1]!)[0]!.content;
    expect(first).toMatch(
      /^\[tool needy_confirm → failed\]\nneedy_confirm needs "elicitation", which this client cannot provide/,
    );
    expect(first).toContain("Do not call needy_confirm again in this run");
    expect(toolMessages(server.requests[2]!).at(-1)!.content).toMatch(/^\[tool needy_confirm → refused\]/);
    expect(result.calls.map((c) => c.error?.code)).toEqual(["CAPABILITY_MISSING", "REFUSED"]);
  });
});
