import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { budgetFor } from "../../src/context/budget.js";
import { SUMMARY_HEADING } from "../../src/context/compact.js";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { expectPaired, MODEL, requestTokens } from "../agent/received-requests.js";
import { CLI, NODE, ROOT, raw } from "../helpers.js";

// Runs the built CLI (`npm run build` first).

const models: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(models.splice(0).map((model) => model.close()));
});

const TURNS = 200;
const WINDOW = 4_000;

describe("switchyard chat over a long conversation", () => {
  it(`keeps every request of a ${TURNS}-turn chat within the model's window, compacting the oldest turns`, async () => {
    // Each question: one tool call (b_echo), then an answer that names the turn.
    const model = await startScriptedOpenAIServer((request) => {
      const last = request.messages.at(-1)!;
      const turn = /Question (\d+)/.exec(
        String([...request.messages].reverse().find((m) => m.role === "user")!.content),
      )?.[1];
      if (last.role === "user")
        return {
          toolCalls: [
            {
              id: `t${turn}`,
              name: "b_echo",
              arguments: { text: `facts about topic ${turn}: ${"data ".repeat(20)}` },
            },
          ],
        };
      return { content: `Answer ${turn}: topic ${turn} is covered.` };
    });
    models.push(model);
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-chat-compaction-"));
    const config = path.join(dir, "fleet.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { b: raw() },
        model: { baseURL: model.baseURL, name: MODEL, apiKey: "k", contextWindow: WINDOW },
      }),
    );
    const child = spawn(NODE, [CLI, "--config", config, "chat"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, SWITCHYARD_CHAT_HISTORY: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const lines = Array.from({ length: TURNS }, (_, i) => `Question ${i + 1}: tell me about topic ${i + 1}.`);
    child.stdin.end(`${lines.join("\n")}\n`);
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code, stderr.slice(-2_000)).toBe(0);

    expect(model.requests).toHaveLength(TURNS * 2);
    expect(stdout).toContain(`Answer ${TURNS}: topic ${TURNS} is covered.`);
    const budget = budgetFor(WINDOW);
    let compacted = 0;
    let peak = 0;
    for (const [index, request] of model.requests.entries()) {
      expectPaired(request);
      const tokens = requestTokens(request);
      peak = Math.max(peak, tokens);
      expect(tokens, `request ${index + 1}`).toBeLessThanOrEqual(budget.request);
      if (String(request.messages[0]!.content).includes(SUMMARY_HEADING)) compacted += 1;
    }
    console.info(
      `chat, ${TURNS} turns: peak request ${peak} tokens for ${budget.request} (a ${WINDOW}-token window less ${budget.answer} for the answer); ${compacted} of ${model.requests.length} requests carried a summary`,
    );
    // Without compaction, the last request would hold all 200 turns (far past the window).
    expect(compacted).toBeGreaterThan(TURNS);
    const last = model.requests.at(-1)!;
    expect(last.messages.at(-3)).toMatchObject({ role: "user", content: lines.at(-1) });
    // The summary remembers older turns; the recent ones are whole.
    expect(String(last.messages[0]!.content)).toMatch(/- user: Question 1\d\d: tell me about topic/);
    expect(
      last.messages.some((m) => m.content === `Answer ${TURNS - 1}: topic ${TURNS - 1} is covered.`),
    ).toBe(true);
  }, 120_000);
});
