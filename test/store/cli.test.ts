// The store through the built CLI (`npm run build` first): a real agent run (scripted model server, the
// SDK fixture server) killed with SIGKILL mid-run, then `runs`, `runs show` and `audit verify`; chat
// sessions resumed with `chat --session`; `audit verify` on a log tampered with; `store: false`.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type RunSummary, type Store } from "../../src/index.js";
import { openSqlite } from "../../src/store/sqlite-engine.js";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ReceivedRequest } from "../../src/testing/openai-server.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { CLI, NODE, ROOT, runCli, SDK_SERVER, waitFor } from "../helpers.js";
import { freshSchema, POSTGRES_SKIP_REASON, POSTGRES_URL } from "./postgres-url.js";

const models: ScriptedOpenAIServer[] = [];
const children: ChildProcess[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(models.splice(0).map((model) => model.close()));
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** A config (the SDK fixture as server `a`, the scripted model) in a temp folder, with its own data folder. */
async function setup(script: Script<ReceivedRequest>, store?: unknown) {
  const model = await startScriptedOpenAIServer(script);
  models.push(model);
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-store-cli-"));
  const config = path.join(dir, "switchyard.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { a: { command: NODE, args: [SDK_SERVER] } },
      model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" },
      ...(store !== undefined ? { store } : {}),
    }),
  );
  // The default store goes to $XDG_DATA_HOME: a folder of this test, never the user's own.
  const env = { XDG_DATA_HOME: path.join(dir, "data"), SWITCHYARD_CHAT_HISTORY: "" };
  const cli = (...args: string[]) => runCli(["--config", config, ...args], { env });
  return { model, dir, config, env, cli };
}

function spawnCli(args: string[], env: Record<string, string>) {
  const child = spawn(NODE, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: "pipe" });
  children.push(child);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  let stdout = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}

/** Poll a store until `check` holds for what it has. */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  for (let tries = 0; tries < 400; tries++) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const STORES: Array<{ name: string; section: () => Promise<unknown>; skip?: string }> = [
  {
    name: "sqlite",
    section: async () => ({
      path: path.join(mkdtempSync(path.join(tmpdir(), "switchyard-store-db-")), "runs.db"),
    }),
  },
  {
    name: "postgres",
    section: async () => ({ url: await freshSchema("switchyard_cli") }),
    ...(POSTGRES_URL ? {} : { skip: POSTGRES_SKIP_REASON }),
  },
];

for (const kind of STORES) {
  describe.skipIf(kind.skip !== undefined)(
    `a run killed with SIGKILL, ${kind.name} store${kind.skip ? ` — SKIPPED: ${kind.skip}` : ""}`,
    () => {
      it("keeps every step and call finished before, shows as interrupted, and the audit chain verifies", async () => {
        // Step 1: two calls; step 2: the model never answers (the run is killed while it waits).
        const { model, dir, config, env, cli } = await setup(
          (_request, index) =>
            index === 0
              ? {
                  content: "Let me look.",
                  toolCalls: [
                    { id: "tc_echo", name: "a_echo", arguments: { text: "first" } },
                    { id: "tc_add", name: "a_add", arguments: { a: 2, b: 3 } },
                  ],
                }
              : { hang: true },
          await kind.section(),
        );
        const store = await openStore(JSON.parse(readFileSync(config, "utf8")).store);
        stores.push(store);
        const asked = spawnCli(["--config", config, "ask", "echo first, then add 2 and 3"], env);
        const [started] = await until(
          () => store.runs(),
          (runs: RunSummary[]) => runs.length === 1 && runs[0]!.stepCount === 2,
          "the run's second step",
        );
        await waitFor(() => model.requests.length === 2, 10_000, "the second model request");
        asked.child.kill("SIGKILL");
        expect(await asked.exited).toBeNull();
        expect(existsSync(dir)).toBe(true);

        const listed = await cli("runs", "--json");
        expect(listed.code).toBe(0);
        const runs = JSON.parse(listed.stdout) as RunSummary[];
        expect(runs).toEqual([
          expect.objectContaining({
            id: started!.id,
            kind: "agent",
            outcome: "interrupted",
            finished: false,
            stepCount: 2,
            callCount: 2,
            input: "echo first, then add 2 and 3",
          }),
        ]);

        const shown = await cli("runs", "show", started!.id);
        expect(shown.code).toBe(0);
        expect(shown.stdout).toContain(`run ${started!.id} (agent): interrupted`);
        expect(shown.stdout).toMatch(/step 1: 5 tools offered/);
        expect(shown.stdout).toMatch(
          /model \(\d+ ms, \d+ tokens in, \d+ out\) asked for 2 tool calls: Let me look\./,
        );
        expect(shown.stdout).toMatch(/ok {4}a_echo {2}a\/echo {2}\d+ ms {2}\{"text":"first"\}/);
        expect(shown.stdout).toMatch(/ok {4}a_add {2}a\/add {2}\d+ ms {2}\{"a":2,"b":3\}/);
        expect(shown.stdout).toContain("step 2: 5 tools offered");
        expect(shown.stdout).toContain("model: no answer (the run stopped while it was asked)");
        expect(shown.stdout).toContain("the run did not finish (interrupted)");

        const json = JSON.parse((await cli("runs", "show", started!.id, "--json")).stdout);
        expect(json.calls.map((call: { id: string; ok: boolean }) => [call.id, call.ok])).toEqual([
          ["tc_echo", true],
          ["tc_add", true],
        ]);

        const verified = await cli("audit", "verify");
        expect(verified.stderr).toBe("");
        expect(verified.code).toBe(0);
        expect(verified.stdout).toMatch(/^audit log ok: \d+ rows?, chain head [0-9a-f]{64} \(row \d+\)/);
        console.info(`SIGKILL ${kind.name}: ${verified.stdout.trim()}`);
      });
    },
  );
}

