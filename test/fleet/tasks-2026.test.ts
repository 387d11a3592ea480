import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, Switchyard, type WireRecord } from "../../src/index.js";
import { failureOf, NODE, ROOT, waitFor } from "../helpers.js";

/**
 * Tool calls that run as tasks on 2026-07-28 (the tasks extension, SEP-2663, through
 * @modelcontextprotocol/ext-tasks), against a real task server over stdio and Streamable HTTP.
 */

const TASK_SERVER = `${ROOT}test/fixtures/tasks-server-2026.mjs`;
const TASKS = "io.modelcontextprotocol/tasks";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((yard) => yard.close()));
});

const transports = {
  stdio: { command: NODE, args: [TASK_SERVER] },
  http: { url: "http://127.0.0.1:{{port}}/mcp", command: NODE, args: [TASK_SERVER, "--port", "{{port}}"] },
};

async function open(
  server: Record<string, unknown>,
  options: {
    wire?: WireRecord[];
    onElicitation?: Parameters<typeof Switchyard.connect>[1] extends infer O
      ? O extends { onElicitation?: infer E }
        ? E
        : never
      : never;
  } = {},
): Promise<Switchyard> {
  const yard = await Switchyard.connect(
    { mcpServers: { jobs: server } },
    {
      ...(options.wire ? { wireTrace: (record: WireRecord) => options.wire!.push(record) } : {}),
      ...(options.onElicitation ? { onElicitation: options.onElicitation } : {}),
    },
  );
  opened.push(yard);
  const [state] = yard.servers();
  expect(state, state!.error).toMatchObject({ status: "ready", protocolVersion: "2026-07-28" });
  return yard;
}

const methodOf = (record: WireRecord) => (record.message as { method?: string }).method ?? "";

/** The methods of the task requests sent to the server, in order. */
function sentMethods(wire: WireRecord[]): string[] {
  return wire
    .filter((record) => record.direction === "to-server")
    .map(methodOf)
    .filter((method) => method === "tools/call" || method.startsWith("tasks/"));
}

/** The ids of the tasks the server created (its answers with resultType "task"). */
function createdTaskIds(wire: WireRecord[]): string[] {
  return wire.flatMap((record) => {
    const result = (record.message as { result?: { resultType?: string; taskId?: string } }).result;
    return record.direction === "from-server" && result?.resultType === "task" && result.taskId
      ? [result.taskId]
      : [];
  });
}

async function seen(
  yard: Switchyard,
): Promise<{ cancelled: string[]; updates: string[]; taskHeaders: Array<Record<string, string>> }> {
  return JSON.parse((await yard.callTool("jobs_seen", {})).text);
}

