import { writeFileSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { arrivals, mostInFlight, pacedFleet, started } from "./paced.js";

// `limits.inFlight`: one cap over every server, read from the servers' own log of when each call started
// and ended (one file both append to, in the order things happened); priority read from the order calls
// arrived in.

let yard: Switchyard | undefined;
afterEach(async () => {
  await yard?.close();
  yard = undefined;
});

describe("limits.inFlight: one cap over the whole fleet", () => {
  it("never has more calls in flight over both servers than the cap", async () => {
    const { log, config } = pacedFleet({ limits: { inFlight: 3 } });
    yard = await Switchyard.connect(config);
    const calls = Array.from({ length: 10 }, (_, i) =>
      yard!.callTool(i % 2 ? "a_work" : "b_work", { label: `c${i}`, ms: 40 }),
    );
    const results = await Promise.all(calls);
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(arrivals(log)).toHaveLength(10);
    expect(mostInFlight(log)).toBeLessThanOrEqual(3);
  });

  it("without limits, each server's own limit is all there is", async () => {
    const { log, config } = pacedFleet();
    yard = await Switchyard.connect(config);
    const calls = Array.from({ length: 10 }, (_, i) =>
      yard!.callTool(i % 2 ? "a_work" : "b_work", { label: `c${i}`, gate: true }),
    );
    for (let i = 0; i < 10; i += 1) await started(log, `c${i}`); // all ten at once
    writeFileSync(`${log}.go`, "");
    await Promise.all(calls);
    expect(mostInFlight(log)).toBe(10);
  });

  it("serves a high-priority call queued later before the low-priority calls waiting", async () => {
    const { log, config } = pacedFleet({ limits: { inFlight: 1 } });
    yard = await Switchyard.connect(config);
    const blocker = yard.callTool("a_work", { label: "blocker", gate: true });
    await started(log, "blocker");
    const low = ["low1", "low2", "low3"].map((label, i) =>
      yard!.callTool(i % 2 ? "a_work" : "b_work", { label }, { priority: "low" }),
    );
    const normal = yard.callTool("b_work", { label: "normal1" });
    await nextTurn(); // every call above is waiting for the fleet-wide slot
    const high = yard.callTool("a_work", { label: "high1" }, { priority: "high" });
    await nextTurn();
    writeFileSync(`${log}.go`, "");
    await Promise.all([blocker, ...low, normal, high]);
    expect(arrivals(log)).toEqual(["blocker", "high1", "normal1", "low1", "low2", "low3"]);
    expect(mostInFlight(log)).toBe(1);
  });

  it("a server's own queue (maxConcurrency 1, no limits) also serves high, then normal, then low", async () => {
    const { log, config } = pacedFleet();
    const servers = config.mcpServers as Record<string, Record<string, unknown>>;
    servers.a = { ...servers.a, maxConcurrency: 1 };
    yard = await Switchyard.connect(config);
    const blocker = yard.callTool("a_work", { label: "blocker", gate: true });
    await started(log, "blocker");
    const calls = [
      yard.callTool("a_work", { label: "low1" }, { priority: "low" }),
      yard.callTool("a_work", { label: "normal1" }),
      yard.callTool("a_work", { label: "low2" }, { priority: "low" }),
    ];
    await nextTurn(); // every call above is waiting in server a's queue
    calls.push(yard.callTool("a_work", { label: "high1" }, { priority: "high" }));
    await nextTurn();
    writeFileSync(`${log}.go`, "");
    await Promise.all([blocker, ...calls]);
    expect(arrivals(log)).toEqual(["blocker", "high1", "normal1", "low1", "low2"]);
    expect(mostInFlight(log)).toBe(1);
  });

  it("a call whose deadline passes while it waits for the fleet-wide slot is a TIMEOUT, never sent", async () => {
    const { log, config } = pacedFleet({ limits: { inFlight: 1 } });
    yard = await Switchyard.connect(config);
    const blocker = yard.callTool("a_work", { label: "blocker", gate: true });
    await started(log, "blocker");
    const waited = await yard
      .callTool("b_work", { label: "late" }, { timeoutMs: 200 })
      .catch((error) => error);
    expect(waited).toMatchObject({ code: "TIMEOUT", server: "b", delivery: "not_sent" });
    expect(waited.message).toContain("fleet-wide limit (limits.inFlight: 1");
    writeFileSync(`${log}.go`, "");
    await blocker;
    // The slot it waited for went to nobody: the next call takes it.
    await yard.callTool("b_work", { label: "after" });
    expect(arrivals(log)).toEqual(["blocker", "after"]);
  });

  it("refuses a priority that is none of high, normal, low", async () => {
    const { config } = pacedFleet({ limits: { inFlight: 1 } });
    yard = await Switchyard.connect(config);
    const refused = await yard
      .callTool("a_work", { label: "x" }, { priority: "urgent" as "high" })
      .catch((error) => error);
    expect(refused).toMatchObject({ code: "INVALID_INPUT" });
    expect(refused.message).toContain('"high", "normal" or "low"');
  });

  it("rejects a limits section that is not a positive count", async () => {
    const { config } = pacedFleet({ limits: { inFlight: 0 } });
    await expect(Switchyard.connect(config)).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});