describe("chat sessions", () => {
  it("prints a new session's id, saves it after each question, and chat --session resumes it", async () => {
    const { model, dir, env, config } = await setup([
      { content: "Noted: your order is C1." },
      { content: "It was C1." },
    ]);
    const first = spawnCli(["--config", config, "chat"], env);
    first.child.stdin!.end("my order is C1\n");
    expect(await first.exited).toBe(0);
    const id = /session (sess_[0-9a-f]+) \(resume it with: switchyard chat --session \1\)/.exec(
      first.stderr(),
    )?.[1];
    expect(id, first.stderr()).toBeDefined();
    // No store section: the default file under $XDG_DATA_HOME.
    expect(existsSync(path.join(dir, "data", "switchyard", "switchyard.db"))).toBe(true);

    const second = spawnCli(["--config", config, "chat", "--session", id!], env);
    second.child.stdin!.end("which order was it?\n");
    expect(await second.exited).toBe(0);
    expect(second.stderr()).toContain(`resuming session ${id} (1 turn)`);
    expect(second.stdout()).toContain("It was C1.");
    // The resumed question went to the model with the conversation before it.
    expect(model.requests[1]!.messages.map((m) => [m.role, m.content])).toEqual([
      ["system", expect.any(String)],
      ["user", "my order is C1"],
      ["assistant", "Noted: your order is C1."],
      ["user", "which order was it?"],
    ]);

    const sessions = await runCli(["--config", config, "sessions", "--json"], { env });
    expect(JSON.parse(sessions.stdout)).toEqual([
      expect.objectContaining({ id, turns: 2, title: "my order is C1" }),
    ]);
    const runs = JSON.parse(
      (await runCli(["--config", config, "runs", "--json"], { env })).stdout,
    ) as RunSummary[];
    expect(runs.map((run) => [run.sessionId, run.outcome])).toEqual([
      [id, "answer"],
      [id, "answer"],
    ]);
  });

  it("/clear starts a new session, and the one before stays as it was", async () => {
    const { dir, env, config } = await setup([{ content: "One." }, { content: "Two." }]);
    const chat = spawnCli(["--config", config, "chat"], env);
    chat.child.stdin!.end("first question\n/clear\nsecond question\n");
    expect(await chat.exited).toBe(0);
    const ids = [...chat.stderr().matchAll(/session (sess_[0-9a-f]+) \(resume it/g)].map(
      (match) => match[1]!,
    );
    expect(ids).toHaveLength(2);
    const store = await openStore({ path: path.join(dir, "data", "switchyard", "switchyard.db") });
    stores.push(store);
    const [first, second] = await Promise.all(ids.map((id) => store.session(id)));
    expect(first).toMatchObject({ title: "first question", turns: 1 });
    expect(second).toMatchObject({ title: "second question", turns: 1 });
    expect(JSON.stringify(second!.messages)).not.toContain("first question");
  });

  it("saves a session redacted, like every record", async () => {
    const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
    const { dir, env, config } = await setup([{ content: "Stored." }]);
    const chat = spawnCli(["--config", config, "chat"], env);
    chat.child.stdin!.end(`keep my key ${secret}\n`);
    expect(await chat.exited).toBe(0);
    const id = /session (sess_[0-9a-f]+)/.exec(chat.stderr())![1]!;
    const store = await openStore({ path: path.join(dir, "data", "switchyard", "switchyard.db") });
    stores.push(store);
    const session = await store.session(id);
    expect(session!.messages).toContainEqual({ role: "user", content: "keep my key [REDACTED]" });
    expect(JSON.stringify(session)).not.toContain(secret);
    const [run] = await store.runs();
    expect(JSON.stringify(await store.run(run!.id))).not.toContain(secret);
  });

  it("refuses an unknown session before starting anything, with the closest ids", async () => {
    const { cli } = await setup([{ content: "hi" }]);
    const refused = await cli("chat", "--session", "sess_nothing");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /no chat session sess_nothing in .*switchyard\.db; switchyard sessions lists them/,
    );
  });
});

