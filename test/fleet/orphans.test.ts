import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import {
  CLI,
  isAlive,
  memoryLogger,
  NODE,
  processesWith,
  RAW_SERVER,
  ROOT,
  raw,
  waitFor,
} from "../helpers.js";

/** A fleet config whose servers carry a unique marker, so the test can find every process they start. */
function markedFleet() {
  const marker = `orphan-check-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-orphans-"));
  const file = path.join(dir, "fleet.json");
  const server = (name: string, ...flags: string[]) => ({
    command: NODE,
    args: [RAW_SERVER, "--name", `${marker}-${name}`, "--spawn-child", ...flags],
  });
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        a: { ...server("a"), namespace: false },
        b: server("b", "--ignore-sigterm"),
        c: server("c"),
      },
    }),
  );
  return { marker, file };
}

/** The pids of the grandchildren that raw-server --spawn-child reports on stderr. */
function grandchildren(text: string): number[] {
  return [...text.matchAll(/child pid (\d+)/g)].map((match) => Number(match[1]));
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

describe("no orphan processes", () => {
  it("close() ends every server and everything it started, escalating to SIGKILL when SIGTERM is ignored", async () => {
    const { logger, lines } = memoryLogger();
    const yard = await Switchyard.connect(
      {
        mcpServers: {
          polite: raw("--spawn-child"),
          stubborn: { ...raw("--spawn-child", "--ignore-sigterm") },
        },
      },
      { logger },
    );
    const pids = yard.servers().map((s) => s.pid!);
    await waitFor(
      () =>
        grandchildren(
          lines()
            .map((l) => l.msg)
            .join("\n"),
        ).length === 2,
      5_000,
      "grandchildren",
    );
    const all = [
      ...pids,
      ...grandchildren(
        lines()
          .map((l) => l.msg)
          .join("\n"),
      ),
    ];
    expect(all.every(isAlive)).toBe(true);
    await yard.close();
    await waitFor(() => all.every((pid) => !isAlive(pid)), 5_000, "every process to end");
  });

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`the CLI ends every server when it gets ${signal}`, async () => {
      const { marker, file } = markedFleet();
      const cli = spawn(
        NODE,
        // `sleep` names no server (a has no namespace): `call` starts the whole fleet to find it.
        [CLI, "--config", file, "--log-level", "debug", "call", "sleep", '{"ms":60000}'],
        {
          cwd: ROOT,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      cli.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      await waitFor(() => processesWith(marker).length === 6, 10_000, "servers and their children");
      await waitFor(() => /connected/.test(stderr), 5_000, "the fleet to connect");
      const all = processesWith(marker);
      cli.kill(signal);
      expect(await exited(cli)).toBe(signal === "SIGINT" ? 130 : 143);
      await waitFor(() => all.every((pid) => !isAlive(pid)), 5_000, "every server process to end");
    });
  }

  for (const how of ["throw", "reject"]) {
    it(`a host that dies from an uncaught error (${how}) takes its servers with it`, async () => {
      const { marker, file } = markedFleet();
      const host = spawn(NODE, [path.join(ROOT, "test/fixtures/crash-host.mjs"), file, how], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      host.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      await waitFor(() => stdout.includes("]"), 10_000, "the host to connect");
      const serverPids = JSON.parse(stdout) as number[];
      expect(serverPids).toHaveLength(3);
      await waitFor(() => processesWith(marker).length === 6, 5_000, "servers and their children");
      expect(await exited(host)).not.toBe(0);
      await waitFor(() => processesWith(marker).length === 0, 5_000, "the servers to end");
      expect(serverPids.some(isAlive)).toBe(false);
    });
  }
});
