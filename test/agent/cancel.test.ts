import { afterEach, describe, expect, it } from "vitest";
import {
  Agent,
  type AgentEvent,
  type ModelProvider,
  OpenAIChatModel,
  Switchyard,
  type SwitchyardEvent,
  type WireRecord,
} from "../../src/index.js";
import { type ReceivedRequest, type Script, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { sdk, waitFor } from "../helpers.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

/** A real SDK server (`a_sleep`), a real scripted model server, and an agent whose events are kept. */
async function setup(script: Script<ReceivedRequest>, model?: ModelProvider) {
  const wire: WireRecord[] = [];
  const yard = await Switchyard.connect(
    { mcpServers: { a: sdk() } },
    { wireTrace: (record) => wire.push(record) },
  );
  const server = await startScriptedOpenAIServer(script);
  opened.push(yard, server);
  const events: AgentEvent[] = [];
  const hostEvents: SwitchyardEvent[] = [];
  yard.observe((event) => hostEvents.push(event));
  const agent = new Agent({
    model: model ?? new OpenAIChatModel({ baseURL: server.baseURL, model: "scripted" }),
    host: yard,
    onEvent: (event) => events.push(event),
  });
  const methods = (direction: string) =>
    wire
      .filter((record) => record.direction === direction)
      .map((record) => (record.message as { method?: string }).method);
  return { yard, server, agent, events, hostEvents, methods };
}

const SLOW_CALLS: Script<ReceivedRequest> = [
  {
    content: "Waiting on both.",
    toolCalls: [
      { id: "one", name: "a_sleep", arguments: { ms: 30_000 } },
      { id: "two", name: "a_sleep", arguments: { ms: 30_000 } },
    ],
  },
  { content: "this request should never be made" },
];

describe("cancelling a run (RunOptions.signal)", () => {
  it("cancels the calls in flight, asks the model nothing more, and ends with stopReason cancelled", async () => {
    const { agent, server, events, hostEvents, methods } = await setup(SLOW_CALLS);
    const controller = new AbortController();
    const running = agent.run("Wait.", { signal: controller.signal });
    await waitFor(() => methods("to-server").filter((m) => m === "tools/call").length === 2);
    const aborted = performance.now();
    controller.abort(new Error("the user pressed Ctrl-C"));
    const result = await running;
    const ms = performance.now() - aborted;

    expect(ms).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(1);
    expect(result).toMatchObject({
      stopReason: "cancelled",
      answer: "",
      steps: 1,
      error: "The run was cancelled: the user pressed Ctrl-C.",
      calls: [
        { id: "one", ok: false, error: { code: "CANCELLED" } },
        { id: "two", ok: false, error: { code: "CANCELLED" } },
      ],
    });
    expect(result.record).toMatchObject({ outcome: "cancelled", error: { code: "CANCELLED" } });
    // Both servers' requests were cancelled on the wire.
    expect(methods("to-server").filter((m) => m === "notifications/cancelled")).toHaveLength(2);
    // The history stays valid to continue from: each tool call has its tool message.
    expect(result.messages.slice(-2)).toEqual([
      { role: "tool", toolCallId: "one", content: expect.stringContaining("the run was cancelled") },
      { role: "tool", toolCallId: "two", content: expect.stringContaining("the run was cancelled") },
    ]);
    expect(events.filter((e) => e.type === "run_finished")).toHaveLength(1);
    expect(hostEvents.filter((e) => e.type === "run_finished")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "run_finished", record: { outcome: "cancelled" } });
  });

  it("aborts a model request in progress", async () => {
    const { agent, server } = await setup([{ hang: true }, { content: "never" }]);
    const controller = new AbortController();
    const running = agent.run("Think.", { signal: controller.signal });
    await waitFor(() => server.requests.length === 1);
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ stopReason: "cancelled", steps: 1, error: "The run was cancelled." });
    expect(result.record.steps).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it("does not wait for a model that ignores the signal", async () => {
    let asked = 0;
    const deaf: ModelProvider = {
      name: "deaf",
      complete: () => {
        asked += 1;
        return new Promise(() => undefined);
      },
    };
    const { agent } = await setup([], deaf);
    const controller = new AbortController();
    const running = agent.run("Think.", { signal: controller.signal });
    await waitFor(() => asked === 1);
    controller.abort();
    expect((await running).stopReason).toBe("cancelled");
  });

  it("asks nothing when the signal has already aborted", async () => {
    const { agent, server } = await setup([{ content: "never" }]);
    const result = await agent.run("Hi.", { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ stopReason: "cancelled", steps: 0, calls: [] });
    expect(server.requests).toHaveLength(0);
  });
});
