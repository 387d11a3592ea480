// Tasks passed through (issue 28): `switchyard serve --http` from dist/ (`npm run build` first), with
// tokens for alice and bob, in front of a real 2026-07-28 task server. A host that declares the tasks
// extension (driven by @modelcontextprotocol/ext-tasks' own client) gets a task of the gateway's own
// back, follows it with tasks/get, answers its questions with tasks/update and cancels it with
// tasks/cancel, which reach the server's task; bob cannot reach alice's task; a host that does not
// declare the extension still gets the bridged plain call.
import { randomBytes } from "node:crypto";
import type { Client } from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  type JsonRpcResponse,
  type TaskEnabledSession,
} from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE, ROOT } from "../helpers.js";
import { configFile, httpClient, startHttpGateway, textOf } from "./fleet.js";

const TASK_SERVER = `${ROOT}test/fixtures/tasks-server-2026.mjs`;
/** A 2025-11-25 task server (SDK v1's experimental tasks). */
const OLD_TASK_SERVER = `${ROOT}test/fixtures/task-server.mjs`;
const TASKS = "io.modelcontextprotocol/tasks";
const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef" };
type User = keyof typeof TOKENS;

let gateway: Awaited<ReturnType<typeof startHttpGateway>>;
const clients: Client[] = [];
const sessions: TaskEnabledSession[] = [];

beforeAll(async () => {
  const file = configFile({
    mcpServers: {
      jobs: { command: NODE, args: [TASK_SERVER, "--name", "jobs", "--poll", "50"] },
      old: { command: NODE, args: [OLD_TASK_SERVER, "--name", "old"] },
    },
    gateway: {
      auth: {
        tokens: [
          { token: TOKENS.alice, user: "alice", roles: [] },
          { token: TOKENS.bob, user: "bob", roles: [] },
        ],
      },
    },
  });
  gateway = await startHttpGateway(file);
}, 60_000);

afterAll(async () => {
  for (const session of sessions) await session.close().catch(() => {});
  for (const client of clients) await client.close().catch(() => {});
  await gateway?.close();
});

/** The envelope of a 2026-07-28 request (ext-tasks frames its own; a raw one here needs it). */
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw-host", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
};

/** One JSON-RPC request to the gateway as a 2026-07-28 host sends it, with `user`'s token (or none). */
async function post(user: User | undefined, request: { method: string; params: Record<string, unknown> }) {
  if (!request.params._meta) request = { ...request, params: { ...request.params, _meta: ENVELOPE } };
  const name = request.method === "tools/call" ? request.params.name : request.params.taskId;
  const response = await fetch(gateway.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": request.method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      ...(user ? { authorization: `Bearer ${TOKENS[user]}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: randomBytes(4).toString("hex"), ...request }),
  });
  const body = await response.text();
  if (!response.ok) return { status: response.status, message: undefined };
  // A JSON body, or an SSE stream whose last message is the answer.
  const data = body.trimStart().startsWith("{")
    ? body
    : (body
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .at(-1)
        ?.slice(5) ?? "{}");
  return { status: response.status, message: JSON.parse(data) as { result?: unknown; error?: unknown } };
}

/** A 2026-07-28 host of `user` that speaks tasks: ext-tasks' client over the SDK's, raw requests by fetch. */
async function taskHost(user: User): Promise<TaskEnabledSession> {
  const client = await httpClient(gateway.url, "modern", {
    headers: { authorization: `Bearer ${TOKENS[user]}` },
  });
  clients.push(client);
  const session = createTaskSessionFromClient(client, {
    endpointId: `test:${user}`,
    rawDispatch: async (request): Promise<JsonRpcResponse> => {
      const { message } = await post(user, request as { method: string; params: Record<string, unknown> });
      if (message?.error) return { kind: "error", error: message.error as never };
      return { kind: "result", result: (message?.result ?? {}) as JsonValue };
    },
    v2RequestFraming: {
      protocolVersion: "2026-07-28",
      clientInfo: { name: "task-host", version: "1" },
      clientCapabilities: { elicitation: { form: {} }, extensions: { [TASKS]: {} } },
    },
    onInputRequest: async (request) => {
      if (request.kind !== "elicitation") throw new Error(`unexpected ${request.kind}`);
      return { action: "accept", content: { ok: true } } as never;
    },
  });
  sessions.push(session);
  return session;
}

/** What the task server saw (which of its tasks were cancelled, updated), asked as alice. */
async function seen(): Promise<{ cancelled: string[]; updates: string[] }> {
  const { message } = await post("alice", {
    method: "tools/call",
    params: { name: "jobs_seen", arguments: {} },
  });
  return JSON.parse(textOf(message?.result));
}

