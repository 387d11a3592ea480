import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REWRITE_INSTRUCTIONS } from "../../src/agent/query-rewrite.js";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ReceivedRequest } from "../../src/testing/openai-server.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { CLI, NODE, ROOT, raw, runCli, sdk } from "../helpers.js";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function fleetWithModel(
  script: Script<ReceivedRequest>,
  sections: {
    model?: Record<string, unknown>;
    agent?: Record<string, unknown>;
    routing?: Record<string, unknown>;
  } = {},
) {
  const model = await startScriptedOpenAIServer(script);
  servers.push(model);
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-ask-"));
  const config = path.join(dir, "fleet.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { a: sdk(), b: raw() },
      model: { baseURL: model.baseURL, name: "scripted", apiKey: "k", ...sections.model },
      ...(sections.agent ? { agent: sections.agent } : {}),
      ...(sections.routing ? { routing: sections.routing } : {}),
    }),
  );
  return { model, config, dir };
}

describe("switchyard ask", () => {
  it("prints the answer on stdout and progress on stderr", async () => {
    const { config, model } = await fleetWithModel([
      { toolCalls: [{ id: "1", name: "a_add", arguments: { a: 2, b: 2 } }] },
      { content: "2 + 2 = 4" },
    ]);
    const { code, stdout, stderr } = await runCli(["--config", config, "ask", "What is 2 + 2?"]);
    expect(code).toBe(0);
    expect(stdout).toBe("2 + 2 = 4\n");
    expect(stderr).toContain("step 1: asking the model");
    expect(stderr).toMatch(/ok {3}a_add \d+ ms/);
    expect(model.requests[0]!.model).toBe("scripted");
  });

  it("prints CONTRACT.md's JSON shape with --json, streaming when asked", async () => {
    const { config, model } = await fleetWithModel([
      {
        toolCalls: [
          { id: "1", name: "b_echo", arguments: { text: "x" } },
          { id: "2", name: "a_fail" },
        ],
      },
      { content: "done" },
    ]);
    const { code, stdout } = await runCli(["--config", config, "--json", "ask", "--stream", "Go."]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toEqual({
      runId: expect.stringMatching(/^run_/),
      answer: "done",
      stopReason: "answer",
      steps: 2,
      calls: [
        { name: "b_echo", server: "b", tool: "echo", ok: true, ms: expect.any(Number) },
        {
          name: "a_fail",
          server: "a",
          tool: "fail",
          ok: false,
          ms: expect.any(Number),
          error: { code: "TOOL_ERROR", message: "fail: requested failure" },
        },
      ],
    });
    expect(model.requests[0]!.stream).toBe(true);
  });

  it("exits 1 when the agent stops at --max-steps, saying why", async () => {
    const { config } = await fleetWithModel(() => ({
      toolCalls: [{ name: "b_echo", arguments: { text: "again" } }],
    }));
    const { code, stdout, stderr } = await runCli(["--config", config, "ask", "--max-steps", "2", "Loop."]);
    expect(code).toBe(1);
    // Not an answer: nothing on stdout; why it stopped on stderr.
    expect(stdout).toBe("");
    expect(stderr).toContain("the agent stopped (max_steps)");
    expect(stderr).toContain("Stopped after 2 steps");
  });

  it("exits 2 and says how to configure a model when there is none", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-ask-none-"));
    const config = path.join(dir, "fleet.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { b: raw() } }));
    const { code, stderr } = await runCli(["--config", config, "ask", "Hi"], {
      env: { OPENAI_API_KEY: "", OPENAI_BASE_URL: "", SWITCHYARD_MODEL: "" },
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^switchyard: no model is configured: add a "model" section/);
  });
});

describe("switchyard ask, configured", () => {
  it("with routing.rewrite says the model's tool needs on stderr, once per request, and the answer stays on stdout", async () => {
    const { model, config } = await fleetWithModel(
      (request) =>
        request.messages[0]?.content === REWRITE_INSTRUCTIONS
          ? { content: '["add two numbers"]' }
          : { content: "4" },
      { routing: { mode: "route", offerAllUpTo: 0, rewrite: true }, agent: { nudge: false } },
    );
    const { code, stdout, stderr } = await runCli(["--config", config, "ask", "What is 2 plus 2?"]);
    expect(code).toBe(0);
    expect(stdout).toBe("4\n");
    expect(stderr).toMatch(/tool needs \(model rewrite, \d+ ms\): add two numbers\n/);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.tools!.map((tool) => tool.function.name)).toContain("a_add");
  });

  it("says once that a routing strategy failed, though it is tried again at each step", async () => {
    const { config } = await fleetWithModel(
      [
        { toolCalls: [{ id: "1", name: "a_add", arguments: { a: 2, b: 2 } }] },
        { toolCalls: [{ id: "2", name: "a_add", arguments: { a: 4, b: 4 } }] },
        { content: "8" },
      ],
      {
        // Nothing listens on port 9: the embeddings fail at every step, and lexical ranks alone.
        routing: {
          mode: "route",
          offerAllUpTo: 0,
          strategy: "hybrid",
          embeddings: { baseURL: "http://127.0.0.1:9/v1", model: "m" },
        },
        agent: { nudge: false },
      },
    );
    const { code, stdout, stderr } = await runCli(["--config", config, "ask", "add 2 and 2, then double it"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe("8\n");
    expect(stderr.match(/ranking failed, using the others/g)).toHaveLength(1);
  });

  it("answers with a model section of only contextWindow, the server and name coming from the environment", async () => {
    const model = await startScriptedOpenAIServer([{ content: "from the environment" }]);
    servers.push(model);
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-ask-env-"));
    const config = path.join(dir, "fleet.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { b: raw() }, model: { contextWindow: 32_000 } }));
    const { code, stdout, stderr } = await runCli(["--config", config, "ask", "Hi"], {
      env: {
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: "",
        SWITCHYARD_MODEL: "scripted-from-env",
        XDG_DATA_HOME: path.join(dir, "data"),
        XDG_CACHE_HOME: path.join(dir, "cache"),
        XDG_STATE_HOME: path.join(dir, "state"),
        XDG_CONFIG_HOME: path.join(dir, "config"),
      },
    });
    expect(stderr).not.toContain("no model is configured");
    expect(code).toBe(0);
    expect(stdout).toBe("from the environment\n");
    expect(model.requests[0]!.model).toBe("scripted-from-env");
  });

  it("sends the model section's temperature, and gives up at its timeoutMs", async () => {
    const { config, model } = await fleetWithModel([{ content: "warm" }, { hang: true }], {
      // Long enough for the first answer on a loaded machine (300 ms was not, once), short for the hang.
      model: { temperature: 0.2, timeoutMs: 2_000 },
    });
    const first = await runCli(["--config", config, "ask", "Hi"]);
    expect(first.code).toBe(0);
    expect(model.requests[0]!.temperature).toBe(0.2);
    const started = Date.now();
    const second = await runCli(["--config", config, "ask", "Hi again"]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("did not answer within 2000 ms");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("retries a failing model only model.maxRetries times", async () => {
    const { config, model } = await fleetWithModel(() => ({ status: 503 }), { model: { maxRetries: 0 } });
    const { code, stderr } = await runCli(["--config", config, "ask", "Hi"]);
    expect(code).toBe(1);
    expect(stderr).toContain("503");
    expect(model.requests).toHaveLength(1);
  });

  it("uses agent.systemPrompt, and --system (text or @file) over it", async () => {
    const { config, model, dir } = await fleetWithModel(() => ({ content: "ok" }), {
      agent: { systemPrompt: "You are the config's agent." },
    });
    const system = () => model.requests.at(-1)!.messages[0];
    expect((await runCli(["--config", config, "ask", "Hi"])).code).toBe(0);
    expect(system()).toEqual({ role: "system", content: "You are the config's agent." });
    expect((await runCli(["--config", config, "ask", "--system", "Answer in French.", "Hi"])).code).toBe(0);
    expect(system()).toEqual({ role: "system", content: "Answer in French." });
    const file = path.join(dir, "prompt.txt");
    writeFileSync(file, "Answer in Chinese.\n");
    expect((await runCli(["--config", config, "ask", "--system", `@${file}`, "Hi"])).code).toBe(0);
    expect(system()).toEqual({ role: "system", content: "Answer in Chinese." });
    const missing = await runCli(["--config", config, "ask", "--system", "@nope.txt", "Hi"]);
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("cannot read --system file nope.txt"),
    });
  });
});

describe("switchyard chat", () => {
  it("keeps the conversation across questions", async () => {
    const { config, model } = await fleetWithModel([{ content: "Hello Ann." }, { content: "You are Ann." }]);
    const chat = spawn(NODE, [CLI, "--config", config, "chat"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    chat.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    chat.stdin.end("I am Ann.\nWho am I?\n");
    const code = await new Promise((resolve) => chat.once("close", resolve));
    expect(code).toBe(0);
    expect(stdout).toBe("Hello Ann.\nYou are Ann.\n");
    expect(model.requests[1]!.messages.filter((m) => m.role !== "system").map((m) => m.content)).toEqual([
      "I am Ann.",
      "Hello Ann.",
      "Who am I?",
    ]);
  });
});
