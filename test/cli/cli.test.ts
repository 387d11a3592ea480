import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { raw, runCli, sdk } from "../helpers.js";

/** The fields of a JSON-RPC message this test looks at. */
interface WireMessage {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
}

let dir: string;
let fleet: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-cli-"));
  // The CLI's catalog cache goes to this test's folder, not the user's ~/.cache (forks: this file's own env).
  process.env.XDG_CACHE_HOME = path.join(dir, "cache");
  fleet = path.join(dir, "switchyard.config.json");
  writeFileSync(
    fleet,
    JSON.stringify({
      mcpServers: {
        clean: sdk(),
        noisy: raw("--noise"),
        twin: { ...raw(), namespace: "clean" },
        old: raw("--protocol", "2024-11-05"),
        missing: { command: "switchyard-no-such-command" },
      },
    }),
  );
});

describe("switchyard servers", () => {
  it("prints CONTRACT.md's JSON shape and exits 1 when a server failed", async () => {
    const { code, stdout } = await runCli(["--config", fleet, "--json", "servers"]);
    expect(code).toBe(1);
    const servers = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(servers.map((s) => s.name)).toEqual(["clean", "noisy", "twin", "old", "missing"]);
    for (const server of servers) {
      expect(Object.keys(server).sort()).toEqual(
        [
          "connectMs",
          "name",
          "protocolVersion",
          "status",
          "tools",
          "transport",
          // resilience counters, an extension (docs/contract.md)
          ...["restarts", "health", "breaker", "inFlight", "limit", "limitMode", "queued"],
          // what else the server holds: resources, prompts, tool calls running as tasks
          ...["resources", "prompts", "tasks"],
          // what the scans found in its tools and instructions (docs/security.md)
          "findings",
          ...(server.error ? ["error"] : []),
        ].sort(),
      );
    }
    expect(servers[3]).toMatchObject({
      status: "ready",
      transport: "stdio",
      protocolVersion: "2024-11-05",
      tools: 5,
    });
    expect(servers[4]).toMatchObject({ status: "failed", protocolVersion: null, tools: 0 });
    expect(servers[4]!.error).toContain("command not found");
  });

  it("prints a table and exits 0 when every server is ready, finding the config in the working directory", async () => {
    const only = mkdtempSync(path.join(tmpdir(), "switchyard-cli-ok-"));
    writeFileSync(
      path.join(only, "switchyard.config.json"),
      JSON.stringify({ mcpServers: { clean: sdk() } }),
    );
    const { code, stdout } = await runCli(["servers"], { cwd: only });
    expect(code).toBe(0);
    // The resilience columns only say something after trouble: test/cli/servers-table.test.ts.
    expect(stdout).toMatch(/^SERVER\s+STATUS\s+TRANSPORT\s+PROTOCOL\s+TOOLS\s+CONNECT\n/);
    expect(stdout).toMatch(/clean\s+ready\s+stdio\s+2026-07-28\s+5\s+\d+ ms/);
  });
});

describe("switchyard tools", () => {
  it("lists unique names for clashing tools, in CONTRACT.md's shape, warning about failed servers", async () => {
    // --refresh: every server runs (none is listed from the catalog cache), and says what it does.
    const { code, stdout, stderr } = await runCli(["--config", fleet, "--json", "tools", "--refresh"]);
    expect(code).toBe(0);
    const tools = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(Object.keys(tools[0]!).sort()).toEqual(["description", "inputSchema", "name", "server", "tool"]);
    const names = tools.map((t) => t.name as string);
    expect(new Set(names).size).toBe(names.length);
    const echoes = tools.filter((t) => t.tool === "echo" && (t.server === "clean" || t.server === "twin"));
    expect(echoes).toHaveLength(2);
    expect(echoes.map((t) => t.name)).toContain("clean_echo");
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(stderr).toContain("server missing failed");
    expect(stderr).toContain("non-JSON-RPC lines on stdout");
  });
});