describe("a task through the gateway, to a host that declares the tasks extension", () => {
  it("is the gateway's own task: created, polled, its result fetched", async () => {
    const host = await taskHost("alice");
    const execution = await host.callTool(
      "jobs_crunch",
      { steps: 2, ms: 100 },
      { task: { preference: "allow" } },
    );
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    // 128 random bits, not the server's id (task-<n>-<pid>).
    expect(execution.handle.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("completed");
    expect(textOf(outcome.status === "completed" ? outcome.result : undefined)).toBe("crunched 2");
  }, 60_000);

  it("tells the server task's status messages on tasks/get", async () => {
    const host = await taskHost("alice");
    const execution = await host.callTool(
      "jobs_crunch",
      { steps: 20, ms: 200 },
      { task: { preference: "allow" } },
    );
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    const { taskId } = execution.handle;
    const messages: string[] = [];
    for (let i = 0; i < 200 && !messages.some((m) => /^step \d+ of 20$/.test(m)); i++) {
      const got = await post("alice", { method: "tasks/get", params: { taskId } });
      const task = got.message?.result as { status: string; statusMessage?: string };
      if (task.statusMessage) messages.push(task.statusMessage);
      if (task.status !== "working") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(messages).toContainEqual(expect.stringMatching(/^step \d+ of 20$/));
    await execution.cancel();
  }, 60_000);

  it("that fails ends completed with the tool error a plain call gets", async () => {
    const host = await taskHost("alice");
    const execution = await host.callTool("jobs_doomed", {}, { task: { preference: "allow" } });
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    const { outcome } = await execution.settle();
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "completed" });
    const result = outcome.status === "completed" ? (outcome.result as { isError?: boolean }) : undefined;
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toMatch(/^SERVER_ERROR: .*the disk is on fire/);
  }, 60_000);

  it("of a 2025-11-25 task server is passed through the same way", async () => {
    const host = await taskHost("alice");
    const execution = await host.callTool(
      "old_crunch",
      { steps: 2, ms: 50 },
      { task: { preference: "allow" } },
    );
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    const { outcome } = await execution.settle();
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "completed" });
    expect(textOf(outcome.status === "completed" ? outcome.result : undefined)).toBe("crunched 2");
  }, 60_000);

  it("asks its host through tasks/get, and the host's answer (tasks/update) reaches the server's task", async () => {
    const host = await taskHost("alice");
    const before = (await seen()).updates.length;
    const execution = await host.callTool("jobs_ask", {}, { task: { preference: "allow" } });
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    const { outcome } = await execution.settle();
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "completed" });
    expect(textOf(outcome.status === "completed" ? outcome.result : undefined)).toBe(
      'answered accept {"ok":true}',
    );
    expect((await seen()).updates).toHaveLength(before + 1);
  }, 60_000);

  it("is cancelled with tasks/cancel, which reaches the server's task", async () => {
    const host = await taskHost("alice");
    const before = (await seen()).cancelled.length;
    const execution = await host.callTool("jobs_forever", {}, { task: { preference: "allow" } });
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    await execution.cancel();
    let cancelled = (await seen()).cancelled;
    for (let i = 0; i < 100 && cancelled.length < before + 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      cancelled = (await seen()).cancelled;
    }
    expect(cancelled).toHaveLength(before + 1);
    const got = await post("alice", { method: "tasks/get", params: { taskId: execution.handle.taskId } });
    expect(got.message?.result).toMatchObject({ status: "cancelled" });
  }, 60_000);

  it("is alice's alone: bob (and a request without a token) gets what an unknown task gets", async () => {
    const host = await taskHost("alice");
    const execution = await host.callTool("jobs_forever", {}, { task: { preference: "allow" } });
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    const { taskId } = execution.handle;
    const before = (await seen()).cancelled.length;
    const unknown = randomBytes(16).toString("base64url");
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const params = (id: string) => ({
        taskId: id,
        ...(method === "tasks/update" ? { inputResponses: {} } : {}),
      });
      const bobs = await post("bob", { method, params: params(taskId) });
      const nobodys = await post("bob", { method, params: params(unknown) });
      const error = bobs.message?.error as { code: number; message: string } | undefined;
      const unknownError = nobodys.message?.error as { code: number; message: string } | undefined;
      expect(error, method).toBeDefined();
      expect(unknownError, method).toBeDefined();
      expect(error).toEqual({ ...unknownError, message: unknownError?.message.replace(unknown, taskId) });
      expect((await post(undefined, { method, params: params(taskId) })).status).toBe(401);
    }
    // Bob's cancel reached nothing: alice's task still works, and she can still follow it.
    const alices = await post("alice", { method: "tasks/get", params: { taskId } });
    expect(alices.message?.result).toMatchObject({ taskId, status: "working" });
    expect((await seen()).cancelled).toHaveLength(before);
    await execution.cancel();
  }, 60_000);
});

describe("a task through the gateway, to a host that does not declare the extension", () => {
  it("is still the bridged plain call", async () => {
    const client = await httpClient(gateway.url, "modern", {
      headers: { authorization: `Bearer ${TOKENS.alice}` },
    });
    clients.push(client);
    const result = await client.callTool({ name: "jobs_crunch", arguments: { steps: 1, ms: 50 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("crunched 1");
  }, 60_000);
});
