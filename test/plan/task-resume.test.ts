import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type StoredCall } from "../../src/index.js";
import { CLI, type HttpServer, NODE, ROOT, runCli, startHttpServer } from "../helpers.js";

/**
 * A plan run killed while a step's tool call runs as a task (2026-07-28, the tasks extension) and then
 * resumed (`switchyard run --resume`): the task's id is in the store while it runs, and the resumed run
 * picks the task up on the server instead of calling the tool again. The task server runs over
 * Streamable HTTP as the test's own process, so it outlives the CLI processes. Each test starts the CLI
 * twice (and opens the store many times): on a loaded machine that takes longer than the default 30 s.
 */

const TASK_SERVER = `${ROOT}test/fixtures/tasks-server-2026.mjs`;

const started: Array<HttpServer | ChildProcess> = [];
afterEach(async () => {
  for (const each of started.splice(0)) {
    if ("close" in each) await each.close();
    else if (each.exitCode === null && each.signalCode === null) each.kill("SIGKILL");
  }
});

interface Seen {
  created: Array<{ taskId: string; name: string }>;
  taskHeaders: Array<{ method: string; taskId: string }>;
}

/** A plain tool of the task server, called over HTTP outside Switchyard (its `seen`, `release`, `forget`). */
async function serverTool(url: string, name: string): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } }),
  });
  const data = /^data: (.*)$/m.exec(await response.text())?.[1];
  return (JSON.parse(data!) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
}

const seen = async (url: string): Promise<Seen> => JSON.parse(await serverTool(url, "seen"));

/** The task server, a config with it and a store in a temp folder, and the plan's file. */
async function setUp(plan: Record<string, unknown>) {
  const server = await startHttpServer(NODE, [TASK_SERVER, "--port", "0"]);
  started.push(server);
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-task-resume-"));
  const db = path.join(dir, "runs.db");
  const config = path.join(dir, "fleet.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { jobs: { url: server.url } }, store: { path: db } }));
  const planFile = path.join(dir, "plan.json");
  writeFileSync(planFile, JSON.stringify(plan));
  return { url: server.url, db, config, planFile };
}

/** The plan run's calls as the store has them, once every step given has a task id there. */
async function tasksRecorded(db: string, steps: string[]): Promise<{ runId: string; calls: StoredCall[] }> {
  for (let tries = 0; ; tries++) {
    const store = await openStore({ path: db }).catch(() => undefined);
    if (store) {
      try {
        const [summary] = await store.runs({ limit: 1 });
        const run = summary ? await store.run(summary.id) : undefined;
        const calls = run?.calls ?? [];
        if (run && steps.every((id) => calls.some((call) => call.id === id && call.taskId !== undefined)))
          return { runId: run.id, calls };
      } finally {
        await store.close();
      }
    }
    if (tries > 250) throw new Error(`no task ids for ${steps.join(", ")} in ${db}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `switchyard run` as a process the test can kill. */
function startRun(config: string, planFile: string): ChildProcess {
  const child = spawn(NODE, [CLI, "--config", config, "--json", "run", planFile], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "ignore"],
  });
  started.push(child);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null)
    throw new Error("the run ended before it was killed");
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

describe("switchyard run --resume of a step whose call had become a task", () => {
  it("finds the task's id in the store while it runs, and picks the same task up: one task, its result", async () => {
    const { url, db, config, planFile } = await setUp({
      steps: [{ id: "render", tool: "jobs_render" }],
      outputs: { rendered: "{{steps.render.text}}" },
    });
    const first = startRun(config, planFile);
    const { runId, calls } = await tasksRecorded(db, ["render"]);
    const [created] = (await seen(url)).created;
    // Written when the server created the task, not when the call ended: the call has no outcome yet.
    expect(calls[0]).toMatchObject({ id: "render", server: "jobs", tool: "render", taskId: created!.taskId });
    expect(calls[0]!.ok).toBeUndefined();
    await kill(first);

    const lookups = (await seen(url)).taskHeaders.length;
    const resumed = runCli(["--config", config, "--json", "run", planFile, "--resume", runId]);
    // Let the task end only once the resumed run follows it.
    for (let tries = 0; (await seen(url)).taskHeaders.length === lookups; tries++) {
      if (tries > 250) throw new Error("the resumed run never asked for the task");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await serverTool(url, "release");
    const second = await resumed;
    expect(second.code, second.stderr).toBe(0);
    const result = JSON.parse(second.stdout);
    expect(result).toMatchObject({
      runId,
      ok: true,
      outputs: { rendered: `rendered by ${created!.taskId}` },
    });

    // The server made one task: the tool was not called again.
    const after = await seen(url);
    expect(after.created).toEqual([{ taskId: created!.taskId, name: "render" }]);
    expect(after.taskHeaders.slice(lookups).every((header) => header.taskId === created!.taskId)).toBe(true);
    // The resumed call is recorded with the same task id, finished.
    const store = await openStore({ path: db });
    try {
      const [call] = (await store.run(runId))!.calls;
      expect(call).toMatchObject({ id: "render", ok: true, taskId: created!.taskId });
    } finally {
      await store.close();
    }
  }, 120_000);

  it("calls a read-only tool anew when the server forgot its task, and fails a tool not safe to repeat with TASK_NOT_FOUND", async () => {
    const { url, db, config, planFile } = await setUp({
      steps: [
        { id: "render", tool: "jobs_render" },
        { id: "survey", tool: "jobs_survey" },
      ],
      outputs: { surveyed: "{{steps.survey.text}}" },
    });
    const first = startRun(config, planFile);
    const { runId, calls } = await tasksRecorded(db, ["render", "survey"]);
    await kill(first);
    const taskOf = (id: string) => calls.find((call) => call.id === id)!.taskId!;
    // The tasks expire on the server; new ones complete at once.
    await serverTool(url, "forget");
    await serverTool(url, "release");

    const second = await runCli(["--config", config, "--json", "run", planFile, "--resume", runId]);
    expect(second.code, second.stderr).toBe(1);
    const result = JSON.parse(second.stdout);
    const step = (id: string) => result.steps.find((s: { id: string }) => s.id === id);
    expect(step("render")).toMatchObject({ ok: false, error: { code: "TASK_NOT_FOUND" } });
    const message: string = step("render").error.message;
    expect(message).toContain(`task ${taskOf("render")}`);
    expect(message).toContain("server jobs");
    expect(message).toMatch(/not marked read-only or idempotent, so it was not called again/);
    expect(message).toMatch(/without --resume/);

    // survey reads only: it was called anew, as a new task whose result the step has.
    const created = (await seen(url)).created;
    expect(created.map((task) => task.name).sort()).toEqual(["render", "survey", "survey"]);
    const fresh = created.filter((task) => task.name === "survey").at(-1)!.taskId;
    expect(fresh).not.toBe(taskOf("survey"));
    expect(step("survey")).toMatchObject({ ok: true });
    expect(result.outputs).toEqual({ surveyed: `surveyed by ${fresh}` });
  }, 120_000);
});
