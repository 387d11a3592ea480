import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, runCli, sdk } from "../helpers.js";

let dir: string;
let config: string;
const env = () => ({ XDG_CACHE_HOME: path.join(dir, "cache") });

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-usage-"));
  config = path.join(dir, "switchyard.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { clean: sdk() } }));
});

/** Usage mistakes: exit 2 and exactly one line on stderr, nothing on stdout. */
async function usage(args: string[]) {
  const result = await runCli(args, { env: env() });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr.split("\n")).toHaveLength(2); // one line, then the final newline
  return result.stderr;
}

describe("usage errors", () => {
  it("are one line on stderr with what to run, not the whole help (exit 2)", async () => {
    expect(await usage(["toosl"])).toBe(
      'switchyard: unknown command "toosl" (did you mean tools?); run switchyard --help\n',
    );
    expect(await usage(["--jsn", "tools"])).toBe(
      'switchyard: unknown option "--jsn" (did you mean --json?); run switchyard --help\n',
    );
    expect(await usage(["call"])).toBe(
      'switchyard: missing required argument "name"; run switchyard call --help\n',
    );
    expect(await usage(["servers", "--wid"])).toBe(
      'switchyard: unknown option "--wid" (did you mean --wide?); run switchyard servers --help\n',
    );
    expect(await usage(["tools", "extra"])).toMatch(
      /^switchyard: too many arguments for "tools"\. Expected 0 arguments but got 1; run switchyard tools --help\n$/,
    );
    expect(await usage(["--log-level", "loud", "tools"])).toMatch(
      /^switchyard: option "--log-level <level>" argument "loud" is invalid\. Allowed choices are trace, debug, info, warn, error, silent; run switchyard --help\n$/,
    );
  });

  it("--help still prints the help, on stdout, exit 0", async () => {
    const { code, stdout } = await runCli(["tools", "--help"], { env: env() });
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: switchyard tools [options]");
    expect(stdout).toContain("--server <name>");
  });
});

describe("--version", () => {
  it("prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-V"]) {
      const { code, stdout, stderr } = await runCli([flag]);
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    }
  });
});

describe("--trace-wire", () => {
  it("names the flag when its file cannot be written (exit 2)", async () => {
    const missing = path.join(dir, "no-such-folder", "x.jsonl");
    expect(await usage(["--config", config, "--trace-wire", missing, "tools"])).toBe(
      `switchyard: --trace-wire ${missing}: cannot write: ENOENT (the folder ${path.dirname(missing)} does not exist); give a writable file, or - for stdout\n`,
    );
    const folder = path.join(dir, "a-folder");
    mkdirSync(folder, { recursive: true });
    expect(await usage(["--config", config, "--trace-wire", folder, "servers"])).toBe(
      `switchyard: --trace-wire ${folder}: cannot write: EISDIR (it is a folder); give a writable file, or - for stdout\n`,
    );
  });

  it("refuses - together with --json: both would write to stdout (exit 2); alone, - is stdout", async () => {
    const message =
      "--trace-wire - cannot be used with --json: both write to stdout; give the trace a file, e.g. --trace-wire trace.jsonl";
    const refused = await runCli(["--config", config, "--json", "--trace-wire", "-", "tools"], {
      env: env(),
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`switchyard: ${message}\n`);
    // Only the error, as every failure under --json.
    expect(JSON.parse(refused.stdout)).toEqual({ error: { code: "USAGE", message } });
    const { code, stdout } = await runCli(
      ["--config", config, "--trace-wire", "-", "call", "clean_echo", '{"text":"hi"}'],
      { env: env() },
    );
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines.at(-1)).toBe("hi");
    for (const line of lines.slice(0, -1)) expect(JSON.parse(line)).toMatchObject({ server: "clean" });
  });
});
