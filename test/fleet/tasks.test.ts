import { afterEach, describe, expect, it } from "vitest";
import { serverJson } from "../../src/cli/commands/servers.js";
import { Switchyard, type WireRecord } from "../../src/index.js";
import { EVERYTHING, failureOf, NODE, ROOT, waitFor } from "../helpers.js";

/** Tool calls that run as tasks (the 2025-11-25 tasks extension), against real servers over stdio and HTTP. */

const TASK_SERVER = `${ROOT}test/fixtures/task-server.mjs`;

const opened: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((yard) => yard.close()));
});

const transports = {
  stdio: { command: NODE, args: [TASK_SERVER] },
  http: { url: "http://127.0.0.1:{{port}}/mcp", command: NODE, args: [TASK_SERVER, "--port", "{{port}}"] },
};

async function open(server: Record<string, unknown>, wire?: WireRecord[]): Promise<Switchyard> {
  const yard = await Switchyard.connect(
    { mcpServers: { jobs: server } },
    wire ? { wireTrace: (record) => wire.push(record) } : {},
  );
  opened.push(yard);
  const [state] = yard.servers();
  expect(state, state!.error).toMatchObject({ status: "ready", protocolVersion: "2025-11-25" });
  return yard;
}

/** The methods of the requests sent to the server, in order. */
function sentMethods(wire: WireRecord[]): string[] {
  return wire
    .filter((record) => record.direction === "to-server")
    .map((record) => (record.message as { method?: string }).method ?? "")
    .filter((method) => method.startsWith("tools/call") || method.startsWith("tasks/"));
}

/** The id of the task the server created for the call (from its answer to the task-augmented tools/call). */
function createdTaskIds(wire: WireRecord[]): string[] {
  return wire.flatMap((record) => {
    const task = (record.message as { result?: { task?: { taskId?: string } } }).result?.task;
    return record.direction === "from-server" && task?.taskId ? [task.taskId] : [];
  });
}

async function seenCancelled(yard: Switchyard): Promise<string[]> {
  return (JSON.parse((await yard.callTool("jobs_seen", {})).text) as { cancelled: string[] }).cancelled;
}

