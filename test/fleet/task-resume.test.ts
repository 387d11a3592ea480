import { afterEach, describe, expect, it } from "vitest";
import { Switchyard, type WireRecord } from "../../src/index.js";
import { NODE, ROOT } from "../helpers.js";

/**
 * A tool call that picks up a task by its id (`resumeTask`, what `run --resume` gives a step cut short
 * mid-task) on a 2025-11-25 task server (the SDK v1's task runtime) over stdio: `tasks/get` by the id,
 * followed to `tasks/result`, no second task. The 2026-07-28 extension's path, across processes, is
 * test/plan/task-resume.test.ts.
 */

const TASK_SERVER = `${ROOT}test/fixtures/task-server.mjs`;

const opened: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((yard) => yard.close()));
});

async function open(wire: WireRecord[]): Promise<Switchyard> {
  const yard = await Switchyard.connect(
    { mcpServers: { jobs: { command: NODE, args: [TASK_SERVER] } } },
    { wireTrace: (record) => wire.push(record) },
  );
  opened.push(yard);
  expect(yard.servers()[0]).toMatchObject({ status: "ready", protocolVersion: "2025-11-25" });
  return yard;
}

/** The ids of the tasks the server created (its answers to task-augmented tools/call). */
function createdTaskIds(wire: WireRecord[]): string[] {
  return wire.flatMap((record) => {
    const task = (record.message as { result?: { task?: { taskId?: string } } }).result?.task;
    return record.direction === "from-server" && task?.taskId ? [task.taskId] : [];
  });
}

const sent = (wire: WireRecord[], method: string) =>
  wire.filter(
    (record) => record.direction === "to-server" && (record.message as { method?: string }).method === method,
  );

describe("a tool call given resumeTask, on 2025-11-25", () => {
  it("follows that task by its id to its result, and the server creates no second task", async () => {
    const wire: WireRecord[] = [];
    const yard = await open(wire);
    let taskOf: (id: string) => void = () => {};
    const created = new Promise<string>((resolve) => {
      taskOf = resolve;
    });
    const first = yard.request({
      kind: "tool",
      name: "jobs_crunch",
      arguments: { steps: 4, ms: 150 },
      onTask: (id) => taskOf(id),
    });
    const taskId = await created;
    const calls = sent(wire, "tools/call").length;

    const picked = await yard.request({
      kind: "tool",
      name: "jobs_crunch",
      arguments: { steps: 4, ms: 150 },
      resumeTask: { taskId, server: "jobs" },
    });
    expect(picked).toMatchObject({ ok: true, result: { text: "crunched 4" }, record: { taskId } });
    expect(sent(wire, "tools/call")).toHaveLength(calls);
    expect(sent(wire, "tasks/get").some((record) => JSON.stringify(record.message).includes(taskId))).toBe(
      true,
    );
    expect((await first).ok).toBe(true);
    expect(createdTaskIds(wire)).toEqual([taskId]);
  });

  it("fails with TASK_NOT_FOUND, naming the task and its server, when the server does not know it", async () => {
    const wire: WireRecord[] = [];
    const yard = await open(wire);
    const outcome = await yard.request({
      kind: "tool",
      name: "jobs_crunch",
      arguments: { steps: 1, ms: 10 },
      resumeTask: { taskId: "task-gone", server: "jobs" },
    });
    if (outcome.ok) throw new Error("expected the call to fail");
    expect(outcome.error).toMatchObject({ code: "TASK_NOT_FOUND", server: "jobs", tool: "crunch" });
    expect(outcome.error.message).toMatch(/server jobs does not know task task-gone of tool crunch/);
    expect(outcome.error.message).toMatch(/not marked read-only or idempotent, so it was not called again/);
    // Nothing was called: crunch is not safe to repeat.
    expect(sent(wire, "tools/call")).toHaveLength(0);
  });
});
