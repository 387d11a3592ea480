import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../src/store/sqlite-engine.js";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ReceivedRequest } from "../../src/testing/openai-server.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { runCli } from "../helpers.js";
import { asked, booking } from "./booking.js";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function fleetWithModel(script: Script<ReceivedRequest>, store = false) {
  const model = await startScriptedOpenAIServer(script);
  servers.push(model);
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-plan-cmd-"));
  const log = path.join(dir, "calls.jsonl");
  const config = path.join(dir, "fleet.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { b: booking(log) },
      model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" },
      store: store ? { path: path.join(dir, "runs.db") } : false,
    }),
  );
  return { model, config, log, db: path.join(dir, "runs.db") };
}

const PLAN = [
  "```yaml",
  "steps:",
  "  - id: hotel",
  "    tool: b_book",
  "    args: { item: hotel }",
  "  - id: pay",
  "    tool: b_charge",
  '    args: { amount: 10, ref: "{{steps.hotel.structured.bookingId}}" }',
  "```",
].join("\n");

describe("switchyard plan", () => {
  it("asks the model for a plan over the catalog, checks it and prints it; nothing runs", async () => {
    const { config, model, log } = await fleetWithModel([{ content: PLAN }]);
    const { code, stdout } = await runCli(["--config", config, "plan", "Book a hotel and pay for it"]);
    expect(code).toBe(0);
    expect(stdout).toContain("tool: b_charge");
    expect(stdout).not.toContain("```");
    const prompt = JSON.stringify(model.requests[0]!.messages);
    expect(prompt).toContain("b_book");
    expect(prompt).toContain("Book a hotel and pay for it");
    expect(prompt).toContain("steps.<id>");
    expect(asked(log)).toEqual([]);
  });

  it("--run runs the plan it printed", async () => {
    const { config, log } = await fleetWithModel([{ content: PLAN }]);
    const { code, stdout } = await runCli(["--config", config, "--json", "plan", "--run", "Book and pay"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.ok).toBe(true);
    expect(result.steps.map((s: { id: string }) => s.id)).toEqual(["hotel", "pay"]);
    expect(asked(log).map((c) => c.tool)).toEqual(["book", "charge"]);
  });

  it("feeds a plan's problems back once, then refuses naming them; nothing runs", async () => {
    const bad = "steps:\n  - id: a\n    tool: b_teleport\n";
    const { config, model, log } = await fleetWithModel([{ content: bad }, { content: bad }]);
    const { code, stderr } = await runCli(["--config", config, "plan", "--run", "Teleport"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /the model's plan is not valid .*step a uses tool b_teleport, which is not in the catalog/,
    );
    expect(JSON.stringify(model.requests[1]!.messages)).toContain("b_teleport, which is not in the catalog");
    expect(asked(log)).toEqual([]);
  });

  it("--input gives the model the inputs' names and the run their values; --model names the model", async () => {
    const plan = "steps:\n  - { id: hotel, tool: b_book, args: { item: '{{input.item}}' } }\n";
    const { config, model, log } = await fleetWithModel([{ content: plan }]);
    const args = ["--config", config, "--json", "plan", "Book it", "--run", "--input", "item=suite"];
    const { code, stdout, stderr } = await runCli([...args, "--model", "planner-2"]);
    expect(code, stderr).toBe(0);
    expect(model.requests[0]!.model).toBe("planner-2");
    const prompt = JSON.stringify(model.requests[0]!.messages);
    expect(prompt).toContain("{{input.<name>}}");
    expect(prompt).toContain('item: \\"suite\\"');
    expect(JSON.parse(stdout).ok).toBe(true);
    expect(asked(log)).toEqual([{ tool: "book", args: { item: "suite" } }]);
  });

  it("an --input the model's plan does not read is fed back to it as the plan's problem", async () => {
    const literal = "steps:\n  - { id: hotel, tool: b_book, args: { item: suite } }\n";
    const { config, model } = await fleetWithModel([{ content: literal }, { content: literal }]);
    const { code, stderr } = await runCli(["--config", config, "plan", "Book it", "--input", "item=suite"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/the model's plan is not valid .*item/);
    expect(model.requests).toHaveLength(2);
  });

  it("keeps each step's output in the store through the redactor, as a call's result is recorded", async () => {
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}`;
    const plan = "steps:\n  - { id: hotel, tool: b_book, args: { item: '{{input.item}}' } }\n";
    const { config, db } = await fleetWithModel([{ content: plan }], true);
    const run = await runCli([
      "--config",
      config,
      "--json",
      "plan",
      "Book it",
      "--run",
      "--input",
      `item=${token}`,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain(token);
    const sqlite = openSqlite(db, { readonly: true });
    const rows = sqlite.prepare("SELECT * FROM plan_steps").all() as Array<Record<string, unknown>>;
    sqlite.close();
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(token);
    expect(stored).toContain("[REDACTED]");
  });
});
