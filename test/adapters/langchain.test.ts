import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { AIMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { langchainTools, toolSelectorFor } from "../../src/adapters/langchain.js";
import type { Switchyard, SwitchyardEvent } from "../../src/index.js";
import { type ReceivedRequest, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT } from "../helpers.js";
import { exampleFleet } from "./fleet.js";

let yard: Switchyard;
const events: SwitchyardEvent[] = [];

beforeAll(async () => {
  yard = await exampleFleet();
  yard.observe((event) => events.push(event));
}, 60_000);

afterAll(async () => {
  await yard?.close();
});

/** Run examples/langgraph.mjs (the built package, as a user's script) against a scripted model. */
async function runExample(baseURL: string) {
  try {
    const { stdout } = await promisify(execFile)(NODE, [path.join(ROOT, "examples/langgraph.mjs")], {
      cwd: ROOT,
      env: {
        ...process.env,
        OPENAI_BASE_URL: baseURL,
        OPENAI_API_KEY: "",
        SWITCHYARD_MODEL: "scripted",
        SWITCHYARD_DATA_DIR: mkdtempSync(path.join(tmpdir(), "switchyard-langgraph-")),
      },
      timeout: 60_000,
    });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

const toolResults = (request: ReceivedRequest) =>
  request.messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id);

describe("switchyard/langchain", () => {
  it("runs seed 000's StateGraph (examples/langgraph.mjs) over the example fleet with ChatOpenAI", async () => {
    await using model = await startScriptedOpenAIServer((request, index) => {
      if (index === 0)
        return {
          toolCalls: [
            { id: "o", name: "orders_query_recent_orders", arguments: { customer_id: "C10001", days: 7 } },
          ],
        };
      if (index === 1) {
        const product =
          /\\"product_name\\":\\"([^"\\]+)/.exec(JSON.stringify(request.messages))?.[1] ?? "耳机";
        return { toolCalls: [{ id: "p", name: "policies_search_policy", arguments: { keyword: product } }] };
      }
      return { content: "最近一笔是无线蓝牙耳机，签收 7 天内可申请退货。" };
    });
    const { code, stdout } = await runExample(model.baseURL);
    expect(stdout).toContain("← policies_search_policy success");
    expect(code).toBe(0);
    expect(stdout).toContain('→ orders_query_recent_orders {"customer_id":"C10001","days":7}');
    expect(stdout).toContain("→ policies_search_policy");
    expect(stdout).toContain("最近一笔是无线蓝牙耳机");
    expect(model.requests).toHaveLength(3);
    // The catalog went to the model as JSON Schema; each tool result came back under its call's id.
    const orders = model.requests[0]!.tools!.find((t) => t.function.name === "orders_query_recent_orders");
    expect(orders!.function.parameters).toMatchObject({
      properties: { customer_id: { pattern: "^C\\d{5}$" } },
    });
    expect(toolResults(model.requests[2]!)).toEqual(["o", "p"]);
    const policy = model.requests[2]!.messages.at(-1)!;
    expect(String(policy.content)).toMatch(/^\[tool policies_search_policy → ok\]/);
  });

  it("ends the graph at the max-steps router when the model keeps asking for tools", async () => {
    await using model = await startScriptedOpenAIServer((_request, index) => ({
      toolCalls: [{ id: `h${index}`, name: "hasher_hash_text", arguments: { text: `round ${index}` } }],
    }));
    const { code } = await runExample(model.baseURL);
    expect(code).toBe(0);
    // Five rounds of tools, then the sixth answer ends the graph.
    expect(model.requests).toHaveLength(6);
  });

  it("runs parallel tool calls in LangGraph's ToolNode through the pipeline, paired by tool_call_id", async () => {
    events.length = 0;
    const node = new ToolNode(langchainTools(yard));
    const { messages } = (await node.invoke({
      messages: [
        new HumanMessage("附近适合户外跑步吗？"),
        new AIMessage({
          content: "",
          tool_calls: [
            { id: "env", name: "environment_get_environment_status", args: { area_code: "SH-PD" } },
            { id: "geo", name: "geo_simulate_geolocation", args: { lat: 31.23, lng: 121.5 } },
          ],
        }),
      ],
    })) as { messages: ToolMessage[] };
    expect(messages.map((m) => [m.tool_call_id, m.status])).toEqual([
      ["env", "success"],
      ["geo", "success"],
    ]);
    expect(String(messages[0]!.content)).toMatch(/^\[tool environment_get_environment_status → ok\].*AQI/s);
    const finished = events.flatMap((e) => (e.type === "call_finished" ? [[e.id, e.server, e.ok]] : []));
    expect(finished).toEqual(
      expect.arrayContaining([
        ["env", "environment", true],
        ["geo", "geo", true],
      ]),
    );
  });

  it("turns Switchyard's errors into error ToolMessages with the agent's words, and throws them when invoked directly", async () => {
    const tools = langchainTools(yard, {
      names: ["inventory_check_stock", "environment_get_environment_status"],
    });
    expect(tools.map((t) => t.name).sort()).toEqual([
      "environment_get_environment_status",
      "inventory_check_stock",
    ]);
    const node = new ToolNode(tools);
    const { messages } = (await node.invoke({
      messages: [
        new AIMessage({
          content: "",
          tool_calls: [{ id: "sku", name: "inventory_check_stock", args: { sku: "SKU-0000" } }],
        }),
      ],
    })) as { messages: ToolMessage[] };
    expect(messages[0]).toMatchObject({ tool_call_id: "sku", status: "error" });
    expect(String(messages[0]!.content)).toMatch(/^\[tool inventory_check_stock → error\].*SKU-1001/s);
    // Invoked directly (no tool call to answer), the failure is thrown, coded.
    const stock = tools.find((t) => t.name === "inventory_check_stock")!;
    await expect(stock.invoke({ sku: "SKU-0000" })).rejects.toMatchObject({
      code: "TOOL_ERROR",
      message: expect.stringContaining("SKU-1001"),
    });
    // LangChain checks the arguments against the JSON Schema first: what it refuses is never called.
    events.length = 0;
    const env = tools.find((t) => t.name === "environment_get_environment_status")!;
    await expect(env.invoke({ area_code: "XX-YY" })).rejects.toThrow(
      /did not match expected schema.*area_code/s,
    );
    expect(events.filter((e) => e.type === "call_started")).toEqual([]);
  });

  it("selects the routed tools for a conversation as LangChain tools", async () => {
    const selectTools = toolSelectorFor(yard, { router: { topK: 2, offerAllUpTo: 0 } });
    const picked = await selectTools([new HumanMessage("北京朝阳现在的空气质量 AQI 和 PM2.5 怎么样？")]);
    expect(picked.length).toBeLessThanOrEqual(2);
    expect(picked.map((t) => t.name)).toContain("environment_get_environment_status");
    expect(picked.map((t) => t.name)).not.toContain("orders_query_recent_orders");
    // A tool the conversation already used stays offered.
    const later = await selectTools([
      new HumanMessage("北京朝阳现在的空气质量 AQI 和 PM2.5 怎么样？"),
      new AIMessage({
        content: "",
        tool_calls: [{ id: "h", name: "hasher_hash_text", args: { text: "x" } }],
      }),
    ]);
    expect(later.map((t) => t.name)).toContain("hasher_hash_text");
  });
});
