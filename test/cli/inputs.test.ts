import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, NODE, RAW_SERVER, runCli } from "../helpers.js";

let file: string;

beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-inputs-"));
  file = path.join(dir, "mcp.json");
  writeFileSync(
    file,
    JSON.stringify({
      inputs: [{ type: "promptString", id: "server-name", description: "Server name", password: true }],
      servers: { s: { type: "stdio", command: NODE, args: [RAW_SERVER, "--tools", "${input:server-name}"] } },
    }),
  );
});

/** Run the CLI on a pseudo-terminal (util-linux `script`), typing `typed` once it has had time to ask. */
function runOnTerminal(args: string[], typed: string): Promise<{ code: number | null; output: string }> {
  const command = [NODE, CLI, ...args].map((part) => `'${part}'`).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes("Server name: ") && !child.stdin.writableEnded) child.stdin.end(typed);
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output })));
}

describe("${input:id} on the command line", () => {
  it("asks on a terminal, without echoing a password", async () => {
    const { code, output } = await runOnTerminal(["--config", file, "--json", "tools"], "hidden\r");
    expect(code).toBe(0);
    const answered = output.split("Server name: ")[1]!;
    expect(answered.split(/\r?\n/)[0]).toBe("******");
    expect(output).toContain('"name": "s_hidden"');
  });

  it("takes SWITCHYARD_INPUT_<ID> off a terminal, and says to set it when it is missing", async () => {
    const ok = await runCli(["--config", file, "--json", "tools"], {
      env: { SWITCHYARD_INPUT_SERVER_NAME: "from-env" },
    });
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as Array<{ name: string }>).map((tool) => tool.name)).toContain(
      "s_from-env",
    );
    const missing = await runCli(["--config", file, "servers"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'input "server-name" (Server name) has no value: set SWITCHYARD_INPUT_SERVER_NAME',
    );
  });
});
