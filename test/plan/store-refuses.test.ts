// A plan run whose store refuses every write (a real SQLite store with triggers that RAISE, as a full
// disk would): the process still ends once it is done — nothing of the run (its deadline's timer) holds
// it. Through the built library and the built CLI (`npm run build` first).
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSqlite } from "../../src/store/sqlite-engine.js";
import { NODE, ROOT, runCli, SDK_SERVER } from "../helpers.js";

const PLAN_HOST = `${ROOT}test/fixtures/plan-host.mjs`;

/** A config whose store exists and refuses every insert and update, and a one-step plan. */
async function refusingStore() {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-plan-refused-"));
  const config = path.join(dir, "fleet.json");
  const db = path.join(dir, "runs.db");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { a: { command: NODE, args: [SDK_SERVER] } }, store: { path: db } }),
  );
  const plan = path.join(dir, "plan.yaml");
  writeFileSync(plan, "steps:\n  - { id: first, tool: a_echo, args: { text: first } }\n");
  // The store's schema, written by a command that reads it.
  expect((await runCli(["--config", config, "runs"])).code).toBe(0);
  const sqlite = openSqlite(db);
  const tables = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as Array<{ name: string }>;
  for (const { name } of tables)
    for (const op of ["INSERT", "UPDATE"])
      sqlite.exec(
        `CREATE TRIGGER refuse_${op}_${name} BEFORE ${op} ON ${name} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`,
      );
  sqlite.close();
  return { config, plan };
}

describe("a plan run whose store refuses writes", () => {
  it("runPlan throwing (its checkpointer failed) leaves nothing that keeps the process alive", async () => {
    const { config, plan } = await refusingStore();
    const host = spawn(NODE, [PLAN_HOST, config, plan], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    host.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    // Without its end the test times out: the run's 120 s deadline timer held the process.
    const code = await new Promise<number | null>((resolve) => host.once("close", resolve));
    expect(stdout).toMatch(/^failed cannot write to the store .*database or disk is full\nclosed\n$/);
    expect(code).toBe(0);
  }, 60_000);

  it("switchyard run exits, failing the step with the store's error, and says the run is not resumable", async () => {
    const { config, plan } = await refusingStore();
    const run = await runCli(["--config", config, "run", plan]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /warning: plan run run_\w+ could not be checkpointed at its start \(cannot write to the store .*database or disk is full\); it runs on, but --resume cannot continue it from there/,
    );
    expect(run.stdout).toMatch(/first\s+a\s+echo\s+failed\s+\d+ ms\s+STORE_ERROR/);
    expect(run.stdout).toMatch(
      /first \(a_echo\): STORE_ERROR: the call row of a_echo \(first\) could not be written/,
    );
  }, 60_000);
});
