import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError, EXIT_USAGE, errorCodeOf } from "../../src/cli/exit-codes.js";
import { SwitchyardError } from "../../src/index.js";
import { raw, runCli, sdk } from "../helpers.js";

let dir: string;
/** A fleet of a good server, one that exits during the handshake and one with a tool that crashes it. */
let fleet: string;
/** A config with a key that is not there to be: CONFIG_INVALID. */
let badConfig: string;
/** A config with an unknown server key: a warning, and the config is used. */
let warnedConfig: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-failures-"));
  fleet = path.join(dir, "switchyard.config.json");
  writeFileSync(
    fleet,
    JSON.stringify({
      mcpServers: { good: sdk(), broken: raw("--exit-on-initialize", "3"), crashy: raw() },
    }),
  );
  badConfig = path.join(dir, "bad.json");
  writeFileSync(badConfig, JSON.stringify({ mcpServers: { good: sdk() }, routing: { hintz: [] } }));
  warnedConfig = path.join(dir, "warned.json");
  writeFileSync(warnedConfig, JSON.stringify({ mcpServers: { good: { ...sdk(), colour: "red" } } }));
});

/** How many times `text` holds `part`. */
function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** The CLI with this test's own data, state, cache and config folders. */
function cli(args: string[]) {
  return runCli(args, {
    env: {
      XDG_DATA_HOME: path.join(dir, "data"),
      XDG_STATE_HOME: path.join(dir, "state"),
      XDG_CACHE_HOME: path.join(dir, "cache"),
      XDG_CONFIG_HOME: path.join(dir, "config"),
    },
  });
}

/**
 * Run a command that fails, with `--json`: its exit code is `exit`, stdout holds the error object alone,
 * and stderr's last line says the same message. Returns the error object.
 */
async function jsonFailure(args: string[], exit: number): Promise<{ code: string; message: string }> {
  const { code, stdout, stderr } = await cli(["--json", ...args]);
  expect(code, stderr).toBe(exit);
  const printed = JSON.parse(stdout) as { error: { code: string; message: string } };
  expect(Object.keys(printed)).toEqual(["error"]);
  expect(Object.keys(printed.error).sort()).toEqual(["code", "message"]);
  expect(stderr.trimEnd().split("\n").at(-1)).toBe(`switchyard: ${printed.error.message}`);
  return printed.error;
}

describe("--json on a failed command", () => {
  it("prints USAGE for a usage mistake, with the line stderr has, and exits 2", async () => {
    expect(await jsonFailure(["--bogus", "servers"], 2)).toEqual({
      code: "USAGE",
      message: 'unknown option "--bogus"; run switchyard --help',
    });
    expect(await jsonFailure(["toosl"], 2)).toEqual({
      code: "USAGE",
      message: 'unknown command "toosl" (did you mean tools?); run switchyard --help',
    });
    expect(await jsonFailure(["ask", "hi", "--max-steps", "0"], 2)).toEqual({
      code: "USAGE",
      message: '--max-steps must be a whole number above 0 (got "0")',
    });
    // Nothing but the error: the usage line is the only line on stderr.
    const { stderr } = await cli(["--json", "servers", "--wid"]);
    expect(stderr).toBe(
      'switchyard: unknown option "--wid" (did you mean --wide?); run switchyard servers --help\n',
    );
  });

  it("prints the SwitchyardError's code for a bad config (CONFIG_INVALID, exit 2)", async () => {
    expect(await jsonFailure(["--config", badConfig, "servers"], 2)).toEqual({
      code: "CONFIG_INVALID",
      message: "bad.json: routing.hintz: unknown key (did you mean hints?)",
    });
  });

  it("prints the code of a call that failed: an unknown tool (exit 2), a server that is down or crashed (exit 1)", async () => {
    const unknown = await jsonFailure(["--config", fleet, "call", "good_ecko", "{}"], 2);
    expect(unknown.code).toBe("TOOL_NOT_FOUND");
    expect(unknown.message).toContain("did you mean good_echo");
    const badArgs = await jsonFailure(["--config", fleet, "call", "good_echo", "{text:"], 2);
    expect(badArgs.code).toBe("USAGE");
    const down = await jsonFailure(["--config", fleet, "call", "broken_echo", '{"text":"hi"}'], 1);
    expect(down.code).toBe("SERVER_UNAVAILABLE");
    expect(down.message).toMatch(/^broken_echo: server broken failed: .*exit code 3/);
    const crashed = await jsonFailure(["--config", fleet, "call", "crashy_crash"], 1);
    expect(crashed.code).toBe("SERVER_UNAVAILABLE");
    expect(crashed.message).toContain("server crashy went away during the call to crash");
  });

  it("keeps a command's own JSON result when its work partly failed (exit 1), and prints no error object", async () => {
    const servers = await cli(["--config", fleet, "--json", "servers"]);
    expect(servers.code).toBe(1);
    const states = JSON.parse(servers.stdout) as Array<{ name: string; status: string }>;
    expect(states.map((state) => [state.name, state.status])).toEqual([
      ["good", "ready"],
      ["broken", "failed"],
      ["crashy", "ready"],
    ]);
    const toolError = await cli(["--config", fleet, "--json", "call", "good_fail"]);
    expect(toolError.code).toBe(1);
    expect(JSON.parse(toolError.stdout)).toMatchObject({ isError: true });
  });

  it("names its codes: the SwitchyardError's, else USAGE for what exits 2 and FAILED for the rest", () => {
    expect(errorCodeOf(new SwitchyardError("TOOL_NOT_FOUND", "no tool"))).toBe("TOOL_NOT_FOUND");
    expect(errorCodeOf(new CliError("--limit must be a whole number", EXIT_USAGE))).toBe("USAGE");
    expect(errorCodeOf(new CliError("the login failed"))).toBe("FAILED");
    expect(errorCodeOf(new Error("EACCES"))).toBe("FAILED");
  });
});