describe("switchyard call", () => {
  it("prints the result text, or CONTRACT.md's JSON shape", async () => {
    const text = await runCli(["--config", fleet, "call", "clean_echo", '{"text":"hello"}']);
    expect(text).toMatchObject({ code: 0, stdout: "hello\n" });
    const json = await runCli(["--config", fleet, "--json", "call", "clean_add", '{"a":2,"b":"3"}']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      isError: false,
      content: [{ type: "text", text: "5" }],
      structuredContent: { sum: 5 },
      text: "5",
    });
  });

  it("exits 1 on a tool error and 2 on usage errors, with one clear line", async () => {
    const failed = await runCli(["--config", fleet, "call", "clean_fail"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("clean_fail returned an error: fail: requested failure");

    const unknown = await runCli(["--config", fleet, "call", "clean_ech", "{}"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /switchyard: no tool named clean_ech in the catalog; did you mean clean_echo/,
    );

    const badJson = await runCli(["--config", fleet, "call", "clean_echo", "{text:"]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain("arguments must be a JSON object");

    const badArgs = await runCli(["--config", fleet, "call", "clean_echo", '{"txt":"x"}']);
    expect(badArgs.code).toBe(2);
    expect(badArgs.stderr).toContain('missing required field "text"');
  });

  it("exits 1 when the server crashes during the call", async () => {
    const { code, stderr } = await runCli(["--config", fleet, "call", "noisy_crash"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/server noisy went away during the call to crash/);
  });
});

describe("bad config", () => {
  it("exits 2 naming the JSON path of the bad key", async () => {
    const bad = path.join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ mcpServers: { orders: { command: "node", args: "server.js" } } }));
    const { code, stderr } = await runCli(["--config", bad, "servers"]);
    expect(code).toBe(2);
    expect(stderr).toBe("switchyard: bad.json: mcpServers.orders.args: expected an array of strings\n");
  });

  it("exits 2 when no config can be found, saying how to give one", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "switchyard-cli-empty-"));
    const { code, stderr } = await runCli(["tools"], { cwd: empty, env: { SWITCHYARD_CONFIG: "" } });
    expect(code).toBe(2);
    expect(stderr).toContain("pass --config <file>, set SWITCHYARD_CONFIG");
  });
});

describe("--trace-wire", () => {
  it("records every raw JSON-RPC message of every server, both directions", async () => {
    const every = path.join(dir, "servers-wire.jsonl");
    await runCli(["--config", fleet, "--trace-wire", every, "servers"]);
    const started = new Set(
      readFileSync(every, "utf8")
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { server: string }).server),
    );
    for (const name of ["clean", "noisy", "twin", "old"]) expect(started).toContain(name);

    // `call` starts only the server the tool is on (old: no other server's names start with old_).
    const trace = path.join(dir, "wire.jsonl");
    const { code } = await runCli([
      "--config",
      fleet,
      "--trace-wire",
      trace,
      "call",
      "old_echo",
      '{"text":"traced"}',
    ]);
    expect(code).toBe(0);
    const records = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as { server: string; direction: string; time: string; message: WireMessage },
      );
    for (const record of records) {
      // A message that belongs to a call also names it (`callId`).
      expect(
        Object.keys(record)
          .filter((key) => key !== "callId")
          .sort(),
      ).toEqual(["direction", "message", "server", "time"]);
      expect(Number.isNaN(Date.parse(record.time))).toBe(false);
    }
    expect(new Set(records.map((r) => r.server))).toEqual(new Set(["old"]));
    const old = records.filter((r) => r.server === "old");
    // The version probe, the legacy handshake it falls back to, then the call: all on the wire.
    expect(old[0]).toMatchObject({ direction: "to-server", message: { method: "server/discover" } });
    const init = old.find((r) => r.message.method === "initialize")!;
    expect(init.direction).toBe("to-server");
    expect(old.find((r) => r.direction === "from-server" && r.message.id === init.message.id)).toMatchObject({
      message: { result: { protocolVersion: "2024-11-05" } },
    });
    const call = old.find((r) => r.message.method === "tools/call")!;
    // The call goes out with its name and arguments.
    expect(call.message.params).toMatchObject({ name: "echo", arguments: { text: "traced" } });
    expect(
      old.find((r) => r.direction === "from-server" && r.message.id === call.message.id)!.message.result,
    ).toEqual({
      content: [{ type: "text", text: "traced" }],
    });
  });
});
