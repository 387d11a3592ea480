// The task bridge keeps a host without tasks hearing of a call that became a task; once the host takes
// the call as its own task (passed through), the bridge is silent and never names the server's task.
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { CallProgress } from "../../src/fleet/requests.js";
import { TaskBridge } from "../../src/gateway/task-bridge.js";

describe("TaskBridge", () => {
  it("tells the host at least every interval once the call is a task, numbered, until it stops", async () => {
    const told: CallProgress[] = [];
    const bridge = new TaskBridge((progress) => told.push(progress), 20);
    bridge.started("server-task-1");
    await delay(120);
    bridge.stop();
    const count = told.length;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(told.map((progress) => progress.progress)).toEqual(told.map((_, i) => i + 1));
    expect(told[0]!.message).toBe("task server-task-1 working");
    await delay(60);
    expect(told).toHaveLength(count);
  });

  it("handed over, sends nothing of its own and passes the server's progress as it came", async () => {
    const told: CallProgress[] = [];
    const bridge = new TaskBridge((progress) => told.push(progress), 20);
    bridge.started("server-task-2");
    bridge.handOver();
    await delay(80);
    expect(told).toEqual([]);
    bridge.progress({ progress: 7, total: 10 });
    expect(told).toEqual([{ progress: 7, total: 10 }]);
    expect(JSON.stringify(told)).not.toContain("server-task-2");
  });
});
