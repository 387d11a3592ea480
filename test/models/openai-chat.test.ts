import { createServer } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../src/index.js";
import { toModelParameters } from "../../src/models/tool-schema.js";
import {
  ScriptedModel,
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from "../../src/testing/index.js";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function scripted(...args: Parameters<typeof startScriptedOpenAIServer>) {
  const server = await startScriptedOpenAIServer(...args);
  servers.push(server);
  return server;
}

const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

describe("OpenAIChatModel", () => {
  it("retries 429 and 5xx with backoff, then answers", async () => {
    const server = await scripted([
      { status: 429, headers: { "retry-after": "0" } },
      { status: 503 },
      { content: "finally" },
    ]);
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", retryBaseMs: 10 });
    expect(await model.complete(ask)).toMatchObject({ content: "finally", toolCalls: [] });
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after maxRetries with the status and the server's message", async () => {
    const server = await scripted(() => ({ status: 500, body: { error: { message: "overloaded" } } }));
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", retryBaseMs: 5, maxRetries: 2 });
    await expect(model.complete(ask)).rejects.toMatchObject({
      code: "MODEL_ERROR",
      status: 500,
      message: expect.stringMatching(/model m at http:.*: 500 Internal Server Error: overloaded/),
    });
    expect(server.requests).toHaveLength(3);
  });

  it("reports a 4xx at once with the server's message, without retrying", async () => {
    const server = await scripted([
      { status: 401, body: { error: { message: "Incorrect API key provided" } } },
    ]);
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", apiKey: "wrong" });
    await expect(model.complete(ask)).rejects.toMatchObject({
      code: "MODEL_ERROR",
      status: 401,
      message: expect.stringContaining("401 Unauthorized: Incorrect API key provided"),
    });
    expect(server.requests).toHaveLength(1);
  });

  it("streams text deltas and assembles tool calls from pieces", async () => {
    const server = await scripted([
      { content: "Looking it up", toolCalls: [{ id: "t1", name: "x_find", arguments: { q: "耳机", n: 2 } }] },
    ]);
    const deltas: string[] = [];
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", stream: true });
    const answer = await model.complete({ ...ask, onText: (delta) => deltas.push(delta) });
    expect(answer).toMatchObject({
      content: "Looking it up",
      toolCalls: [{ id: "t1", name: "x_find", arguments: '{"q":"耳机","n":2}' }],
      finishReason: "tool_calls",
    });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Looking it up");
  });

  it("accepts servers that send arguments as an object and omit ids", async () => {
    const http = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          choices: [
            {
              message: {
                role: "assistant",
                content: null,
                tool_calls: [{ function: { name: "f", arguments: { a: 1 } } }],
              },
            },
          ],
        }),
      );
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const port = (http.address() as { port: number }).port;
      const model = new OpenAIChatModel({ baseURL: `http://127.0.0.1:${port}/v1`, model: "m" });
      expect((await model.complete(ask)).toolCalls).toEqual([
        { id: "call_0", name: "f", arguments: '{"a":1}' },
      ]);
    } finally {
      http.close();
    }
  });

  it("says an answer of 200 that is no JSON (a proxy's HTML page) is not the chat API, once, without retrying", async () => {
    let requests = 0;
    const http = createServer((_req, res) => {
      requests += 1;
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html>\n<html><head><title>Sign in\n</title></head><body>…</body></html>");
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const port = (http.address() as { port: number }).port;
      const model = new OpenAIChatModel({
        baseURL: `http://127.0.0.1:${port}/v1`,
        model: "m",
        maxRetries: 2,
      });
      await expect(model.complete(ask)).rejects.toMatchObject({
        code: "MODEL_ERROR",
        message: `model m at http://127.0.0.1:${port}/v1: answered 200 with an HTML page titled "Sign in", not the chat API — check baseURL (it usually ends in /v1)`,
      });
      expect(requests).toBe(1);
    } finally {
      http.close();
    }
  });

  it("sends bearer auth, the model name, tools in OpenAI's shape, and parallel_tool_calls only when off", async () => {
    const server = await scripted([{ content: "ok" }, { content: "ok" }]);
    const model = new OpenAIChatModel({ baseURL: `${server.baseURL}/`, model: "qwen2.5", apiKey: "k" });
    const tools = [{ name: "t", description: "d", parameters: { type: "object", properties: {} } }];
    await model.complete({ ...ask, tools });
    await model.complete({ ...ask, tools, parallelToolCalls: false });
    expect(server.requests[0]).toMatchObject({
      model: "qwen2.5",
      tools: [
        { type: "function", function: { name: "t", description: "d", parameters: { type: "object" } } },
      ],
    });
    expect(server.requests[0]).not.toHaveProperty("parallel_tool_calls");
    expect(server.requests[1]).toMatchObject({ parallel_tool_calls: false });
  });
});

describe("ScriptedModel", () => {
  it("answers from its script and records what it was asked", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "t", arguments: { a: 1 } }] },
      { content: "done" },
    ]);
    expect((await model.complete(ask)).toolCalls[0]).toMatchObject({ name: "t", arguments: '{"a":1}' });
    expect((await model.complete(ask)).content).toBe("done");
    await expect(model.complete(ask)).rejects.toMatchObject({ code: "MODEL_ERROR" });
    expect(model.requests).toHaveLength(3);
  });
});

describe("tool schemas for the model", () => {
  it("inline $refs, read oneOf as anyOf, and keep the original schema untouched", () => {
    const original = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { item: { $ref: "#/$defs/item" }, mode: { oneOf: [{ const: "a" }, { const: "b" }] } },
      required: ["item"],
      $defs: { item: { type: "object", properties: { sku: { type: "string" } } } },
    };
    const copy = structuredClone(original);
    expect(toModelParameters(original)).toEqual({
      type: "object",
      properties: {
        item: { type: "object", properties: { sku: { type: "string" } } },
        mode: { anyOf: [{ const: "a" }, { const: "b" }] },
      },
      required: ["item"],
    });
    expect(original).toEqual(copy);
  });

  it("always give an object with properties, merging top-level combinators", () => {
    expect(toModelParameters({ type: "object" })).toEqual({ type: "object", properties: {} });
    expect(
      toModelParameters({
        anyOf: [
          {
            type: "object",
            properties: { id: { type: "string" }, a: { type: "number" } },
            required: ["id", "a"],
          },
          { type: "object", properties: { id: { type: "string" }, b: { type: "number" } }, required: ["id"] },
        ],
      }),
    ).toEqual({
      type: "object",
      properties: { id: { type: "string" }, a: { type: "number" }, b: { type: "number" } },
      required: ["id"],
    });
  });

  it("cut off recursive references instead of looping", () => {
    const tree = {
      type: "object",
      properties: { node: { $ref: "#/definitions/node" } },
      definitions: { node: { type: "object", properties: { child: { $ref: "#/definitions/node" } } } },
    };
    expect(JSON.stringify(toModelParameters(tree)).length).toBeLessThan(2_000);
  });
});
