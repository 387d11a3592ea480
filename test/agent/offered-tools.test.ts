import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AgentOptions,
  createAgent,
  OpenAIChatModel,
  Switchyard,
  type SwitchyardEvent,
  type WireRecord,
} from "../../src/index.js";
import { type ReceivedRequest, type Script, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT, raw } from "../helpers.js";

const MEMORY = `${ROOT}node_modules/@modelcontextprotocol/server-memory/dist/index.js`;

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

/** `n` tool names `<stem>_<letter>` for the raw fixture's `--tools`. */
const names = (stem: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${stem}_${String.fromCharCode(97 + i)}`).join(",");

/** server-memory (9 tools, with a graph file of its own) and, unless `small`, 23 weather tools. */
function fleet(small = false) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-offered-")), "memory.jsonl");
  return {
    memory: { command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: file } },
    ...(small ? {} : { wx: raw("--tools", names("weather_forecast", 20)) }),
  };
}

/** The agent as `ask` builds it (createAgent: the host's router), over a real fleet and a scripted model. */
async function setup(
  mcpServers: Record<string, unknown>,
  script: Script<ReceivedRequest>,
  options: Partial<AgentOptions> = {},
) {
  const wire: WireRecord[] = [];
  const yard = await Switchyard.connect({ mcpServers }, { wireTrace: (record) => wire.push(record) });
  const server = await startScriptedOpenAIServer(script);
  opened.push(yard, server);
  const hostEvents: SwitchyardEvent[] = [];
  yard.observe((event) => hostEvents.push(event));
  const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "scripted" });
  const agent = createAgent(yard, {}, { model, ...options });
  /** The tools/call requests that reached a server for a tool (by its own name). */
  const sent = (tool: string) =>
    wire.filter(
      (r) =>
        r.direction === "to-server" &&
        (r.message as { method?: string }).method === "tools/call" &&
        (r.message as { params: { name: string } }).params.name === tool,
    );
  const offered = (index: number) => server.requests[index]!.tools?.map((t) => t.function.name) ?? [];
  const graph = async () =>
    (await yard.callTool("memory_read_graph", {})).structuredContent as { entities: Array<{ name: string }> };
  return { yard, server, agent, hostEvents, sent, offered, graph };
}

const ALICE = { entities: [{ name: "Alice", entityType: "person", observations: ["likes tea"] }] };

describe("a tool the model was not offered", () => {
  it("is refused, not run: the model is told which tools it was offered, the call is recorded REFUSED", async () => {
    const { agent, hostEvents, sent, offered, graph, server } = await setup(fleet(), [
      { toolCalls: [{ id: "m", name: "memory_create_entities", arguments: ALICE }] },
      { content: "I could not store it." },
    ]);
    const result = await agent.run("What is the weather forecast?");
    const first = offered(0);
    expect(first.length).toBeGreaterThan(0);
    expect(first).not.toContain("memory_create_entities");
    expect(first.every((name) => name.startsWith("wx_weather_forecast_"))).toBe(true);

    expect(result.answer).toBe("I could not store it.");
    expect(result.calls).toEqual([
      expect.objectContaining({
        id: "m",
        name: "memory_create_entities",
        server: "memory",
        ok: false,
        error: { code: "REFUSED", message: expect.stringContaining("was not offered at this step") },
      }),
    ]);
    // What the model read: why, and exactly the tools it was offered.
    const told = server.requests[1]!.messages.find((m) => m.role === "tool") as { content: string };
    expect(told.content).toMatch(/^\[tool memory_create_entities → refused\]\n/);
    expect(told.content).toContain(`The tools offered at this step are: ${first.join(", ")}.`);
    // Never sent: no tools/call on the wire, nothing stored, and the host heard of it once: started,
    // then refused (the pipeline records every call, the refused ones too).
    expect(sent("create_entities")).toHaveLength(0);
    expect((await graph()).entities).toEqual([]);
    const heard = hostEvents.filter(
      (e) => (e.type === "call_started" || e.type === "call_finished") && e.name === "memory_create_entities",
    );
    expect(heard).toEqual([
      expect.objectContaining({ type: "call_started" }),
      expect.objectContaining({ type: "call_finished", ok: false }),
    ]);
    expect(heard[1]).toMatchObject({ error: { code: "REFUSED" } });
  });

  it("is offered at the next step once asked for, with its schema, and runs then", async () => {
    const { agent, offered, graph } = await setup(fleet(), [
      { toolCalls: [{ id: "m1", name: "memory_create_entities", arguments: ALICE }] },
      { toolCalls: [{ id: "m2", name: "memory_create_entities", arguments: ALICE }] },
      { content: "Noted." },
    ]);
    const result = await agent.run("What is the weather forecast?");
    expect(offered(0)).not.toContain("memory_create_entities");
    expect(offered(1)[0]).toBe("memory_create_entities");
    expect(result.calls.map((c) => [c.id, c.ok, c.error?.code])).toEqual([
      ["m1", false, "REFUSED"],
      ["m2", true, undefined],
    ]);
    expect((await graph()).entities.map((e) => e.name)).toEqual(["Alice"]);
  });

  it("runs when the router offered it: a tool used earlier stays offered, and a request that matches nothing gets the fallback", async () => {
    const { agent, sent, offered, graph } = await setup(fleet(), [
      { toolCalls: [{ id: "w1", name: "wx_weather_forecast_a", arguments: {} }] },
      { content: "Sunny." },
      {
        toolCalls: [
          { id: "w2", name: "wx_weather_forecast_a", arguments: { again: true } },
          { id: "m", name: "memory_create_entities", arguments: ALICE },
        ],
      },
      { content: "Noted." },
    ]);
    const first = await agent.run("What is the weather forecast?");
    expect(first.calls.map((c) => [c.name, c.ok])).toEqual([["wx_weather_forecast_a", true]]);

    // Nothing in "keep in mind that Alice likes tea" matches a tool: the fallback offers the used tool's
    // server first, then every server's tools in turn; the used tool stays offered.
    const second = await agent.run("keep in mind that Alice likes tea", { history: first.messages });
    const offeredNow = offered(2);
    expect(offeredNow[0]).toBe("wx_weather_forecast_a");
    expect(offeredNow).toContain("memory_create_entities");
    expect(second.calls.map((c) => [c.name, c.ok])).toEqual([
      ["wx_weather_forecast_a", true],
      ["memory_create_entities", true],
    ]);
    expect(sent("create_entities")).toHaveLength(1);
    expect((await graph()).entities.map((e) => e.name)).toEqual(["Alice"]);
  });

  it("runs when the catalog is small enough to be offered whole", async () => {
    const { agent, offered, graph } = await setup(fleet(true), [
      { toolCalls: [{ id: "m", name: "memory_create_entities", arguments: ALICE }] },
      { content: "Noted." },
    ]);
    const result = await agent.run("Alice? tea!");
    expect(offered(0)).toHaveLength(9);
    expect(result.calls.map((c) => [c.name, c.ok])).toEqual([["memory_create_entities", true]]);
    expect((await graph()).entities.map((e) => e.name)).toEqual(["Alice"]);
  });

  it("runs when the guard is turned off (offeredToolsOnly: false)", async () => {
    const { agent, offered, graph } = await setup(
      fleet(),
      [{ toolCalls: [{ id: "m", name: "memory_create_entities", arguments: ALICE }] }, { content: "Noted." }],
      { offeredToolsOnly: false },
    );
    const result = await agent.run("What is the weather forecast?");
    expect(offered(0)).not.toContain("memory_create_entities");
    expect(result.calls.map((c) => [c.name, c.ok])).toEqual([["memory_create_entities", true]]);
    expect((await graph()).entities.map((e) => e.name)).toEqual(["Alice"]);
  });
});
