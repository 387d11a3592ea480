import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ReceivedRequest } from "../../src/testing/openai-server.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { CLI, NODE, processesWith, ROOT, raw, runCli, SDK_SERVER, waitFor } from "../helpers.js";

// These tests run the built CLI (`npm run build` first).

const models: ScriptedOpenAIServer[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(models.splice(0).map((model) => model.close()));
});

const MARKER_VAR = "SWITCHYARD_CHAT_MARKER";

/** Two servers (`a`: the SDK fixture, 5 tools; `b`: the raw fixture), a scripted model, a wire trace. */
async function fleet(script: Script<ReceivedRequest>, routing?: Record<string, unknown>) {
  const model = await startScriptedOpenAIServer(script);
  models.push(model);
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-chat-"));
  const marker = `chat-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const config = path.join(dir, "fleet.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        a: { command: NODE, args: [SDK_SERVER], env: { [MARKER_VAR]: marker } },
        b: { ...raw(), env: { [MARKER_VAR]: marker } },
      },
      model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" },
      ...(routing ? { routing } : {}),
    }),
  );
  return { model, config, dir, marker, trace: path.join(dir, "trace.jsonl") };
}

/** `switchyard chat` with a stdin the test writes to (and leaves open unless it ends it). */
function chat(args: string[], env: Record<string, string> = {}) {
  const child = spawn(NODE, [CLI, ...args, "chat"], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once("close", (code) => resolve({ code, at: Date.now() })),
  );
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    write: (text: string) => child.stdin!.write(text),
  };
}

/** The user messages of a model request, in order. */
function userMessages(request: ReceivedRequest | undefined): unknown[] {
  return (request?.messages ?? []).filter((m) => m.role === "user").map((m) => m.content);
}

describe("switchyard chat", () => {
  it("leaves at once on /exit, while stdin stays open", async () => {
    const { config, model, marker } = await fleet([]);
    const session = chat(["--config", config]);
    await waitFor(() => session.stderr().includes("/help for commands"), 15_000, "the banner");
    const sent = Date.now();
    session.write("/exit\n"); // stdin is never ended
    const exit = await session.exited;
    console.info(`chat: /exit → exit after ${exit.at - sent} ms`);
    expect(exit.code).toBe(0);
    expect(exit.at - sent).toBeLessThan(3_000);
    expect(model.requests).toHaveLength(0);
    await waitFor(() => processesWith(marker, "environ").length === 0, 5_000, "no server process left");
  });

  it("/quit leaves too", async () => {
    const { config } = await fleet([]);
    const session = chat(["--config", config]);
    session.write("/quit\n");
    expect((await session.exited).code).toBe(0);
  });

  it("opens with a one-line banner on stderr: servers ready/total, tools, model", async () => {
    const { config } = await fleet([]);
    const session = chat(["--config", config]);
    session.child.stdin!.end();
    expect((await session.exited).code).toBe(0);
    expect(session.stderr().split("\n")[0]).toBe(
      "switchyard chat — 2/2 servers, 10 tools, model scripted; /help for commands",
    );
  });

  it("handles slash commands itself: the model is sent only the questions", async () => {
    const { config, model } = await fleet([{ content: "Hello." }]);
    const session = chat(["--config", config]);
    session.child.stdin!.end("/help\n/tools\n/tools add two numbers\n/servers\n/frobnicate\n/history\nHi.\n");
    const exit = await session.exited;
    expect(exit.code).toBe(0);
    expect(model.requests).toHaveLength(1);
    expect(userMessages(model.requests[0])).toEqual(["Hi."]);
    const out = session.stdout();
    // /help lists every command
    for (const command of ["/help", "/tools", "/servers", "/history", "/clear", "/exit", "/quit"])
      expect(out).toContain(command);
    // /tools: the catalog; /tools <request>: what the router would offer for it
    expect(out).toMatch(/TOOL\s+SERVER\s+DESCRIPTION/);
    expect(out).toMatch(/a_sleep\s+a\s+Answer after ms milliseconds/);
    expect(out).toMatch(/offered for "add two numbers": 10 tools/);
    // /servers
    expect(out).toMatch(/a\s+ready\s+stdio/);
    expect(session.stderr()).toContain("unknown command /frobnicate, /help lists them");
    expect(out.trimEnd().endsWith("Hello.")).toBe(true);
  });

  it("/tools says when each question is offered only some of the catalog, and which for a request", async () => {
    const { config, model } = await fleet([], { topK: 3, offerAllUpTo: 5 });
    const session = chat(["--config", config]);
    session.child.stdin!.end("/tools\n/tools add two numbers\n");
    expect((await session.exited).code).toBe(0);
    expect(model.requests).toHaveLength(0);
    expect(session.stderr()).toContain(
      "each question is offered about 3 of these 10; /tools <request> shows which",
    );
    expect(session.stdout()).toMatch(/offered for "add two numbers": 3 tools\nRANK\s+TOOL\s+SERVER\s+SCORE/);
    expect(session.stdout()).toMatch(/1\s+[ab]_add\s+[ab]\s+\d/);
  });

  it("/clear forgets the conversation; /history shows it", async () => {
    const { config, model } = await fleet([{ content: "Hello Ann." }, { content: "I do not know." }]);
    const session = chat(["--config", config]);
    session.child.stdin!.end("I am Ann.\n/history\n/clear\n/history\nWho am I?\n");
    expect((await session.exited).code).toBe(0);
    expect(model.requests).toHaveLength(2);
    expect(userMessages(model.requests[1])).toEqual(["Who am I?"]);
    expect(session.stdout()).toContain("user: I am Ann.\nassistant: Hello Ann.\n");
    expect(session.stderr()).toContain("the conversation is empty");
  });

  it("sends //text to the model as /text", async () => {
    const { config, model } = await fleet([{ content: "A path." }]);
    const session = chat(["--config", config]);
    session.child.stdin!.end("//etc/hosts: what is it?\n");
    expect((await session.exited).code).toBe(0);
    expect(userMessages(model.requests[0])).toEqual(["/etc/hosts: what is it?"]);
  });

  it("shows the model's text that comes with its tool calls before the calls run", async () => {
    const { config } = await fleet([
      { content: "Let me add those.", toolCalls: [{ id: "1", name: "a_add", arguments: { a: 2, b: 2 } }] },
      { content: "4" },
    ]);
    const session = chat(["--config", config]);
    session.child.stdin!.end("2 + 2?\n");
    expect((await session.exited).code).toBe(0);
    const stderr = session.stderr();
    expect(stderr).toContain("Let me add those.");
    expect(stderr.indexOf("Let me add those.")).toBeLessThan(stderr.search(/ok {3}a_add/));
    expect(session.stdout()).toBe("4\n");
  });

  it("ask shows that text too", async () => {
    const { config } = await fleet([
      { content: "Adding.", toolCalls: [{ id: "1", name: "a_add", arguments: { a: 1, b: 2 } }] },
      { content: "3" },
    ]);
    const { code, stdout, stderr } = await runCli(["--config", config, "ask", "1 + 2?"]);
    expect(code).toBe(0);
    expect(stdout).toBe("3\n");
    expect(stderr).toMatch(/step 1: the model asked for 1 tool call\(s\) \(\d+ ms\)\n {2}model: Adding\.\n/);
  });

  it("Ctrl-C (SIGINT) during a question cancels that question and returns to the prompt", async () => {
    const { config, model, trace, marker } = await fleet([
      { toolCalls: [{ id: "slow", name: "a_sleep", arguments: { ms: 30_000 } }] },
      { content: "Back again." },
    ]);
    const session = chat(["--config", config, "--trace-wire", trace]);
    session.write("Wait for it.\n");
    const onWire = (method: string) =>
      existsSync(trace) && readFileSync(trace, "utf8").includes(`"method":"${method}"`);
    await waitFor(() => onWire("tools/call"), 15_000, "the tools/call on the wire");
    session.child.kill("SIGINT");
    await waitFor(
      () => session.stderr().includes("interrupted: the question was cancelled"),
      3_000,
      "the question to be cancelled",
    );
    expect(onWire("notifications/cancelled")).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(processesWith(marker, "environ").length).toBeGreaterThan(0); // the servers live on

    session.write("Are you there?\n");
    await waitFor(() => session.stdout().includes("Back again."), 5_000, "the next answer");
    expect(model.requests).toHaveLength(2);
    // the cancelled question is not part of the conversation
    expect(userMessages(model.requests[1])).toEqual(["Are you there?"]);
    session.write("/exit\n");
    expect((await session.exited).code).toBe(0);
  });

  it("SIGINT at the prompt leaves, exit 130", async () => {
    const { config, marker } = await fleet([]);
    const session = chat(["--config", config]);
    await waitFor(() => session.stderr().includes("/help for commands"), 15_000, "the banner");
    session.child.kill("SIGINT");
    expect((await session.exited).code).toBe(130);
    await waitFor(() => processesWith(marker, "environ").length === 0, 5_000, "no server process left");
  });
});

const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasScript)("switchyard chat on a terminal", () => {
  /** Run chat under a pseudo-terminal (util-linux `script`); keys are written to it. */
  function onTerminal(config: string, env: Record<string, string>) {
    const command = [NODE, CLI, "--config", config, "chat"].map((part) => `'${part}'`).join(" ");
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    children.push(child);
    let screen = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    return { child, exited, screen: () => screen, keys: (text: string) => child.stdin!.write(text) };
  }

  it("recalls earlier lines with the arrow keys, keeps them in the history file; Ctrl-C cancels a question, drops a typed line, and leaves at an empty prompt", async () => {
    const { config, model, dir } = await fleet([
      { content: "One." },
      { content: "Two." },
      { content: "Three." },
      { toolCalls: [{ id: "slow", name: "a_sleep", arguments: { ms: 30_000 } }] },
    ]);
    const state = path.join(dir, "state");
    const term = onTerminal(config, { XDG_STATE_HOME: state });
    await waitFor(() => term.screen().includes("> "), 15_000, "the prompt");
    term.keys("first question\r");
    await waitFor(() => term.screen().includes("One."), 5_000, "the first answer");
    term.keys("second\r");
    await waitFor(() => term.screen().includes("Two."), 5_000, "the second answer");
    term.keys("\x1b[A\x1b[A\r"); // up, up: the first question again
    await waitFor(() => term.screen().includes("Three."), 5_000, "the third answer");
    expect(userMessages(model.requests[2])).toEqual(["first question", "second", "first question"]);
    term.keys("slow\r");
    await waitFor(() => term.screen().includes("the model asked for 1 tool call"), 5_000, "the slow call");
    term.keys("\x03"); // Ctrl-C during the question
    await waitFor(
      () => term.screen().includes("interrupted: the question was cancelled"),
      3_000,
      "the cancel",
    );
    expect(model.requests).toHaveLength(4);
    term.keys("\x03"); // Ctrl-C at an empty prompt
    expect(await term.exited).toBe(130);
    const history = readFileSync(path.join(state, "switchyard", "chat_history"), "utf8");
    expect(history.split("\n").filter(Boolean)).toEqual(["second", "first question", "slow"]);

    // A new chat starts with that history.
    const again = onTerminal(config, { XDG_STATE_HOME: state });
    await waitFor(() => again.screen().includes("> "), 15_000, "the prompt");
    again.keys("\x1b[A");
    await waitFor(() => again.screen().includes("slow"), 5_000, "the recalled line");
    again.keys("\x03/exit\r"); // Ctrl-C drops the recalled line; the chat goes on
    expect(await again.exited).toBe(0);
    expect(model.requests).toHaveLength(4);
  });
});
