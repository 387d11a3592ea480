import { describe, expect, it } from "vitest";
import { runFaultSuite } from "./fault-suite.js";

describe("the fault suite", () => {
  it("settles a thousand concurrent calls amid crashes, hangs, garbage, huge and endless answers and dropped connections", async () => {
    const report = await runFaultSuite({ calls: 1_000, seed: 7, timeoutMs: 5_000 });
    expect(report.lost).toBe(0);
    expect(report.crossed).toBe(0);
    expect(report.wrong).toEqual([]);
    // Deadlines are generous for the load: a thousand calls at once keep both cores busy (client and
    // four server processes), and timers fire late when the event loop is that busy.
    expect(report.late).toBe(0);
    expect(report.unhandledRejections).toBe(0);
    expect(report.orphans).toBe(0);
    expect(report.healthyAfter).toBe(true);
    // Every kind of fault was thrown at the fleet, and healthy calls mostly got through.
    for (const fault of [
      "none",
      "slow",
      "error",
      "hang",
      "garbage",
      "huge",
      "crash",
      "drop",
      "unavailable",
      "endless",
    ]) {
      expect(report.faults[fault], fault).toBeGreaterThan(0);
    }
    expect(report.outcomes.ok).toBeGreaterThan(report.calls / 2);
    // An answer that never ends is cut at maxResultBytes, not left to run into the deadline.
    expect(report.outcomesByFault.endless?.RESULT_TOO_LARGE).toBeGreaterThan(0);
    expect(report.restarts).toBeGreaterThan(0);
    // The noisy server (50–250 ms a call at random, its adaptive limit) took its share and lost none.
    expect(report.noisy.calls).toBeGreaterThan(100);
    // While p1 was down its calls went to its fallback b1: every one answered, none lost.
    expect(report.fallback).toMatchObject({ calls: 50, ok: 50, servedBy: 50 });
    // The rate-limited server's 429s were waited for: most of its calls were answered.
    expect(report.rateLimited.calls).toBeGreaterThan(100);
    expect(report.rateLimited.ok).toBeGreaterThan(report.rateLimited.calls / 2);
    expect(report.rateLimited.retries).toBeGreaterThan(0);
  }, 120_000);
});
