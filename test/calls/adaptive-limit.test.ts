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

/** A small seeded PRNG (mulberry32): the same "random" latencies on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
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

  it("shrinks when every call of a window rises past the tolerance, and never below min", () => {
    const { limit, serve } = limiter({ initial: 32 });
    serve(16, 10); // its minimum; a window that grew the limit
    const before = limit.limit;
    serve(31, 40); // all past 1.5 × 10 ms, but 31 calls could still be noise
    expect(limit.limit).toBe(before);
    serve(1, 40);
    expect(limit.limit).toBeLessThan(before);
    serve(2_000, 40, "t", 1);
    expect(limit.limit).toBe(1);
    const bounded = limiter({ min: 5, initial: 32 });
    bounded.serve(16, 10);
    bounded.serve(2_000, 100);
    expect(bounded.limit.limit).toBe(5);
  });

  it("does not take latency that varies per call for load: 50–250 ms at random", () => {
    // Issue 26, item 6: the median (150 ms) against the fastest call (~50 ms) read as load, and the
    // limit fell to 1. Noise does not raise the floor: some call of each window comes back near it.
    const { limit, tick } = limiter({ tolerance: 1.25, slackMs: 5 });
    const random = seeded(26);
    const seen: number[] = [];
    for (let i = 0; i < 4_000; i += 1) {
      const flight = limit.start(limit.limit);
      tick(50 + 200 * random());
      limit.succeeded(flight, "work");
      if (i >= 2_000) seen.push(limit.limit);
    }
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(16);
    expect(Math.max(...seen)).toBe(64);
  });

  it("judges a window on the calls that left with its most in flight, not those sent while it filled", () => {
    const { limit, serve } = limiter();
    serve(4, 10); // minimum 10 ms: the first window (half of 8) grows the limit
    const before = limit.limit;
    serve(1, 10, "t", 2); // fast, but with 2 in flight: says nothing of the load at the limit
    serve(31, 40);
    expect(limit.limit).toBe(before);
    serve(1, 40);
    expect(limit.limit).toBeLessThan(before);
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
