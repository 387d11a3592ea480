import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isPythonCommand } from "../../src/fleet/python-server.js";
import { Switchyard } from "../../src/index.js";
import { memoryLogger, NODE, ROOT } from "../helpers.js";

// Python is told by the command's name, so a link to node named `python3` is a Python server as far as
// Switchyard can tell, and these tests need no Python on the machine.
const dir = mkdtempSync(join(tmpdir(), "switchyard-python-"));
const PYTHON3 = join(dir, "python3");
symlinkSync(NODE, PYTHON3);
const NODE_NAMED = join(dir, "server-node");
symlinkSync(NODE, NODE_NAMED);
const FIXTURE = `${ROOT}test/fixtures/python-env-server.mjs`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The PYTHONUNBUFFERED each server said it started with, from its stderr. */
async function unbufferedOf(
  servers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>,
) {
  const { logger, lines } = memoryLogger();
  await using yard = await Switchyard.connect({ mcpServers: servers }, { logger });
  expect(yard.servers().map((s) => s.status)).toEqual(Object.keys(servers).map(() => "ready"));
  const said: Record<string, string> = {};
  for (const line of lines()) {
    const match = /^PYTHONUNBUFFERED=(.*)$/.exec(String(line.msg));
    if (match) said[String(line.server)] = match[1]!;
  }
  return said;
}

describe("Python servers", () => {
  it("are told by the command's base name", () => {
    for (const command of [
      "python",
      "python3",
      "python3.12",
      "pythonw",
      "/usr/bin/python3",
      "py",
      "uv",
      "uvx",
    ])
      expect(isPythonCommand(command), command).toBe(true);
    expect(isPythonCommand("pipx")).toBe(true);
    expect(isPythonCommand("C:\\Python312\\python.exe")).toBe(true);
    for (const command of ["node", "npx", "pythonista", "mypython", "uvicorn", "docker", "/opt/py/bin/node"])
      expect(isPythonCommand(command), command).toBe(false);
  });

  it("start with PYTHONUNBUFFERED=1 unless their env says otherwise; other servers do not get it", async () => {
    const said = await unbufferedOf({
      py: { command: PYTHON3, args: [FIXTURE] },
      kept: { command: PYTHON3, args: [FIXTURE], env: { PYTHONUNBUFFERED: "0" } },
      other: { command: NODE_NAMED, args: [FIXTURE] },
    });
    expect(said).toEqual({ py: "1", kept: "0", other: "(unset)" });
  });

  it("whose handshake times out get a hint about buffering and prints to stdout", async () => {
    await using yard = await Switchyard.connect(
      {
        mcpServers: {
          py: { command: PYTHON3, args: [FIXTURE, "--silent"], connectTimeoutMs: 1_000 },
          other: { command: NODE_NAMED, args: [FIXTURE, "--silent"], connectTimeoutMs: 1_000 },
        },
      },
      { logger: memoryLogger().logger },
    );
    const byName = Object.fromEntries(yard.servers().map((s) => [s.name, s]));
    expect(byName.py).toMatchObject({ status: "failed" });
    expect(byName.py!.error).toMatch(/no answer to initialize within 1000 ms.*a Python server/);
    expect(byName.py!.error).toContain("python -u");
    expect(byName.py!.error).toContain("PYTHONUNBUFFERED=1");
    expect(byName.py!.error).toContain("file=sys.stderr");
    expect(byName.other).toMatchObject({ status: "failed" });
    expect(byName.other!.error).toMatch(/no answer to initialize within 1000 ms/);
    expect(byName.other!.error).not.toContain("Python");
  });
});
