import { describe, expect, it } from "vitest";
import { AdaptiveLimit, type AdaptiveLimitOptions } from "../../src/calls/adaptive-limit.js";

/** A limiter on a clock the test moves, and a way to feed it calls of a given latency. */
function limiter(options: Partial<AdaptiveLimitOptions> = {}) {
  let now = 0;
  const limit = new AdaptiveLimit({
    min: 1,
    max: 64,
    initial: 8,
    tolerance: 1.5,
    slackMs: 0,
    now: () => now,
    ...options,
  });
  /** `count` calls, one after another, each taking `ms` with `inFlight` in flight (default: the limit). */
  const serve = (count: number, ms: number, tool = "t", inFlight?: number) => {
    for (let i = 0; i < count; i += 1) {
      const flight = limit.start(inFlight ?? limit.limit);
      now += ms;
      limit.succeeded(flight, tool);
    }
  };
  return { limit, serve, tick: (ms: number) => (now += ms) };
}

describe("the adaptive limit", () => {
  it("grows while calls that use it stay near the tool's minimum latency, up to max", () => {
    const { limit, serve } = limiter();
    expect(limit.limit).toBe(8);
    serve(20, 10);
    expect(limit.limit).toBeGreaterThan(8);
    serve(500, 10);
    expect(limit.limit).toBe(64);
    serve(100, 12); // within the tolerance (1.5 × 10 ms)
    expect(limit.limit).toBe(64);
  });

  it("does not grow when the calls leave most of it unused", () => {
    const { limit, serve } = limiter();
    serve(500, 10, "t", 1);
    expect(limit.limit).toBe(8);
    serve(500, 10, "t", 3);
    expect(limit.limit).toBe(8);
  });

  it("shrinks when latency rises past the tolerance, and never below min", () => {
    const { limit, serve } = limiter({ initial: 32 });
    serve(5, 10);
    const before = limit.limit;
    serve(20, 40);
    expect(limit.limit).toBeLessThan(before);
    serve(500, 40, "t", 1);
    expect(limit.limit).toBe(1);
    const bounded = limiter({ min: 5, initial: 32 });
    bounded.serve(5, 10);
    bounded.serve(500, 100);
    expect(bounded.limit.limit).toBe(5);
  });

  it("settles where the latency crosses the threshold: a server whose latency grows past 8 in flight", () => {
    // Latency 20 ms up to 8 in flight, then 20 × (n/8)² — the bench's knee server.
    const { limit, tick } = limiter();
    const seen: number[] = [];
    for (let i = 0; i < 2_000; i += 1) {
      const n = limit.limit;
      const flight = limit.start(n);
      tick(20 * Math.max(1, n / 8) ** 2);
      limit.succeeded(flight, "work");
      if (i >= 1_000) seen.push(n);
    }
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(6);
    expect(Math.max(...seen)).toBeLessThanOrEqual(12);
  });

  it("counts latency within slackMs of the minimum as unloaded, whatever the ratio", () => {
    const { limit, serve } = limiter({ slackMs: 5 });
    serve(1, 0.2);
    serve(2_000, 4); // 20 × the minimum, but 3.8 ms above it
    expect(limit.limit).toBe(64);
    serve(50, 20);
    expect(limit.limit).toBeLessThan(64);
  });

  it("keeps each tool's minimum: a slow tool is not load on a fast one", () => {
    const { limit, serve } = limiter();
    serve(5, 1, "lookup");
    for (let i = 0; i < 400; i += 1) {
      serve(1, 1, "lookup");
      serve(1, 300, "search");
    }
    expect(limit.limit).toBe(64);
  });

  it("backs off by a tenth on a drop, once for calls that were in flight together", () => {
    const { limit, serve } = limiter({ initial: 40 });
    const together = Array.from({ length: 10 }, () => limit.start(40));
    for (const flight of together) limit.dropped(flight);
    expect(limit.limit).toBe(36);
    limit.dropped(limit.start(36));
    expect(limit.limit).toBe(32);
    for (let i = 0; i < 100; i += 1) limit.dropped(limit.start(limit.limit));
    expect(limit.limit).toBe(1);
    serve(30, 10);
    expect(limit.limit).toBeGreaterThan(1);
  });

  it("forgets what it learnt on reset: the limit starts over and the minimum is learnt again", () => {
    const { limit, serve } = limiter();
    serve(5, 10);
    serve(100, 40, "t", 1);
    expect(limit.limit).toBe(1);
    limit.reset();
    expect(limit.limit).toBe(8);
    serve(50, 40); // the new process's minimum is 40 ms
    expect(limit.limit).toBeGreaterThan(8);
  });
});
