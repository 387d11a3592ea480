import { afterEach, describe, expect, it } from "vitest";
import {
  Agent,
  type AgentOptions,
  createAgent,
  OpenAIChatModel,
  Switchyard,
  type WireRecord,
} from "../../src/index.js";
import { type ReceivedRequest, startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { NODE, ROOT, SDK_SERVER, startHttpServer } from "../helpers.js";

// The agent's run-level guards against real stdio servers and a scripted model: calls per tool, whatever
// the arguments (`maxCallsPerTool`), and a server that timed out is not called again in that run
// (`skipServerAfter`).

const PROBE = { command: NODE, args: [`${ROOT}test/fixtures/probe-server.mjs`] };

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

async function setup(script: Script<ReceivedRequest>, options: Partial<AgentOptions> = {}) {
  const yard = await Switchyard.connect({ mcpServers: { probe: { ...PROBE, timeoutMs: 400 } } });
  const server = await startScriptedOpenAIServer(script);
  opened.push(yard, server);
  const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "scripted", apiKey: "test-key" });
  const agent = new Agent({ model, host: yard, maxSteps: 12, ...options });
  /** The calls that reached the probe server, per tool (read from the server itself). */
  const received = async () =>
    JSON.parse((await yard.callTool("probe_calls")).text) as Record<string, number>;
  return { yard, server, agent, received };
}

function toolMessages(request: ReceivedRequest) {
  return request.messages.filter((m) => m.role === "tool") as Array<{ content: string }>;
}

/** A model that probes `lookup` with radius 100, 200, … 800, one call a step, then answers. */
const probing: Script<ReceivedRequest> = (_request, index) =>
  index < 8
    ? { toolCalls: [{ name: "probe_lookup", arguments: { radius: (index + 1) * 100 } }] }
    : { content: "nothing nearby" };

describe("maxCallsPerTool", () => {
  it("refuses the 6th call of a tool in a run whatever its arguments, and tells the model to answer", async () => {
    const { agent, server, received } = await setup(probing);
    const result = await agent.run("Anything near me?");
    expect(result.stopReason).toBe("answer");
    expect((await received()).lookup).toBe(5);
    expect(result.calls.map((c) => c.ok)).toEqual([true, true, true, true, true, false, false, false]);
    expect(result.calls[5]!.error).toMatchObject({ code: "REFUSED" });
    const told = toolMessages(server.requests[6]!).at(-1)!.content;
    expect(told).toContain("refused: probe_lookup was already called 5 times in this run");
    expect(told).toContain("answer with what you have");
  });

  it("counts the calls a model asks for at once in one step", async () => {
    const { agent, received } = await setup((_request, index) =>
      index === 0
        ? {
            toolCalls: [1, 2, 3, 4, 5, 6, 7].map((n) => ({
              name: "probe_lookup",
              arguments: { radius: n * 100 },
            })),
          }
        : { content: "done" },
    );
    const result = await agent.run("Anything near me?");
    expect((await received()).lookup).toBe(5);
    expect(result.calls.filter((c) => c.ok)).toHaveLength(5);
  });

  it("0 turns it off: every variant reaches the server", async () => {
    const { agent, received } = await setup(probing, { maxCallsPerTool: 0 });
    const result = await agent.run("Anything near me?");
    expect(result.stopReason).toBe("answer");
    expect((await received()).lookup).toBe(8);
  });
});

/** A model that calls `hang` (it times out), then `ping_tool` of the same server, then answers. */
const hangThenPing: Script<ReceivedRequest> = (request) => {
  const tools = request.messages.filter((m) => m.role === "tool").length;
  if (tools === 0) return { toolCalls: [{ name: "probe_hang", arguments: {} }] };
  if (tools === 1) return { toolCalls: [{ name: "probe_ping_tool", arguments: {} }] };
  return { content: "done" };
};

describe("skipServerAfter", () => {
  it("does not call a server again in a run once a call to it timed out, and says why; a new run calls it", async () => {
    const { agent, server, received } = await setup(hangThenPing);
    const first = await agent.run("Try.");
    expect(first.calls.map((c) => c.error?.code)).toEqual(["TIMEOUT", "REFUSED"]);
    expect(await received()).toEqual({ hang: 1 });
    // The timed-out call's message says the server is out for the run; the refusal names it and why.
    expect(toolMessages(server.requests[1]!).at(-1)!.content).toContain(
      "Server probe is not called again in this run",
    );
    const refusal = toolMessages(server.requests[2]!).at(-1)!.content;
    expect(refusal).toContain("refused: probe_ping_tool was not called: server probe timed out");
    expect(refusal).toContain("earlier in this run; it is not called again in this run");
    // The next run starts afresh.
    const second = await agent.run("Try again.");
    expect(second.calls.map((c) => c.error?.code)).toEqual(["TIMEOUT", "REFUSED"]);
    expect(await received()).toEqual({ hang: 2 });
  });

  it('"never" keeps calling it', async () => {
    const { agent, received } = await setup(hangThenPing, { skipServerAfter: "never" });
    const result = await agent.run("Try.");
    expect(result.calls.map((c) => c.error?.code ?? "ok")).toEqual(["TIMEOUT", "ok"]);
    expect(await received()).toEqual({ hang: 1, ping_tool: 1 });
  });
});

describe("skipServerAfter over Streamable HTTP", () => {
  it("refuses the tools of an HTTP server whose call timed out, without sending them", async () => {
    const http = await startHttpServer(NODE, [SDK_SERVER, "--http", "0", "--tools", "echo"]);
    opened.push(http);
    const wire: WireRecord[] = [];
    const yard = await Switchyard.connect(
      { mcpServers: { h: { url: http.url, timeoutMs: 400 } } },
      { wireTrace: (record) => wire.push(record) },
    );
    const server = await startScriptedOpenAIServer((request) => {
      const tools = request.messages.filter((m) => m.role === "tool").length;
      if (tools === 0) return { toolCalls: [{ name: "h_sleep", arguments: { ms: 5_000 } }] };
      if (tools === 1) return { toolCalls: [{ name: "h_echo", arguments: { text: "hi" } }] };
      return { content: "done" };
    });
    opened.push(yard, server);
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "scripted", apiKey: "test-key" });
    const result = await new Agent({ model, host: yard }).run("Try.");
    expect(result.calls.map((c) => c.error?.code)).toEqual(["TIMEOUT", "REFUSED"]);
    const sent = wire
      .filter(
        (r) => r.direction === "to-server" && (r.message as { method?: string }).method === "tools/call",
      )
      .map((r) => (r.message as { params: { name: string } }).params.name);
    expect(sent).toEqual(["sleep"]);
    expect(toolMessages(server.requests[2]!).at(-1)!.content).toContain(
      "refused: h_echo was not called: server h timed out (no answer within 400 ms) earlier in this run",
    );
  });
});

describe("the config's agent section", () => {
  it("sets maxCallsPerTool for createAgent", async () => {
    const { yard, server, received } = await setup(probing);
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "scripted", apiKey: "test-key" });
    const config = {
      routing: { mode: "all" as const },
      agent: { nudge: false, maxSteps: 12, maxCallsPerTool: 2 },
    };
    const result = await createAgent(yard, config, { model }).run("Anything near me?");
    expect(result.stopReason).toBe("answer");
    expect((await received()).lookup).toBe(2);
    expect(result.calls.filter((c) => c.error?.code === "REFUSED")).toHaveLength(6);
  });
});