describe.each(Object.entries(transports))("a task tool on 2026-07-28, over %s", (kind, server) => {
  it("is created, polled at the server's interval and completes, the extension declared per request", async () => {
    const wire: WireRecord[] = [];
    const yard = await open(server, { wire });
    expect(yard.tools().find((tool) => tool.name === "jobs_crunch")?.unsupported).toBeUndefined();
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await yard.callTool(
      "jobs_crunch",
      { steps: 3, ms: 300 },
      { onProgress: (p) => progress.push(p) },
    );
    expect(result).toMatchObject({ isError: false, text: "crunched 3" });
    const methods = sentMethods(wire);
    expect(methods[0]).toBe("tools/call");
    expect(methods.filter((method) => method === "tasks/get").length).toBeGreaterThan(1);
    expect(methods).not.toContain("tasks/cancel");
    const call = wire.find((record) => record.direction === "to-server" && methodOf(record) === "tools/call");
    const meta = (call!.message as { params: { _meta: Record<string, { extensions?: object }> } }).params
      ._meta;
    expect(meta["io.modelcontextprotocol/clientCapabilities"]?.extensions).toHaveProperty([TASKS]);
    expect(createdTaskIds(wire)).toHaveLength(1);
    // Over HTTP, each tasks/* request names its task in Mcp-Name (and its method in Mcp-Method).
    if (kind === "http") {
      const [taskId] = createdTaskIds(wire);
      expect((await seen(yard)).taskHeaders).toContainEqual({ method: "tasks/get", name: taskId, taskId });
    }
    // The task's status messages come as progress (tasks of this extension send no progress of their own).
    // (Polls see the statuses the task is in when they come: under load, not necessarily each step.)
    expect(progress.map((p) => p.message)).toContainEqual(expect.stringMatching(/^step \d of 3$/));
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_p, i) => i + 1));
    expect(yard.servers()[0]!.tasks).toBe(0);
  });

  it("answers the input the task asks for (tasks/update) through the fleet's elicitation handler", async () => {
    const wire: WireRecord[] = [];
    const asked: string[] = [];
    const yard = await open(server, {
      wire,
      onElicitation: async (request) => {
        asked.push(request.message);
        return { action: "accept", content: { ok: true } };
      },
    });
    const result = await yard.callTool("jobs_ask", {});
    expect(result.text).toBe('answered accept {"ok":true}');
    expect(asked).toEqual(["Go ahead?"]);
    expect(sentMethods(wire)).toContain("tasks/update");
    expect((await seen(yard)).updates).toEqual(createdTaskIds(wire));
  });

  it("turns a failed task into SERVER_ERROR with the server's reason", async () => {
    const yard = await open(server);
    const failure = await failureOf(yard.callTool("jobs_doomed", {}));
    expect(failure).toMatchObject({ code: "SERVER_ERROR", server: "jobs", tool: "doomed" });
    expect(failure.message).toMatch(/^task \S+ of tool doomed on server jobs failed: the disk is on fire$/);
  });

  it("cancels the task (tasks/cancel) when the caller's signal aborts; the server sees it", async () => {
    const wire: WireRecord[] = [];
    const yard = await open(server, { wire });
    const controller = new AbortController();
    const call = failureOf(yard.callTool("jobs_forever", {}, { signal: controller.signal }));
    await waitFor(() => sentMethods(wire).includes("tasks/get"), 10_000, "a tasks/get");
    expect(yard.servers()[0]!.tasks).toBe(1);
    controller.abort();
    expect((await call).code).toBe("CANCELLED");
    const [taskId] = createdTaskIds(wire);
    expect((await seen(yard)).cancelled).toEqual([taskId]);
    expect(yard.servers()[0]!.tasks).toBe(0);
  });

  it("cancels the task when the call's deadline passes, and fails with TIMEOUT", async () => {
    const wire: WireRecord[] = [];
    const yard = await open(server, { wire });
    // Long enough for the task to be made under a loaded machine's pace (see tasks.test.ts).
    const failure = await failureOf(yard.callTool("jobs_forever", {}, { timeoutMs: 2_000 }));
    expect(failure.code).toBe("TIMEOUT");
    const [taskId] = createdTaskIds(wire);
    expect(taskId).toBeDefined();
    expect((await seen(yard)).cancelled).toEqual([taskId]);
  });

  it("runs a task-optional tool as a task too, and a plain tool of the same server answers at once", async () => {
    const wire: WireRecord[] = [];
    const yard = await open(server, { wire });
    expect((await yard.callTool("jobs_maybe", {})).text).toBe("maybe done");
    expect(createdTaskIds(wire)).toHaveLength(1);
    expect((await yard.callTool("jobs_echo", { text: "plain" })).text).toBe("plain");
    expect(createdTaskIds(wire)).toHaveLength(1);
  });
});

describe("a task call with a store", () => {
  it("records the task's id on the call's row", async () => {
    const store = await openStore({
      path: path.join(mkdtempSync(path.join(tmpdir(), "switchyard-tasks-")), "s.db"),
    });
    opened.push(store);
    const wire: WireRecord[] = [];
    const yard = await Switchyard.connect(
      { mcpServers: { jobs: transports.stdio } },
      { store, wireTrace: (record) => wire.push(record) },
    );
    opened.push(yard);
    expect((await yard.callTool("jobs_crunch", { steps: 1, ms: 10 })).text).toBe("crunched 1");
    const [taskId] = createdTaskIds(wire);
    const [run] = await store.runs();
    expect((await store.run(run!.id))!.calls).toEqual([
      expect.objectContaining({ name: "jobs_crunch", taskId }),
    ]);
  });
});
