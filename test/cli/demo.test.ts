import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { processesWith, runCli } from "../helpers.js";

const NO_MODEL = { OPENAI_API_KEY: "", OPENAI_BASE_URL: "", SWITCHYARD_MODEL: "" };
/** The demo's own words follow the locale: these tests read the English ones (demo-locale.test.ts: Chinese). */
const ENGLISH = { LANG: "C.UTF-8", LC_ALL: "", LC_MESSAGES: "" };
const dataDir = () => mkdtempSync(path.join(tmpdir(), "switchyard-demo-"));

describe("switchyard demo", () => {
  it("runs the after-sales plan on the example fleet when no model is configured, leaving no process", async () => {
    const data = dataDir();
    const { code, stdout } = await runCli(["demo"], {
      env: { ...NO_MODEL, ...ENGLISH, SWITCHYARD_DATA_DIR: data },
    });
    expect(code).toBe(0);
    for (const server of ["orders", "policies", "environment", "geo", "hasher", "inventory"]) {
      expect(stdout).toMatch(new RegExp(`${server}\\s+ready`));
    }
    expect(stdout).toMatch(/inventory\s+ready\s+stdio\s+2024-11-05/);
    expect(stdout).toMatch(/hasher\s+ready\s+http/);
    expect(stdout).toContain("running the declared plan");
    expect(stdout).toMatch(/最近 7 天共有 \d+ 笔订单。第一笔：/);
    expect(stdout).toContain("相关的售后政策");
    expect(stdout).toMatch(/orders\s+orders\s+query_recent_orders\s+ok\s+\d+ ms/);
    expect(stdout).toMatch(/policy\s+policies\s+search_policy\s+ok/);
    // The orders server is the one whose environment names this test's data folder.
    expect(processesWith(data, "environ")).toEqual([]);
  });

  it("answers with the agent when a model is configured", async () => {
    await using model = await startScriptedOpenAIServer((request, index) => {
      if (index === 0) {
        return {
          toolCalls: [
            { id: "o", name: "orders_query_recent_orders", arguments: { customer_id: "C10001", days: 7 } },
          ],
        };
      }
      if (index === 1) {
        const result = String(request.messages.at(-1)!.content);
        const product = /"product_name":"([^"]+)"/.exec(result)![1]!;
        return { toolCalls: [{ id: "p", name: "policies_search_policy", arguments: { keyword: product } }] };
      }
      return { content: "您最近的订单是无线蓝牙耳机，拆封后非质量问题不支持无理由退货。" };
    });
    const { code, stdout } = await runCli(["demo"], {
      env: {
        ...ENGLISH,
        OPENAI_BASE_URL: model.baseURL,
        SWITCHYARD_MODEL: "scripted",
        OPENAI_API_KEY: "",
        SWITCHYARD_DATA_DIR: dataDir(),
      },
    });
    expect(code).toBe(0);
    expect(stdout).toContain("Answering with the agent (model scripted)");
    expect(stdout).toContain("您最近的订单是无线蓝牙耳机");
    expect(stdout).toMatch(/1\s+orders\s+query_recent_orders\s+ok/);
    expect(stdout).toMatch(/2\s+policies\s+search_policy\s+ok/);
    expect(model.requests[0]!.messages[1]).toMatchObject({
      role: "user",
      content: expect.stringContaining("C10001"),
    });
  });
});
