import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { NODE, runCli, SDK_SERVER } from "../helpers.js";

/**
 * The catalog cache, seen from the outside: which servers a command started is read from its wire
 * trace (a server that never ran sent nothing), and each server's cache file is in
 * $XDG_CACHE_HOME/switchyard/servers.
 */

let dir: string;
let cacheHome: string;
let config: string;
let trace: string;

/** A server entry whose first argument is a file of its own (so its changes can be seen), written once. */
function wrapper(name: string, tools = "echo,add"): { command: string; args: string[] } {
  const file = path.join(dir, `${name}.mjs`);
  if (!existsSync(file)) writeFileSync(file, `import ${JSON.stringify(SDK_SERVER)};\n`);
  return { command: NODE, args: [file, "--name", name, "--tools", tools] };
}

function writeConfig(servers: Record<string, unknown>): void {
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
}

/** Run the CLI on the test's config with a fresh wire trace; `started` lists the servers that ran. */
async function cli(...args: string[]) {
  rmSync(trace, { force: true });
  const result = await runCli(["--config", config, "--trace-wire", trace, ...args], {
    env: { XDG_CACHE_HOME: cacheHome },
  });
  const records = existsSync(trace)
    ? readFileSync(trace, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { server: string })
    : [];
  return { ...result, started: [...new Set(records.map((record) => record.server))].sort() };
}

/** The cache files, one per server (by what starts it). */
function cacheFiles(): string[] {
  const folder = path.join(cacheHome, "switchyard", "servers");
  return readdirSync(folder)
    .filter((file) => file.endsWith(".json"))
    .map((file) => path.join(folder, file));
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-cache-"));
  cacheHome = path.join(dir, "cache");
  config = path.join(dir, "switchyard.config.json");
  trace = path.join(dir, "wire.jsonl");
  writeConfig({ alpha: wrapper("alpha"), beta: wrapper("beta", "echo,lookup") });
});

describe("the catalog cache", () => {
  it("lets tools answer without starting a server, with the same JSON as a live listing", async () => {
    const live = await cli("--json", "tools");
    expect(live.code).toBe(0);
    expect(live.started).toEqual(["alpha", "beta"]);
    expect(cacheFiles()).toHaveLength(2);

    const cached = await cli("--json", "tools");
    expect(cached.code).toBe(0);
    expect(cached.started).toEqual([]);
    expect(JSON.parse(cached.stdout)).toEqual(JSON.parse(live.stdout));
    expect(Object.keys(JSON.parse(cached.stdout)[0]).sort()).toEqual([
      "description",
      "inputSchema",
      "name",
      "server",
      "tool",
    ]);
    // The table too.
    const table = await cli("tools");
    expect(table.started).toEqual([]);
    expect(table.stdout).toMatch(/^beta_lookup\s+beta\s+Generic tool lookup$/m);
  });

  it("lists a server again, alone, when its config or its script changes, on --refresh and when it is old", async () => {
    await cli("tools");
    expect((await cli("tools")).started).toEqual([]);

    writeConfig({ alpha: wrapper("alpha"), beta: wrapper("beta", "echo,lookup,extra") });
    const changed = await cli("--json", "tools");
    expect(changed.started).toEqual(["beta"]);
    expect(JSON.parse(changed.stdout).map((tool: { name: string }) => tool.name)).toContain("beta_extra");
    expect((await cli("tools")).started).toEqual([]);

    // The script is the same text, touched: its modification time is part of the fingerprint.
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(dir, "alpha.mjs"), later, later);
    expect((await cli("tools")).started).toEqual(["alpha"]);
    expect((await cli("tools")).started).toEqual([]);

    expect((await cli("tools", "--refresh")).started).toEqual(["alpha", "beta"]);

    for (const file of cacheFiles()) {
      const written = JSON.parse(readFileSync(file, "utf8")) as { writtenAt: number };
      written.writtenAt -= 25 * 3600 * 1000; // older than the default 24 h
      writeFileSync(file, JSON.stringify(written));
    }
    expect((await cli("tools")).started).toEqual(["alpha", "beta"]);
    expect((await cli("tools")).started).toEqual([]);
  });

  it("names a server's tools with the config as it is now: a new namespace needs no server", async () => {
    await cli("tools");
    writeConfig({ alpha: { ...wrapper("alpha"), namespace: "a" }, beta: wrapper("beta", "echo,lookup") });
    const renamed = await cli("--json", "tools");
    expect(renamed.started).toEqual([]);
    expect(JSON.parse(renamed.stdout).map((tool: { name: string }) => tool.name)).toContain("a_add");
  });

  it("keeps no catalog of a server that fails, so its failure is reported each time", async () => {
    writeConfig({ alpha: wrapper("alpha"), broken: { command: "switchyard-no-such-command" } });
    const first = await cli("tools");
    expect(first).toMatchObject({ code: 0, started: ["alpha"] });
    expect(first.stderr).toContain("server broken failed");
    // alpha's catalog is kept; broken has none: it is tried again, and fails again.
    const second = await cli("tools");
    expect(second).toMatchObject({ code: 0, started: [] });
    expect(second.stderr).toContain("server broken failed");
    expect(second.stdout).toMatch(/^alpha_echo\s/m);
  });

  it("leaves servers live: it always connects (and caches what it saw)", async () => {
    for (let run = 0; run < 2; run += 1) {
      const { code, started, stdout } = await cli("servers");
      expect(code).toBe(0);
      expect(started).toEqual(["alpha", "beta"]);
      expect(stdout).toMatch(/^alpha\s+ready/m);
    }
    expect((await cli("tools")).started).toEqual([]);
  });
});

