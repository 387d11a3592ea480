import { afterEach, describe, expect, it } from "vitest";
import { Agent, OpenAIChatModel, Switchyard } from "../../src/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT, startHttpServer } from "../helpers.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

describe("a tool call the server rate-limits past its deadline", () => {
  it("tells the model RATE_LIMITED and when to try again", async () => {
    const http = await startHttpServer(NODE, [`${ROOT}test/fixtures/fault-server.mjs`, "--http", "0"]);
    opened.push(http);
    const yard = await Switchyard.connect({
      mcpServers: { h: { url: http.url, transport: "http", timeoutMs: 1_000 } },
    });
    opened.push(yard);
    const model = await startScriptedOpenAIServer([
      {
        toolCalls: [{ id: "busy", name: "h_work", arguments: { id: "x", fault: "limited", retryAfter: 30 } }],
      },
      { content: "It is busy; later." },
    ]);
    opened.push(model);
    const agent = new Agent({
      model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted", apiKey: "test-key" }),
      host: yard,
    });
    const result = await agent.run("Do the work.");
    expect(result.answer).toBe("It is busy; later.");
    expect(result.calls[0]).toMatchObject({ ok: false });
    const told = model.requests[1]!.messages.find((m) => m.role === "tool") as { content: string };
    expect(told.content).toContain("h_work was not run");
    expect(told.content).toMatch(/try again in 30 s \(after \d{4}-/);
    expect(told.content).toMatch(/Do not call it again before 30 s from now/);
  });
});
