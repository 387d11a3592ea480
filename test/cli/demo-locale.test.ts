import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers.js";

const NO_MODEL = { OPENAI_API_KEY: "", OPENAI_BASE_URL: "", SWITCHYARD_MODEL: "" };

describe("switchyard demo in the user's language", () => {
  it("speaks Chinese around the scenario when the locale is Chinese (LC_ALL over LANG)", async () => {
    const data = mkdtempSync(path.join(tmpdir(), "switchyard-demo-zh-"));
    const { code, stdout } = await runCli(["demo"], {
      env: { ...NO_MODEL, LANG: "en_US.UTF-8", LC_ALL: "zh_CN.UTF-8", SWITCHYARD_DATA_DIR: data },
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^服务器\s+状态\s+传输\s+协议\s+工具\s+连接耗时\n/);
    expect(stdout).toMatch(/^orders\s+ready\s+stdio/m);
    expect(stdout).toContain("目录中共有 8 个工具。问题：查一下 C10001 最近 7 天的订单");
    expect(stdout).toContain("未配置模型：运行声明的计划 examples/after-sales.plan.yaml。");
    expect(stdout).not.toContain("No model configured");
    // The scenario itself is the seeds': Chinese in any locale.
    expect(stdout).toMatch(/最近 7 天共有 \d+ 笔订单。第一笔：/);
  });
});
