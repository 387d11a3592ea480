import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CLI_CANCEL_WAIT_MS } from "../../src/internal.js";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ReceivedRequest } from "../../src/testing/openai-server.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { CLI, NODE, processesWith, RAW_SERVER, ROOT, SDK_SERVER, waitFor } from "../helpers.js";

// These tests run the built CLI (`npm run build` first).

const models: ScriptedOpenAIServer[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(models.splice(0).map((model) => model.close()));
});

/** The variable each server of a test's fleet carries, so that the test can find what is left of it. */
const MARKER_VAR = "SWITCHYARD_INTERRUPT_MARKER";

/** A fleet of one SDK server (`a_sleep`) marked by `marker`, a scripted model, and a wire trace file. */
async function fleet(script: Script<ReceivedRequest>) {
  const model = await startScriptedOpenAIServer(script);
  models.push(model);
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-interrupt-"));
  const marker = `interrupt-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const config = path.join(dir, "fleet.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { a: { command: NODE, args: [SDK_SERVER], env: { [MARKER_VAR]: marker } } },
      model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" },
    }),
  );
  return { model, config, marker, trace: path.join(dir, "trace.jsonl") };
}

interface WireLine {
  direction: string;
  message: { id?: number | string; method?: string; params?: Record<string, unknown> };
}

function wire(trace: string): WireLine[] {
  if (!existsSync(trace)) return [];
  return readFileSync(trace, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as WireLine);
}

/** The id of the `tools/call` request sent for `tool`, once it is on the wire. */
function callRequestId(trace: string, tool: string): number | string | undefined {
  return wire(trace).find(
    (line) =>
      line.direction === "to-server" &&
      line.message.method === "tools/call" &&
      line.message.params?.name === tool,
  )?.message.id;
}

function start(args: string[], stdin: "ignore" | "pipe" = "ignore") {
  const child = spawn(NODE, [CLI, ...args], { cwd: ROOT, stdio: [stdin, "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** The model asks for one slow call, then (if it is ever asked again) answers. */
const SLOW_CALL: Script<ReceivedRequest> = [
  {
    content: "Let me wait for it.",
    toolCalls: [{ id: "call_slow", name: "a_sleep", arguments: { ms: 30_000 } }],
  },
  { content: "an answer after the interrupt: this request should never be made" },
];

describe("interrupting ask", () => {
  for (const [signal, exitCode] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    it(`${signal} during a tool call cancels the run: no more model requests, the call cancelled on the wire, exit ${exitCode}`, async () => {
      const { model, config, marker, trace } = await fleet(SLOW_CALL);
      const cli = start(["--config", config, "--trace-wire", trace, "ask", "Wait for it."]);
      await waitFor(() => callRequestId(trace, "sleep") !== undefined, 15_000, "the tools/call on the wire");
      expect(processesWith(marker, "environ").length).toBeGreaterThan(0);

      const sent = Date.now();
      cli.child.kill(signal);
      const exit = await cli.exited;
      console.info(`ask: ${signal} → exit after ${exit.at - sent} ms`);

      expect(exit.code).toBe(exitCode);
      expect(exit.at - sent).toBeLessThan(2_500);
      expect(model.requests).toHaveLength(1);
      const id = callRequestId(trace, "sleep");
      const cancelled = wire(trace).filter(
        (line) => line.direction === "to-server" && line.message.method === "notifications/cancelled",
      );
      expect(cancelled.map((line) => line.message.params?.requestId)).toEqual([id]);
      expect(cli.stderr()).toContain(`switchyard: interrupted (${signal})`);
      expect(cli.stderr()).not.toContain("SERVER_UNAVAILABLE");
      expect(cli.stdout()).toBe("");
      await waitFor(() => processesWith(marker, "environ").length === 0, 5_000, "no server process left");
    });
  }

  it("prints the cancelled run with --json: stopReason cancelled, the call CANCELLED", async () => {
    const { model, config, trace } = await fleet(SLOW_CALL);
    const cli = start(["--config", config, "--json", "--trace-wire", trace, "ask", "Wait for it."]);
    await waitFor(() => callRequestId(trace, "sleep") !== undefined, 15_000, "the tools/call on the wire");
    cli.child.kill("SIGINT");
    const exit = await cli.exited;
    expect(exit.code).toBe(130);
    expect(model.requests).toHaveLength(1);
    expect(JSON.parse(cli.stdout())).toMatchObject({
      answer: "",
      stopReason: "cancelled",
      steps: 1,
      calls: [{ name: "a_sleep", ok: false, error: { code: "CANCELLED" } }],
    });
  });

  it("SIGINT while the servers are still connecting exits at once: nothing ran, nothing to wait for", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-interrupt-"));
    const marker = `interrupt-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const config = path.join(dir, "fleet.json");
    // A server that never answers: the connect would take connectTimeoutMs.
    const silent = { command: NODE, args: [RAW_SERVER, "--silent"], env: { [MARKER_VAR]: marker } };
    writeFileSync(config, JSON.stringify({ mcpServers: { s: silent } }));
    const cli = start(["--config", config, "servers"]);
    await waitFor(() => processesWith(marker, "environ").length > 0, 15_000, "the server process");
    const sent = Date.now();
    cli.child.kill("SIGINT");
    const exit = await cli.exited;
    console.info(`servers: SIGINT while connecting → exit after ${exit.at - sent} ms`);
    expect(exit.code).toBe(130);
    expect(exit.at - sent).toBeLessThan(DEFAULT_CLI_CANCEL_WAIT_MS);
    expect(cli.stdout()).toBe("");
    await waitFor(() => processesWith(marker, "environ").length === 0, 5_000, "no server process left");
  });

  it("SIGINT during a plain call closes at once, as before (call does not wait for its call to stop)", async () => {
    const { config, marker, trace } = await fleet([]);
    const cli = start(["--config", config, "--trace-wire", trace, "call", "a_sleep", '{"ms":30000}']);
    await waitFor(() => callRequestId(trace, "sleep") !== undefined, 15_000, "the tools/call on the wire");
    const sent = Date.now();
    cli.child.kill("SIGINT");
    const exit = await cli.exited;
    console.info(`call: SIGINT → exit after ${exit.at - sent} ms`);
    expect(exit.code).toBe(130);
    expect(exit.at - sent).toBeLessThan(DEFAULT_CLI_CANCEL_WAIT_MS);
    await waitFor(() => processesWith(marker, "environ").length === 0, 5_000, "no server process left");
  });

  it("SIGINT while the model is thinking aborts its request and asks for nothing more", async () => {
    const { model, config, marker } = await fleet([{ hang: true }, { content: "never" }]);
    const cli = start(["--config", config, "ask", "Think hard."]);
    await waitFor(() => model.requests.length === 1, 15_000, "the model request");
    const sent = Date.now();
    cli.child.kill("SIGINT");
    const exit = await cli.exited;
    expect(exit.code).toBe(130);
    expect(exit.at - sent).toBeLessThan(2_500);
    expect(model.requests).toHaveLength(1);
    expect(cli.stderr()).toContain("switchyard: interrupted (SIGINT)");
    await waitFor(() => processesWith(marker, "environ").length === 0, 5_000, "no server process left");
  });
});
