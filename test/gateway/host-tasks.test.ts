// The table of tasks the gateway passes through to its hosts (issue 28) is bounded: a task is kept its
// ttl from its creation (one still running then is cancelled), and at most maxTasks of them. Real
// GatewayCalls of a ClientRelay; their work is a promise the test ends (the passing through itself, with
// a real task server behind `serve --http`, is task-passthrough.test.ts).
import { describe, expect, it } from "vitest";
import { HostTasks, type TaskOwner } from "../../src/gateway/host-tasks.js";
import { ClientRelay, type GatewayCall } from "../../src/gateway/relay.js";
import { waitFor } from "../helpers.js";

const alice: TaskOwner = { user: "alice", authenticated: true };

/** A call that runs until `finish` is called or it is aborted. */
function runningCall(relay: ClientRelay): { call: GatewayCall; finish: () => void } {
  let finish = () => {};
  const call = relay.start(
    "jobs",
    alice.user,
    (started) =>
      new Promise((resolve, reject) => {
        finish = () => resolve({ content: [{ type: "text", text: "done" }], text: "done" });
        started.abort.signal.addEventListener("abort", () => reject(started.abort.signal.reason));
      }),
  );
  return { call, finish: () => finish() };
}

function table(options: { ttlMs?: number; maxTasks?: number; maxTasksPerUser?: number }): HostTasks {
  return new HostTasks({
    end: async (result) => {
      try {
        await result;
        return { status: "completed", result: { content: [] } };
      } catch {
        return { status: "cancelled" };
      }
    },
    ...options,
  });
}

const taskIdOf = (created: Record<string, unknown> | undefined) => created?.taskId as string;
const isGone = async (tasks: HostTasks, id: string) =>
  tasks.get(id, alice).then(
    () => false,
    (error: { code?: string }) => error.code === "INVALID_INPUT",
  );

describe("the gateway's table of passed-through tasks", () => {
  it("drops a task its ttl after its creation, cancelling it when it still runs", async () => {
    const relay = new ClientRelay();
    const tasks = table({ ttlMs: 50 });
    const running = runningCall(relay);
    const ended = runningCall(relay);
    const runningId = taskIdOf(tasks.create(running.call, alice, {}));
    const endedId = taskIdOf(tasks.create(ended.call, alice, {}));
    ended.finish();
    await waitFor(() => running.call.abort.signal.aborted, 10_000, "the running task cancelled");
    await waitFor(() => tasks.size === 0, 10_000, "both dropped");
    expect(await isGone(tasks, runningId)).toBe(true);
    expect(await isGone(tasks, endedId)).toBe(true);
  });

  it("holds at most maxTasks: the oldest ended one makes room, and with none ended the call is bridged", async () => {
    const relay = new ClientRelay();
    const tasks = table({ maxTasks: 2 });
    const first = runningCall(relay);
    const second = runningCall(relay);
    const firstId = taskIdOf(tasks.create(first.call, alice, {}));
    const secondId = taskIdOf(tasks.create(second.call, alice, {}));
    // Both running: no room, the caller bridges this one.
    expect(tasks.create(runningCall(relay).call, alice, {})).toBeUndefined();
    first.finish();
    await waitFor(() => first.call.settled, 10_000, "the first call ended");
    const third = runningCall(relay);
    const thirdId = taskIdOf(tasks.create(third.call, alice, {}));
    expect(thirdId).toBeDefined();
    expect(await isGone(tasks, firstId)).toBe(true);
    expect(await tasks.get(secondId, alice)).toMatchObject({ taskId: secondId, status: "working" });
    expect(tasks.size).toBe(2);
    tasks.close();
    expect(second.call.abort.signal.aborted && third.call.abort.signal.aborted).toBe(true);
  });

  it("is its owner's only as authenticated as it was made: the same name without a token gets nothing", async () => {
    const relay = new ClientRelay();
    const tasks = table({});
    const running = runningCall(relay);
    const id = taskIdOf(tasks.create(running.call, alice, {}));
    const unproven: TaskOwner = { user: "alice", authenticated: false };
    await expect(tasks.get(id, unproven)).rejects.toMatchObject({ code: "INVALID_INPUT" });
    expect(await tasks.get(id, alice)).toMatchObject({ taskId: id, status: "working" });
    tasks.close();
  });

  it("holds at most maxTasksPerUser of one identity's: alice's long tasks leave bob his place", async () => {
    const relay = new ClientRelay();
    const bob: TaskOwner = { user: "bob", authenticated: true };
    const tasks = table({ maxTasks: 10, maxTasksPerUser: 2 });
    const mine = [runningCall(relay), runningCall(relay)];
    const [firstId] = mine.map((running) => taskIdOf(tasks.create(running.call, alice, {})));
    // Alice's two places hold running tasks: her third call is bridged, bob's is not.
    expect(tasks.create(runningCall(relay).call, alice, {})).toBeUndefined();
    expect(taskIdOf(tasks.create(runningCall(relay).call, bob, {}))).toBeDefined();
    // One of hers ends: it makes room for her next.
    mine[0]!.finish();
    await waitFor(() => mine[0]!.call.settled, 10_000, "alice's first call ended");
    expect(taskIdOf(tasks.create(runningCall(relay).call, alice, {}))).toBeDefined();
    expect(await isGone(tasks, firstId!)).toBe(true);
    expect(tasks.size).toBe(3);
    tasks.close();
  });
});
