import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { CLI, NODE, ROOT, runCli } from "../helpers.js";

const ASKING_SERVER = `${ROOT}test/fixtures/asking-server.mjs`;
const NEEDY_SERVER = `${ROOT}test/fixtures/needy-server.mjs`;

let dir: string;
let model: ScriptedOpenAIServer;

/** A config file with the asking server on one protocol era (and a model, for sampling). */
function configFile(name: string, versionNegotiation: string): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        a: { command: NODE, args: [ASKING_SERVER], versionNegotiation },
        n: { command: NODE, args: [NEEDY_SERVER], versionNegotiation },
      },
      model: { baseURL: model.baseURL, name: "scripted" },
    }),
  );
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-elicitation-"));
  model = await startScriptedOpenAIServer([{ content: "A short summary." }]);
});
afterAll(async () => {
  await model.close();
});

/**
 * Run the CLI on a pseudo-terminal (util-linux `script`): each time the output shows the next prompt
 * of `answers` (past what was already answered), type its answer.
 */
function runOnTerminal(
  args: string[],
  answers: Array<[prompt: string, typed: string]>,
): Promise<{ code: number | null; output: string }> {
  const command = [NODE, CLI, ...args].map((part) => `'${part}'`).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  let seen = 0;
  let next = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    while (next < answers.length) {
      const [prompt, typed] = answers[next]!;
      const at = output.indexOf(prompt, seen);
      if (at < 0) break;
      seen = at + prompt.length;
      next += 1;
      child.stdin.write(typed);
    }
  });
  const timer = setTimeout(() => child.kill(), 20_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

/** The JSON a tool answered with, from the CLI's output. */
function answered(output: string): Record<string, unknown> {
  const line = output.split(/\r?\n/).find((text) => text.startsWith('{"era"'));
  expect(line, output).toBeDefined();
  return JSON.parse(line!) as Record<string, unknown>;
}

describe("a server that asks the user, without a terminal", () => {
  it.each(["auto", "legacy"])(
    "is declined, said on stderr; the tool's answer is the exit code (%s)",
    async (era) => {
      const file = configFile(`no-tty-${era}`, era);
      const profile = await runCli(["--config", file, "call", "a_profile", "{}"]);
      expect(profile.stderr).toContain(
        "server a asks: Who are you? — declined: no terminal to ask on (stdin is not a TTY)",
      );
      expect(answered(profile.stdout)).toMatchObject({ action: "decline", content: null });
      expect(profile.code).toBe(0); // the tool took the decline as an answer

      const confirm = await runCli(["--config", file, "call", "n_confirm", "{}"]);
      expect(confirm.stderr).toContain("declined: no terminal to ask on");
      expect(confirm.code).toBe(0);

      const sampling = await runCli(["--config", file, "call", "a_summarize", '{"text":"a story"}']);
      expect(sampling.stderr).toContain(
        "server a asks the model: Summarize: a story — declined: no terminal to ask on (stdin is not a TTY)",
      );
      expect(sampling.code).not.toBe(0); // refused sampling fails the call (2026-07-28) or the tool (2025)
      expect(model.requests).toHaveLength(0);
    },
  );
});

describe("a server that asks the user, on a terminal", () => {
  it.each(["auto", "legacy"])(
    "asks field by field, checks each answer, fills in defaults (%s)",
    async (era) => {
      const file = configFile(`tty-${era}`, era);
      const { code, output } = await runOnTerminal(
        ["--config", file, "call", "a_profile", "{}"],
        [
          ["Name — Your name (string, required): ", "\r"], // required: asked again
          ["Name — Your name (string, required): ", "Ada\r"],
          ["age (integer, default 30): ", "200\r"], // above the maximum: asked again
          ["age (integer, default 30): ", "41\r"],
          ["color (red | green | blue, default green): ", "\r"], // the default
          ["newsletter — Send me the newsletter (y/n): ", "y\r"],
          ["send these answers? [Y/n] ", "\r"],
        ],
      );
      expect(output).toContain("server a asks: Who are you?");
      expect(output).toContain("Name is required");
      expect(output).toMatch(/age.*150/);
      expect(answered(output)).toEqual({
        era: era === "auto" ? "modern" : "legacy",
        action: "accept",
        content: { name: "Ada", age: 41, color: "green", newsletter: true },
      });
      expect(code).toBe(0);
    },
  );

  it("a choice by its number, and declining at the end", async () => {
    const file = configFile("tty-decline", "auto");
    const chosen = await runOnTerminal(
      ["--config", file, "call", "a_profile", "{}"],
      [
        ["(string, required): ", "Bo\r"],
        ["(integer, default 30): ", "\r"],
        ["(red | green | blue, default green): ", "1\r"],
        ["(y/n): ", "n\r"],
        ["send these answers? [Y/n] ", "\r"],
      ],
    );
    expect(answered(chosen.output)).toMatchObject({
      action: "accept",
      content: { name: "Bo", age: 30, color: "red", newsletter: false },
    });
    const declined = await runOnTerminal(
      ["--config", file, "call", "a_profile", "{}"],
      [
        ["(string, required): ", "Bo\r"],
        ["(integer, default 30): ", "\r"],
        ["(red | green | blue, default green): ", "\r"],
        ["(y/n): ", "\r"],
        ["send these answers? [Y/n] ", "n\r"],
      ],
    );
    expect(answered(declined.output)).toEqual({ era: "modern", action: "decline", content: null });
  });

  it("URL mode shows the URL and waits for Enter", async () => {
    const file = configFile("tty-url", "auto");
    const { code, output } = await runOnTerminal(
      ["--config", file, "call", "a_visit", "{}"],
      [["press Enter when done (Ctrl-C to cancel) ", "\r"]],
    );
    expect(output).toContain("server a asks: Connect your account");
    expect(output).toContain("open https://example.com/connect");
    expect(answered(output)).toEqual({ era: "modern", action: "accept" });
    expect(code).toBe(0);
  });

  it("sampling is approved with y, and the configured model answers", async () => {
    const file = configFile("tty-sampling", "auto");
    const { code, output } = await runOnTerminal(
      ["--config", file, "call", "a_summarize", '{"text":"a long story"}'],
      [["allow? [y/N] ", "y\r"]],
    );
    expect(output).toContain("server a asks the model (up to 100 tokens): Summarize: a long story");
    expect(answered(output)).toEqual({ era: "modern", model: "scripted", text: "A short summary." });
    expect(code).toBe(0);
    expect(model.requests).toHaveLength(1);
  });
});

describe("ask and chat", () => {
  /** A config whose model calls `tool` once, then says "done". */
  async function agentConfig(
    name: string,
    tool: string,
  ): Promise<{ file: string; agentModel: ScriptedOpenAIServer }> {
    const agentModel = await startScriptedOpenAIServer([
      { toolCalls: [{ id: "1", name: tool, arguments: {} }] },
      { content: "done" },
    ]);
    const file = path.join(dir, `${name}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { a: { command: NODE, args: [ASKING_SERVER] } },
        model: { baseURL: agentModel.baseURL, name: "scripted", apiKey: "k" },
      }),
    );
    return { file, agentModel };
  }

  it("ask: the model's tool call asks the user on the terminal; the answer reaches the model", async () => {
    const { file, agentModel } = await agentConfig("ask", "a_profile");
    try {
      const { code, output } = await runOnTerminal(
        ["--config", file, "ask", "Set up my profile"],
        [
          ["(string, required): ", "Cy\r"],
          ["(integer, default 30): ", "\r"],
          ["(red | green | blue, default green): ", "blue\r"],
          ["(y/n): ", "\r"],
          ["send these answers? [Y/n] ", "y\r"],
        ],
      );
      expect(output).toContain("server a asks: Who are you?");
      expect(code, output).toBe(0);
      const toolMessage = agentModel.requests[1]!.messages.find((message) => message.role === "tool");
      expect(String(toolMessage?.content)).toContain('"content":{"name":"Cy","color":"blue","age":30}');
    } finally {
      await agentModel.close();
    }
  });

  it("chat: a URL request in the middle of a conversation, and the line editor still works after it", async () => {
    const { file, agentModel } = await agentConfig("chat", "a_visit");
    try {
      const { code, output } = await runOnTerminal(
        ["--config", file, "chat"],
        [
          ["> ", "connect me\r"],
          ["press Enter when done (Ctrl-C to cancel) ", "\r"],
          ["done", ""],
          // Ctrl-C on a half-typed line drops the line (a key to the line editor, not a signal), then Ctrl-D ends.
          ["> ", "half a line\u0003"],
          ["^C", ""],
          ["> ", "\u0004"],
        ],
      );
      expect(output).toContain("open https://example.com/connect");
      expect(code, output).toBe(0);
      const toolMessage = agentModel.requests[1]!.messages.find((message) => message.role === "tool");
      expect(String(toolMessage?.content)).toContain('"action":"accept"');
    } finally {
      await agentModel.close();
    }
  });
});