describe.each(Object.entries(transports))("a tool that must run as a task, over %s", (_kind, server) => {
  it("is offered, sent task-augmented and followed to its result, with its progress", async () => {
    const wire: WireRecord[] = [];
    const yard = await open(server, wire);
    const crunch = yard.tools().find((tool) => tool.name === "jobs_crunch");
    expect(crunch?.unsupported).toBeUndefined();

    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await yard.callTool(
      "jobs_crunch",
      { steps: 3, ms: 20 },
      { onProgress: (p) => progress.push(p) },
    );

    expect(result).toMatchObject({ isError: false, text: "crunched 3" });
    // Progress goes on after the task was created (the SDK alone forgets the token once answered).
    expect(progress).toEqual(
      [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step} of 3` })),
    );
    const call = wire.find((record) => (record.message as { method?: string }).method === "tools/call");
    expect((call!.message as { params: { task?: object } }).params.task).toBeDefined();
    const methods = sentMethods(wire);
    expect(methods[0]).toBe("tools/call");
    expect(methods.at(-1)).toBe("tasks/result");
    expect(yard.servers()[0]!.tasks).toBe(0);
  });

  it("is woken by the server's status notifications, not only by polling", async () => {
    // The task's pollInterval is ten minutes: the call can only end within the test's time if the
    // notifications/tasks/status the server sends as it completes wake the follower.
    const wire: WireRecord[] = [];
    const yard = await open({ ...server, args: [...server.args, "--poll", "600000"] }, wire);
    const result = await yard.callTool("jobs_crunch", { steps: 2, ms: 20 });
    expect(result.text).toBe("crunched 2");
    expect(sentMethods(wire)).toEqual(["tools/call", "tasks/result"]);
  });

  it("lets the task's progress push the deadline back, up to maxTotalTimeoutMs", async () => {
    const yard = await open({ ...server, timeoutMs: 500, maxTotalTimeoutMs: 10_000 });
    const events: string[] = [];
    yard.observe((event) => events.push(event.type));
    // 8 steps of 100 ms: longer than timeoutMs, but each step reports progress.
    expect((await yard.callTool("jobs_crunch", { steps: 8, ms: 100 })).text).toBe("crunched 8");
    expect(events.filter((type) => type === "call_progress")).toHaveLength(8);
  });

  it("cancels the task with tasks/cancel when the caller's signal aborts; the server sees it", async () => {
    const wire: WireRecord[] = [];
    const yard = await open(server, wire);
    const controller = new AbortController();
    const call = failureOf(yard.callTool("jobs_forever", {}, { signal: controller.signal }));
    await waitFor(() => yard.servers()[0]!.tasks === 1, 5_000, "the task in flight in servers()");
    expect(serverJson(yard.servers()[0]!).tasks).toBe(1);
    // The task sends no status while it works: it is followed by polling (its pollInterval, 50 ms).
    await waitFor(() => sentMethods(wire).includes("tasks/get"), 5_000, "a tasks/get");
    controller.abort();

    const failure = await call;
    expect(failure.code).toBe("CANCELLED");
    const [taskId] = createdTaskIds(wire);
    const cancel = wire.find((record) => (record.message as { method?: string }).method === "tasks/cancel");
    expect((cancel?.message as { params?: { taskId?: string } })?.params?.taskId).toBe(taskId);
    expect(await seenCancelled(yard)).toEqual([taskId]);
    expect(yard.servers()[0]!.tasks).toBe(0);
  });

  it("turns a failed task into SERVER_ERROR with the server's reason", async () => {
    const yard = await open(server);
    const failure = await failureOf(yard.callTool("jobs_doomed", {}));
    expect(failure).toMatchObject({ code: "SERVER_ERROR", server: "jobs", tool: "doomed" });
    expect(failure.message).toMatch(/^task \S+ of tool doomed on server jobs failed: the disk is on fire$/);
    expect(yard.servers()[0]!.tasks).toBe(0);
  });

  it("cancels the task when the call's deadline passes, and fails with TIMEOUT", async () => {
    const wire: WireRecord[] = [];
    const yard = await open(server, wire);
    // Long enough for the task to be made under a loaded machine's pace: a deadline that passes while
    // tasks/call is still in flight leaves no task id to cancel (the server's create is abandoned).
    const failure = await failureOf(yard.callTool("jobs_forever", {}, { timeoutMs: 2_000 }));
    expect(failure.code).toBe("TIMEOUT");
    const [taskId] = createdTaskIds(wire);
    expect(taskId).toBeDefined();
    expect(await seenCancelled(yard)).toEqual([taskId]);
  });
});

describe("a task call whose server dies", () => {
  it("fails with SERVER_UNAVAILABLE at once, not at its next poll", async () => {
    // pollInterval ten minutes: only the closed connection can wake the follower within the test's time.
    const yard = await open({ ...transports.stdio, args: [TASK_SERVER, "--poll", "600000"] });
    const call = failureOf(yard.callTool("jobs_forever", {}));
    await waitFor(() => yard.servers()[0]!.tasks === 1, 5_000, "the task in flight");
    process.kill(yard.servers()[0]!.pid!, "SIGKILL");
    const failure = await call;
    expect(failure).toMatchObject({ code: "SERVER_UNAVAILABLE", server: "jobs", tool: "forever" });
  });
});

describe("a tool that must run as a task on a server that cannot run tasks", () => {
  it("is refused with CAPABILITY_MISSING naming what the server lacks, before anything is sent", async () => {
    const wire: WireRecord[] = [];
    const yard = await open({ ...transports.stdio, args: [TASK_SERVER, "--capability", "none"] }, wire);
    const failure = await failureOf(yard.callTool("jobs_crunch", { steps: 1, ms: 0 }));
    expect(failure).toMatchObject({ code: "CAPABILITY_MISSING", capability: "tasks", tool: "crunch" });
    expect(failure.message).toContain(
      "must run as a task (execution.taskSupport: required), and the server does not offer task-augmented tools/call (capabilities.tasks.requests.tools.call)",
    );
    expect(sentMethods(wire)).toEqual([]);
    expect((await yard.callTool("jobs_echo", { text: "plain" })).text).toBe("plain");
  });
});

describe("server-everything", () => {
  it("follows its task tool simulate-research-query through its question (input_required) to its report, and counts its resources and prompts", async () => {
    const asked: string[] = [];
    const yard = await Switchyard.connect(
      { mcpServers: { everything: { command: NODE, args: [EVERYTHING] } } },
      {
        onElicitation: async (request) => {
          asked.push(request.message);
          return { action: "accept", content: { interpretation: "technical" } };
        },
      },
    );
    opened.push(yard);
    const [state] = yard.servers();
    expect(state).toMatchObject({ status: "ready", protocolVersion: "2025-11-25", tasks: 0 });
    expect(state!.resources).toBeGreaterThan(0);
    expect(state!.prompts).toBeGreaterThan(0);
    expect(serverJson(state!)).toMatchObject({
      resources: state!.resources,
      prompts: state!.prompts,
      tasks: 0,
    });

    // It registers the tool once initialized, then says its list changed.
    await waitFor(
      () => yard.tools().some((tool) => tool.name === "everything_simulate-research-query"),
      5_000,
      "the task tool",
    );
    // Ambiguous: the task stops at input_required, and tasks/result carries its elicitation.
    const result = await yard.callTool("everything_simulate-research-query", {
      topic: "trains",
      ambiguous: true,
    });
    expect(asked).toEqual([
      expect.stringContaining('The research query "trains" could have multiple interpretations'),
    ]);
    expect(result.isError).toBe(false);
    expect(result.text).toContain("# Research Report: trains (technical)");
  }, 30_000);
});
