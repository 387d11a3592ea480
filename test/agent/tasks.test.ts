// An agent whose scripted model calls a tool its 2026-07-28 server runs as a task (issue 28): the task
// is followed to its result, which the model is given; with a store, the run's call row keeps the task id.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, OpenAIChatModel, openStore, Switchyard, type WireRecord } from "../../src/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT } from "../helpers.js";

const TASK_SERVER = `${ROOT}test/fixtures/tasks-server-2026.mjs`;

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

describe("an agent calling a tool that runs as a task", () => {
  it("gets the task's result to the model, and the run's record keeps the task id", async () => {
    const store = await openStore({
      path: path.join(mkdtempSync(path.join(tmpdir(), "switchyard-agent-task-")), "s.db"),
    });
    const wire: WireRecord[] = [];
    const yard = await Switchyard.connect(
      { mcpServers: { jobs: { command: NODE, args: [TASK_SERVER] } } },
      { store, wireTrace: (record) => wire.push(record) },
    );
    const model = await startScriptedOpenAIServer([
      {
        content: "Crunching.",
        toolCalls: [{ id: "c1", name: "jobs_crunch", arguments: { steps: 2, ms: 300 } }],
      },
      { content: "Done: crunched." },
    ]);
    opened.push(yard, model, store);
    const agent = new Agent({
      model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted" }),
      host: yard,
    });

    const result = await agent.run("Crunch two steps.");

    expect(result).toMatchObject({ stopReason: "answer", answer: "Done: crunched." });
    expect(result.calls).toEqual([expect.objectContaining({ id: "c1", ok: true })]);
    // The model was given the task's final result.
    expect(JSON.stringify(model.requests[1])).toContain("crunched 2");
    const taskIds = wire.flatMap((record) => {
      const answer = (record.message as { result?: { resultType?: string; taskId?: string } }).result;
      return record.direction === "from-server" && answer?.resultType === "task" ? [answer.taskId] : [];
    });
    expect(taskIds).toHaveLength(1);
    expect(wire.some((record) => (record.message as { method?: string }).method === "tasks/get")).toBe(true);
    const run = await store.run(result.record.id);
    expect(run!.calls).toEqual([expect.objectContaining({ id: "c1", taskId: taskIds[0] })]);
  });
});
