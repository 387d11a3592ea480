import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

// The adapters' layer rule, run on a small tree: adapters/ reach servers through the facade only.

const SCRIPT = path.resolve(import.meta.dirname, "../../scripts/check-layers.mjs");
const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function violations(files: Record<string, string>): string[] {
  const root = mkdtempSync(path.join(tmpdir(), "switchyard-adapters-layer-"));
  made.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  const run = spawnSync(process.execPath, [SCRIPT, "--root", root, "--json"], { encoding: "utf8" });
  const found = JSON.parse(run.stdout) as Array<{ rule: string; file: string; line: number; target: string }>;
  return found.map((v) => `${v.rule} ${v.file}:${v.line} → ${v.target}`).sort();
}

describe("the adapters' layer rule", () => {
  it("refuses fleet/, store/, gateway/ and cli/ in adapters/, and lets the facade, calls/ and agent/ through", () => {
    const files: Record<string, string> = {
      "src/adapters/langchain.ts": [
        'import { Fleet } from "../fleet/fleet.js";',
        'import { openStore } from "../store/open.js";',
        'import { createGateway } from "../gateway/index.js";',
        'import { main } from "../cli/main.js";',
        'import type { Switchyard } from "../switchyard.js";',
        'import { runToolCall } from "../agent/run-call.js";',
        'import { validateArguments } from "../calls/validate.js";',
        'import { tool } from "@langchain/core/tools";',
        "",
      ].join("\n"),
    };
    for (const file of [
      "src/fleet/fleet.ts",
      "src/store/open.ts",
      "src/gateway/index.ts",
      "src/cli/main.ts",
      "src/switchyard.ts",
      "src/agent/run-call.ts",
      "src/calls/validate.ts",
    ])
      files[file] = "export {};\n";
    expect(violations(files)).toEqual([
      "adapters-over-the-facade src/adapters/langchain.ts:1 → src/fleet/fleet.ts",
      "adapters-over-the-facade src/adapters/langchain.ts:2 → src/store/open.ts",
      "adapters-over-the-facade src/adapters/langchain.ts:3 → src/gateway/index.ts",
      "adapters-over-the-facade src/adapters/langchain.ts:4 → src/cli/main.ts",
    ]);
  });
});
