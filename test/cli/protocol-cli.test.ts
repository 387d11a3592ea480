import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { EVERYTHING, NODE, ROOT, runCli, sdk } from "../helpers.js";

const NEEDY_SERVER = `${ROOT}test/fixtures/needy-server.mjs`;
const models: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(models.splice(0).map((model) => model.close()));
});

function configFile(config: Record<string, unknown>): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-protocol-cli-")), "fleet.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

describe("the CLI and the protocol", () => {
  it('tools lists a tool that must run as a task like any other (no "not offered" mark)', async () => {
    const file = configFile({
      mcpServers: { e: { command: NODE, args: [EVERYTHING, "stdio"], versionNegotiation: "legacy" } },
    });
    const table = await runCli(["--config", file, "tools", "--refresh"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/e_simulate-research-query\s+e\s+Simulates a deep research/);
    expect(table.stdout).not.toContain("not offered");
    const json = await runCli(["--config", file, "--json", "tools", "--refresh"]);
    const tools = JSON.parse(json.stdout) as Array<{ name: string; unsupported?: string }>;
    expect(tools.find((tool) => tool.name === "e_simulate-research-query")).not.toHaveProperty("unsupported");
    expect(tools.find((tool) => tool.name === "e_echo")).not.toHaveProperty("unsupported");
  });

  it("call shows the server's progress reports on stderr, and keeps stdout for the result", async () => {
    const file = configFile({ mcpServers: { n: { command: NODE, args: [NEEDY_SERVER] } } });
    const { code, stdout, stderr } = await runCli(["--config", file, "call", "n_steps", '{"n":3}']);
    expect(code).toBe(0);
    expect(stdout).toBe("3 steps\n");
    expect(stderr).toContain("n_steps: 1/3 (33%) step 1");
    expect(stderr).toContain("n_steps: 3/3 (100%) step 3");
  });

  it("an agent that failed prints nothing on stdout as if it were the answer", async () => {
    const model = await startScriptedOpenAIServer([
      { status: 400, body: { error: { message: "bad model name" } } },
    ]);
    models.push(model);
    const file = configFile({
      mcpServers: { s: sdk() },
      model: { baseURL: model.baseURL, name: "nope", apiKey: "k", maxRetries: 0 },
    });
    const { code, stdout, stderr } = await runCli(["--config", file, "ask", "hello?"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/the agent stopped \(error\): .*bad model name/);
  });
});

describe("route --server", () => {
  it("offers the best tools of the named servers only, as the agent ranks them; an unknown one exits 2", async () => {
    const file = configFile({ mcpServers: { a: sdk("--tools", "echo,add"), b: sdk("--tools", "echo,add") } });
    const all = await runCli(["--config", file, "--json", "route", "add two numbers"]);
    const servers = (out: string) =>
      (JSON.parse(out) as Array<{ server: string }>).map((tool) => tool.server);
    expect(new Set(servers(all.stdout))).toEqual(new Set(["a", "b"]));
    const onlyB = await runCli(["--config", file, "--json", "route", "add two numbers", "--server", "b"]);
    expect(onlyB.code).toBe(0);
    expect(servers(onlyB.stdout).length).toBeGreaterThan(0);
    expect(new Set(servers(onlyB.stdout))).toEqual(new Set(["b"]));
    const unknown = await runCli(["--config", file, "route", "x", "--server", "c"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/c/);
  });
});
