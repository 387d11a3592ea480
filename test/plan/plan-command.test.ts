import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ReceivedRequest } from "../../src/testing/openai-server.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { runCli } from "../helpers.js";
import { asked, booking } from "./booking.js";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function fleetWithModel(script: Script<ReceivedRequest>) {
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
      store: false,
    }),
  );
  return { model, config, log };
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
});
