import { afterEach, describe, expect, it } from "vitest";
import { Agent, OpenAIChatModel, Switchyard } from "../../src/index.js";
import { type ReceivedRequest, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT } from "../helpers.js";

const BULKY = `${ROOT}test/fixtures/bulky-server.mjs`;
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

/** A real fleet with the bulky server, a scripted model that calls each of its tools once, and an agent. */
async function run(agentOptions: { resultBudgetChars?: number } = {}) {
  const yard = await Switchyard.connect({ mcpServers: { bulky: { command: NODE, args: [BULKY] } } });
  const server = await startScriptedOpenAIServer([
    {
      toolCalls: [
        { id: "structured", name: "bulky_orders", arguments: { count: 2_000 } },
        { id: "json_text", name: "bulky_orders_text", arguments: { count: 3_000 } },
        { id: "log", name: "bulky_log", arguments: { lines: 20_000 } },
        { id: "image", name: "bulky_snapshot", arguments: {} },
      ],
    },
    { content: "done" },
  ]);
  opened.push(yard, server);
  const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "scripted", apiKey: "test-key" });
  const agent = new Agent({ model, host: yard, ...agentOptions });
  const result = await agent.run("Show me the orders, the log and a snapshot.");
  expect(result.answer).toBe("done");
  const request = server.requests[1] as ReceivedRequest;
  const toolMessage = (id: string): string => {
    const message = request.messages.find((m) => m.role === "tool" && m.tool_call_id === id);
    return (message as { content: string }).content;
  };
  return { toolMessage };
}

/** The JSON a shaped tool message carries: its last line, after the anchor and the note. */
function jsonOf(message: string): unknown {
  return JSON.parse(message.split("\n").at(-1)!);
}

describe("tool results the model receives", () => {
  it("stay valid JSON when a structured result is too big, and say what was left out", async () => {
    const { toolMessage } = await run();
    const message = toolMessage("structured");
    const [anchor, note] = message.split("\n");
    expect(anchor).toBe("[tool bulky_orders → ok]");
    expect(note).toMatch(
      /^\[JSON shaped to fit: long arrays keep their first [\d,]+ items \([\d,]+ items left out\)/,
    );
    const value = jsonOf(message) as { total: number; orders: unknown[] };
    expect(value.total).toBe(2_000);
    expect(value.orders[0]).toMatchObject({ id: "ORD-000001", customer: "张伟" });
    expect(value.orders.at(-1)).toMatch(/^… [\d,]+ more items \(2,000 in all\)$/);
    // The structured content is shown once: its pretty-printed text duplicate is not.
    expect(message).not.toContain('\n  "total"');
    expect(message.length).toBeLessThan(40_000);

    const text = toolMessage("json_text");
    expect((jsonOf(text) as { orders: unknown[] }).orders.at(-1)).toMatch(/\(3,000 in all\)$/);

    const log = toolMessage("log");
    expect(log).toContain("\nline 1: 服务正常 status=ok\n");
    expect(log).toContain("\nline 20000: 服务正常 status=ok");
    expect(log).toMatch(/\n\[… [\d,]+ of 528,893 characters left out here; .+\]\n/);

    const image = toolMessage("image");
    expect(image).toBe(
      "[tool bulky_snapshot → ok]\n[image image/png, 30,000 bytes, not shown]\nsnapshot of the dashboard",
    );
  });

  it("keep to resultBudgetChars, in characters, when the agent is given one", async () => {
    const { toolMessage } = await run({ resultBudgetChars: 3_000 });
    for (const id of ["structured", "json_text", "log"]) {
      const body = toolMessage(id).slice(toolMessage(id).indexOf("\n") + 1);
      expect(body.length, id).toBeLessThanOrEqual(3_000);
    }
    expect((jsonOf(toolMessage("structured")) as { orders: unknown[] }).orders.at(-1)).toMatch(
      /\(2,000 in all\)$/,
    );
  });
});