describe("switchyard audit and runs", () => {
  it("audit verify exits 1 naming the rows tampered with; audit tail prints the last rows", async () => {
    const { dir, cli } = await setup([], { path: "audit.db" });
    const file = path.join(dir, "audit.db");
    const store = await openStore({ path: file });
    for (let n = 1; n <= 4; n++)
      await store.append({
        time: new Date().toISOString(),
        kind: "call",
        identity: { user: "ada", roles: [] },
        server: "a",
        tool: "echo",
        outcome: "ok",
        ms: n,
        runId: "run_x",
      });
    await store.close();
    const tail = await cli("audit", "tail", "-n", "2");
    expect(tail.code).toBe(0);
    expect(tail.stdout.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^ {4}3 {2}\S+ {2}call {6}ada {2}a\/echo {2}ok {2}3 ms {2}run_x$/),
      expect.stringMatching(/^ {4}4 {2}/),
    ]);
    const db = openSqlite(file);
    db.exec('UPDATE audit SET entry = replace(entry, \'"user":"ada"\', \'"user":"eve"\') WHERE seq = 2');
    db.exec("DELETE FROM audit WHERE seq = 3");
    db.close();
    const verified = await cli("audit", "verify");
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain("audit log TAMPERED: 2 problems in 3 rows");
    expect(verified.stdout).toContain("  edited: row 2: its content does not match its hash (edited)");
    expect(verified.stdout).toContain("  deleted: row 3 is missing (deleted)");
    expect(JSON.parse((await cli("audit", "verify", "--json")).stdout)).toMatchObject({
      ok: false,
      problems: [
        { seq: 2, kind: "edited" },
        { seq: 3, kind: "deleted" },
      ],
    });
  });

  it("audit tail --follow prints rows as they are appended, until interrupted", async () => {
    const { dir, config, env } = await setup([], { path: "follow.db" });
    const store = await openStore({ path: path.join(dir, "follow.db") });
    stores.push(store);
    const row = (server: string) => ({
      time: new Date().toISOString(),
      kind: "call" as const,
      server,
      tool: "echo",
      outcome: "ok",
    });
    await store.append(row("early"));
    const tail = spawnCli(["--config", config, "audit", "tail", "--follow"], env);
    await waitFor(() => tail.stdout().includes("early/echo"), 15_000, "the first row");
    await store.append(row("late"));
    await waitFor(() => tail.stdout().includes("late/echo"), 15_000, "the row appended since");
    expect(tail.stdout().trimEnd().split("\n")).toHaveLength(2);
    tail.child.kill("SIGINT");
    expect(await tail.exited).toBe(130);
  });

  it("says so when recording is off, and an unknown run names the closest ids", async () => {
    const off = await setup([], false);
    const refused = await off.cli("runs");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/nothing is recorded: .* says store: false/);
    const on = await setup([]);
    const missing = await on.cli("runs", "show", "run_nope");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no run run_nope in .*switchyard\.db; switchyard runs lists the latest/);
    const bad = await on.cli("runs", "--limit", "0");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--limit must be a whole number above 0 (got "0")');
  });
});
