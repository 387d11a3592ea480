import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderServers } from "../../src/cli/commands/servers.js";
import { Switchyard } from "../../src/index.js";
import { raw, runCli, sdk, waitFor } from "../helpers.js";

const header = (table: string) => table.split("\n")[0]!.split(/\s{2,}/);

describe("the servers table", () => {
  it("shows name, status, transport, protocol, tools, connect time and errors by default; --wide adds the rest", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-servers-"));
    const config = path.join(dir, "switchyard.config.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { clean: sdk(), missing: { command: "switchyard-no-such-command" } } }),
    );
    const env = { XDG_CACHE_HOME: path.join(dir, "cache") };
    const plain = await runCli(["--config", config, "servers"], { env });
    expect(plain.code).toBe(1);
    expect(header(plain.stdout)).toEqual([
      "SERVER",
      "STATUS",
      "TRANSPORT",
      "PROTOCOL",
      "TOOLS",
      "CONNECT",
      "ERROR",
    ]);
    expect(plain.stdout).toMatch(/^missing\s+failed\s+stdio\s+-\s+-\s+-\s+command not found/m);

    const wide = await runCli(["--config", config, "servers", "--wide"], { env });
    expect(header(wide.stdout)).toEqual([
      "SERVER",
      "STATUS",
      "TRANSPORT",
      "PROTOCOL",
      "TOOLS",
      "CONNECT",
      "RESTARTS",
      "HEALTH",
      "BREAKER",
      "IN FLIGHT",
      "LIMIT",
      "QUEUED",
      "ERROR",
    ]);
    expect(wide.stdout).toMatch(
      /^clean\s+ready\s+stdio\s+2026-07-28\s+5\s+\d+ ms\s+0\s+unknown\s+closed\s+0\s+8 auto\s+0$/m,
    );

    // --json: every field, for every server (limit and limitMode: where its concurrency limit stands).
    const json = await runCli(["--config", config, "--json", "servers"], { env });
    expect(Object.keys(JSON.parse(json.stdout)[0]).sort()).toEqual(
      [
        "breaker",
        "connectMs",
        "findings",
        "health",
        "inFlight",
        "limit",
        "limitMode",
        "name",
        "prompts",
        "protocolVersion",
        "queued",
        "resources",
        "restarts",
        "status",
        "tasks",
        "tools",
        "transport",
      ].sort(),
    );
  });

  it("shows a resilience column as soon as one server's value says something", async () => {
    const yard = await Switchyard.connect({
      mcpServers: {
        // legacy: ping is refused on the 2026-07-28 revision by the SDK, so health would say "failing"
        pinged: { ...sdk(), health: { intervalMs: 50 }, versionNegotiation: "legacy" },
        crashy: { ...raw(), restart: { backoffMs: 10 } },
      },
    });
    try {
      expect(header(renderServers(yard.servers()))).toEqual([
        "SERVER",
        "STATUS",
        "TRANSPORT",
        "PROTOCOL",
        "TOOLS",
        "CONNECT",
      ]);
      await yard.callTool("crashy_crash").catch(() => undefined);
      await waitFor(
        () => yard.servers().every((state) => state.status === "ready") && yard.servers()[1]!.restarts === 1,
        10_000,
        "crashy to restart",
      );
      await waitFor(() => yard.servers()[0]!.health === "ok", 5_000, "a health ping");
      const table = renderServers(yard.servers());
      expect(header(table)).toEqual([
        "SERVER",
        "STATUS",
        "TRANSPORT",
        "PROTOCOL",
        "TOOLS",
        "CONNECT",
        "RESTARTS",
        "HEALTH",
      ]);
      expect(table).toMatch(/^crashy\s+ready\s+stdio\s+\S+\s+\d+\s+\d+ ms\s+1\s+unknown$/m);
      expect(table).toMatch(/^pinged\s+ready\s+stdio\s+\S+\s+\d+\s+\d+ ms\s+0\s+ok$/m);
    } finally {
      await yard.close();
    }
  });

  it("prints a line instead of an empty table", () => {
    expect(renderServers([])).toBe("no servers in the config");
  });
});