describe("each failure said once, on its own line", () => {
  it("servers: a server that failed is in the table, and not said again on stderr", async () => {
    const { code, stdout, stderr } = await cli(["--config", fleet, "servers"]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/broken\s+failed/);
    expect(stderr).toBe("");
    expect(occurrences(stdout + stderr, "fatal: cannot open database")).toBe(1);
  });

  it("call of a tool whose server failed: the command's one line", async () => {
    const { code, stderr } = await cli(["--config", fleet, "call", "broken_echo", '{"text":"hi"}']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^switchyard: broken_echo: server broken failed: .*exit code 3.*\n$/);
    expect(occurrences(stderr, "fatal: cannot open database")).toBe(1);
  });

  it("a command that goes on without a failed server warns once about it", async () => {
    const { code, stdout, stderr } = await cli(["--config", fleet, "tools", "--refresh"]);
    expect(code).toBe(0);
    expect(stdout).toContain("good_echo");
    expect(stderr).toMatch(/^warning: server broken failed and is left out: .*exit code 3.*\n$/);
    expect(occurrences(stderr, "fatal: cannot open database")).toBe(1);
  });

  it("a config's warning once, though call starts the tool's server alone and then the whole fleet", async () => {
    const { code, stderr } = await cli(["--config", warnedConfig, "call", "good_nothing"]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      "warn  config: mcpServers.good.colour: unknown key, ignored\n" +
        "switchyard: no tool named good_nothing in the catalog; list the tools to see what there is\n",
    );
  });

  it("a bad config in chat: one line, not also a warning that the chat is not saved", async () => {
    const { code, stderr } = await cli(["--config", badConfig, "chat"]);
    expect(code).toBe(2);
    expect(stderr).toBe("switchyard: bad.json: routing.hintz: unknown key (did you mean hints?)\n");
  });
});

describe("a server behind a proxy that answers with an HTML error page", () => {
  const proxy = createServer((_req, res) => {
    res.writeHead(502, { "content-type": "text/html" });
    res.end("<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>");
  });
  afterAll(() => new Promise((resolve) => proxy.close(resolve)));

  it("servers --json gives its status and title, whether the version probe or initialize met it", async () => {
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/mcp`;
    const config = path.join(dir, "proxied.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          probed: { url, transport: "http" },
          plain: { url, transport: "http", versionNegotiation: "legacy" },
        },
      }),
    );
    const { code, stdout } = await cli(["--config", config, "--json", "servers"]);
    expect(code).toBe(1);
    const states = JSON.parse(stdout) as Array<{ name: string; error?: string }>;
    for (const state of states) {
      expect(state.error, state.name).toContain('HTTP 502 "502 Bad Gateway" (an HTML page, not MCP)');
      expect(state.error).not.toContain("nginx");
    }
    expect(states.map((state) => state.name)).toEqual(["probed", "plain"]);
  });
});
