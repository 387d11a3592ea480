import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli, sdk } from "../helpers.js";

let config: string;
let env: Record<string, string>;

beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-unicode-"));
  config = path.join(dir, "switchyard.config.json");
  env = { XDG_CACHE_HOME: path.join(dir, "cache") };
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        订单: sdk("--tools", "echo"),
        库存服务: sdk("--tools", "echo"),
        "★": sdk("--tools", "echo"),
        plain: sdk("--tools", "echo"),
      },
    }),
  );
});

/** Where each column of each line starts, in display columns (cells are 2+ spaces apart). */
function columnStarts(table: string): number[][] {
  return table.split("\n").map((line) => {
    const starts: number[] = [];
    const cells = /(\S(?:\S| (?! ))*)/g;
    for (let match = cells.exec(line); match; match = cells.exec(line)) {
      starts.push(stringWidth(line.slice(0, match.index)));
    }
    return starts;
  });
}

describe("Unicode server names", () => {
  it("get a readable, model-safe, stable namespace in tool names", async () => {
    const names = async () => {
      const { code, stdout } = await runCli(["--config", config, "--json", "tools", "--refresh"], { env });
      expect(code).toBe(0);
      return (JSON.parse(stdout) as Array<{ name: string; server: string }>).filter((t) =>
        t.name.endsWith("_echo"),
      );
    };
    const first = await names();
    const byServer = Object.fromEntries(first.map((tool) => [tool.server, tool.name]));
    expect(byServer.订单).toBe("DingDan_echo");
    expect(byServer.库存服务).toBe("KuCunFuWu_echo");
    expect(byServer.plain).toBe("plain_echo");
    // Nothing readable in "★": a hash of the name, the same every time.
    expect(byServer["★"]).toMatch(/^s[0-9a-f]{8}_echo$/);
    for (const { name } of first) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(await names()).toEqual(first);

    const call = await runCli(["--config", config, "call", "DingDan_echo", '{"text":"你好"}'], { env });
    expect(call).toMatchObject({ code: 0, stdout: "你好\n" });
  });

  it("keep tables aligned: CJK characters take two columns", async () => {
    const tools = await runCli(["--config", config, "tools"], { env });
    expect(tools.code).toBe(0);
    const rows = columnStarts(tools.stdout.trimEnd());
    expect(rows.length).toBeGreaterThan(4);
    for (const row of rows) expect(row).toEqual(rows[0]);
    expect(tools.stdout).toMatch(/^DingDan_echo\s+订单\s+Echo the text back$/m);

    const servers = await runCli(["--config", config, "servers"], { env });
    expect(servers.code).toBe(0);
    const lines = columnStarts(servers.stdout.trimEnd());
    for (const row of lines) expect(row).toEqual(lines[0]);
  });
});