describe("--server", () => {
  it("lists one server's tools, starting only that server when its names stand alone", async () => {
    const { code, stdout, started } = await cli("--json", "tools", "--server", "beta");
    expect(code).toBe(0);
    expect(started).toEqual(["beta"]);
    expect(JSON.parse(stdout).map((tool: { name: string }) => tool.name)).toEqual([
      "beta_echo",
      "beta_fail",
      "beta_large",
      "beta_lookup",
      "beta_sleep",
    ]);
    // With the cache (written by a full listing), nothing starts.
    await cli("tools");
    const cached = await cli("--json", "tools", "--server", "alpha,beta");
    expect(cached.started).toEqual([]);
    expect(JSON.parse(cached.stdout)).toHaveLength(10);
  });

  it("shows only the named servers, connecting only them", async () => {
    const { code, stdout, started } = await cli("--json", "servers", "--server", "alpha");
    expect(code).toBe(0);
    expect(started).toEqual(["alpha"]);
    expect(JSON.parse(stdout).map((server: { name: string }) => server.name)).toEqual(["alpha"]);
  });

  it("refuses a server the config does not have, with the closest names (exit 2)", async () => {
    const { code, stderr, started } = await cli("tools", "--server", "alpah");
    expect(code).toBe(2);
    expect(stderr).toBe(
      'switchyard: --server alpah: no server named "alpah" in switchyard.config.json (did you mean alpha?); its servers are alpha, beta\n',
    );
    expect(started).toEqual([]);
  });

  it("says so when a server has no tools, instead of an empty table", async () => {
    writeConfig({ alpha: wrapper("alpha"), quiet: { ...wrapper("quiet"), tools: { deny: ["*"] } } });
    const { code, stdout } = await cli("tools", "--server", "quiet");
    expect(code).toBe(0);
    expect(stdout).toBe("no tools on quiet\n");
  });
});

describe("switchyard call", () => {
  it("starts only the tool's server: guessed from the name, then known from the cache", async () => {
    const guessed = await cli("call", "beta_echo", '{"text":"hi"}');
    expect(guessed).toMatchObject({ code: 0, stdout: "hi\n" });
    expect(guessed.started).toEqual(["beta"]);

    await cli("tools");
    const known = await cli("call", "alpha_add", '{"a":2,"b":3}');
    expect(known).toMatchObject({ code: 0, stdout: "5\n" });
    expect(known.started).toEqual(["alpha"]);
  });

  it("starts the whole fleet when names may collide, and for a name no server has", async () => {
    // twin shares alpha's namespace: which of them is alpha_echo only the whole fleet says.
    writeConfig({
      alpha: wrapper("alpha"),
      twin: { ...wrapper("twin"), namespace: "alpha" },
      gamma: wrapper("gamma"),
    });
    // gamma's names are its own: it starts alone.
    const alone = await cli("call", "gamma_echo", '{"text":"g"}');
    expect(alone).toMatchObject({ code: 0, stdout: "g\n" });
    expect(alone.started).toEqual(["gamma"]);
    // The whole fleet settles it: gamma from the catalog cache, the others started.
    const clash = await cli("--json", "call", "alpha_echo", '{"text":"x"}');
    expect(clash.code).toBe(0);
    expect(clash.started).toEqual(["alpha", "twin"]);

    // From the cache the whole fleet's names are settled without starting it: only twin starts.
    const tools = JSON.parse((await cli("--json", "tools")).stdout) as Array<{
      name: string;
      server: string;
    }>;
    const twinEcho = tools.find((tool) => tool.server === "twin" && tool.name.startsWith("alpha_echo_"))!;
    const disambiguated = await cli("call", twinEcho.name, '{"text":"twin"}');
    expect(disambiguated).toMatchObject({ code: 0, stdout: "twin\n" });
    expect(disambiguated.started).toEqual(["twin"]);

    const unknown = await cli("call", "alpha_ech", "{}");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("did you mean alpha_echo");
  });
});
