import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, EVERYTHING, NODE } from "../helpers.js";
import { configFile, stdioClient, textOf } from "./fleet.js";

// `switchyard serve`'s flags, from dist/ (`npm run build` first).

const file = configFile({ mcpServers: { everything: { command: NODE, args: [EVERYTHING] } } });

function serve(...args: string[]) {
  return spawnSync(NODE, [CLI, "--config", file, "serve", ...args], { encoding: "utf8", timeout: 30_000 });
}

describe("switchyard serve", () => {
  it("needs exactly one of --stdio and --http, and says which (exit 2)", () => {
    for (const args of [[], ["--stdio", "--http", "0"]]) {
      const run = serve(...args);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain("serve needs one of --stdio");
    }
    const port = serve("--http", "70000");
    expect(port.status).toBe(2);
    expect(port.stderr).toContain('--http needs a TCP port from 0 to 65535 (got "70000")');
    const wire = spawnSync(NODE, [CLI, "--config", file, "--trace-wire", "-", "serve", "--stdio"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(wire.status).toBe(2);
    expect(wire.stderr).toContain("--trace-wire - writes to stdout, which carries MCP with --stdio");
    const host = serve("--stdio", "--host", "0.0.0.0");
    expect(host.status).toBe(2);
    expect(host.stderr).toContain("--host goes with --http");
    // Every address, no gateway.auth: refused before anything starts (issue 26, item 7).
    const open = serve("--http", "0", "--host", "0.0.0.0");
    expect(open.status).toBe(2);
    expect(open.stderr).toMatch(
      /0\.0\.0\.0, which is not a loopback address, with no gateway\.auth.*--allow-unauthenticated/,
    );
  });

  it("serves a non-loopback address without gateway.auth only when told --allow-unauthenticated, and warns", async () => {
    const child = spawn(
      NODE,
      [CLI, "--config", file, "serve", "--http", "0", "--host", "0.0.0.0", "--allow-unauthenticated"],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    try {
      for (let i = 0; i < 300 && !stderr.includes("serving"); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(stderr).toMatch(
        /warning: 0\.0\.0\.0 is not a loopback address and the config has no gateway\.auth/,
      );
      expect(stderr).toMatch(/serving \d+ tools/);
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("close", resolve));
    }
  }, 60_000);

  it("--print-config prints the hosts' snippets: node, the CLI and the config file by absolute path", () => {
    const run = serve("--stdio", "--print-config");
    expect(run.status).toBe(0);
    const [claude] = run.stdout.split(/^VS Code.*$/m);
    const snippet = JSON.parse(claude!.slice(claude!.indexOf("{"))) as {
      mcpServers: { switchyard: { command: string; args: string[] } };
    };
    expect(snippet.mcpServers.switchyard).toEqual({
      command: NODE,
      args: [CLI, "--config", file, "serve", "--stdio"],
    });
    expect(run.stdout).toContain('"type": "stdio"');
    const http = serve("--http", "8123", "--print-config");
    expect(http.stdout).toContain('"url": "http://127.0.0.1:8123/mcp"');
    expect(http.stdout).toContain('"type": "http"');
    expect(http.stdout).toContain("npx @modelcontextprotocol/inspector --cli http://127.0.0.1:8123/mcp");
  });

  it("--trace-wire <file> records the servers' JSON-RPC messages, as for every command", async () => {
    const trace = path.join(path.dirname(file), "wire.jsonl");
    const { client } = await stdioClient(file, "legacy", { before: ["--trace-wire", trace] });
    try {
      await client.callTool({ name: "everything_echo", arguments: { message: "traced" } });
    } finally {
      await client.close();
    }
    const records = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(
      records.some(
        (record) => record.server === "everything" && JSON.stringify(record.message).includes("traced"),
      ),
    ).toBe(true);
  });

  it("--mode search, or the config's gateway.mode, offers search_tools and call_tool", async () => {
    const { client } = await stdioClient(file, "legacy", { flags: ["--mode", "search"] });
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
        "search_tools",
        "call_tool",
      ]);
      const echo = await client.callTool({
        name: "call_tool",
        arguments: { name: "everything_echo", arguments: { message: "found" } },
      });
      expect(textOf(echo)).toBe("Echo: found");
    } finally {
      await client.close();
    }
    const searching = configFile({
      mcpServers: { everything: { command: NODE, args: [EVERYTHING] } },
      gateway: { mode: "search" },
      routing: { searchResults: 2 },
    });
    const { client: configured } = await stdioClient(searching, "modern");
    try {
      const listed = (await configured.listTools()).tools;
      expect(listed.map((tool) => tool.name)).toEqual(["search_tools", "call_tool"]);
      // routing.searchResults is the default limit, as for the agent's search_tools.
      expect(JSON.stringify(listed[0]!.inputSchema)).toContain("(default 2)");
      const found = await configured.callTool({
        name: "search_tools",
        arguments: { query: "echo a message" },
      });
      expect((found.structuredContent as { tools: unknown[] }).tools).toHaveLength(2);
    } finally {
      await configured.close();
    }
  });
});
