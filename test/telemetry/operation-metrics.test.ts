import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type Attributes,
  createNoopMeter,
  type Histogram,
  type Meter,
  type MeterProvider,
  type MetricOptions,
  metrics,
} from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, listenHttp } from "../../src/gateway/index.js";
import { Switchyard } from "../../src/index.js";
import { NODE, ROOT } from "../helpers.js";

const TELEMETRY_SERVER = `${ROOT}test/fixtures/telemetry-server.mjs`;
const FAULT_SERVER = `${ROOT}test/fixtures/fault-server.mjs`;

/** One value a histogram recorded. */
interface Recorded {
  name: string;
  unit: string | undefined;
  value: number;
  attributes: Attributes;
}

// An application's meter provider as the API sees it. @opentelemetry/sdk-metrics is not among the
// package's dependencies: this one keeps what the API hands it (the instrument's name, unit, values
// and attributes), which is all Switchyard decides.
const recorded: Recorded[] = [];
const provider: MeterProvider = {
  // The API's no-op meter (one shared object) under a histogram that keeps what it is given.
  getMeter: () =>
    Object.assign(Object.create(createNoopMeter()) as Meter, {
      createHistogram: (name: string, options?: MetricOptions) =>
        ({
          record: (value: number, attributes: Attributes = {}) =>
            void recorded.push({ name, unit: options?.unit, value, attributes }),
        }) as Histogram,
    }),
};

beforeAll(() => {
  metrics.setGlobalMeterProvider(provider);
});
afterAll(() => {
  metrics.disable();
});

describe("mcp.client.operation.duration, when a meter provider is registered", () => {
  it("records each request sent to a server, in seconds, by method and tool, with error.type tool_error for a tool's error", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [TELEMETRY_SERVER] } },
    });
    recorded.length = 0;
    await yard.callTool("t_reveal", { text: "hello" });
    expect((await yard.callTool("t_fail", { text: "no" })).isError).toBe(true);
    await yard.getPrompt("t_greet");

    const client = recorded.filter((entry) => entry.name === "mcp.client.operation.duration");
    expect(client).toHaveLength(3);
    for (const entry of client) {
      expect(entry.unit).toBe("s");
      expect(entry.value).toBeGreaterThan(0);
    }
    expect(client[0]!.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "reveal",
      "gen_ai.operation.name": "execute_tool",
    });
    expect(client[0]!.attributes["error.type"]).toBeUndefined();
    expect(client[1]!.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "fail",
      "error.type": "tool_error",
    });
    expect(client[2]!.attributes).toMatchObject({
      "mcp.method.name": "prompts/get",
      "gen_ai.prompt.name": "greet",
    });
  });

  it("records a failed request with its error's code as error.type", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: { f: { command: NODE, args: [FAULT_SERVER], timeoutMs: 300 } },
    });
    recorded.length = 0;
    await expect(yard.callTool("f_work", { id: "a", fault: "hang" })).rejects.toMatchObject({
      code: "TIMEOUT",
    });
    const client = recorded.filter((entry) => entry.name === "mcp.client.operation.duration");
    expect(client).toHaveLength(1);
    expect(client[0]!.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "work",
      "error.type": "TIMEOUT",
    });
  });
});

describe("mcp.server.operation.duration, when a meter provider is registered", () => {
  it("records each request the gateway answers, with error.type tool_error for a tool's error result", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [TELEMETRY_SERVER] } },
    });
    await using gateway = createGateway(yard);
    await using listener = await listenHttp(gateway, { port: 0 });
    const client = new Client({ name: "metrics-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      recorded.length = 0;
      await client.listTools();
      expect((await client.callTool({ name: "t_fail", arguments: { text: "no" } })).isError).toBe(true);
    } finally {
      await client.close();
    }
    const server = recorded.filter((entry) => entry.name === "mcp.server.operation.duration");
    const call = server.find((entry) => entry.attributes["mcp.method.name"] === "tools/call");
    expect(call?.unit).toBe("s");
    expect(call?.attributes).toMatchObject({
      "gen_ai.tool.name": "t_fail",
      "gen_ai.operation.name": "execute_tool",
      "error.type": "tool_error",
    });
    const list = server.find((entry) => entry.attributes["mcp.method.name"] === "tools/list");
    expect(list?.attributes["error.type"]).toBeUndefined();
  });
});
