import { describe, expect, it } from "vitest";
import { type RequestInput, Switchyard } from "../../src/index.js";
import { checkPlan, DEFAULT_PLAN_CONCURRENCY, runPlan } from "../../src/plan/index.js";
import { sdk } from "../helpers.js";

/** The Switchyard with its calls in flight counted, as a plan's host. */
function counting(yard: Switchyard) {
  let now = 0;
  let peak = 0;
  const host = new Proxy(yard, {
    get(target, key) {
      if (key === "request")
        return async (input: RequestInput) => {
          now += 1;
          peak = Math.max(peak, now);
          try {
            return await target.request(input);
          } finally {
            now -= 1;
          }
        };
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { host, peak: () => peak };
}

const sixSleeps = (concurrency?: number) =>
  checkPlan({
    ...(concurrency !== undefined ? { concurrency } : {}),
    steps: Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, tool: "s_sleep", args: { ms: 100 } })),
  });

describe("a plan's concurrency", () => {
  it("runs at most `concurrency` independent steps at once; the rest wait their turn and all finish", async () => {
    await using yard = await Switchyard.connect({ mcpServers: { s: sdk() } });
    const { host, peak } = counting(yard);
    const result = await runPlan(sixSleeps(3), { host });
    expect(result.ok).toBe(true);
    expect(peak()).toBe(3);
    const alone = counting(yard);
    await runPlan(sixSleeps(), { host: alone.host, concurrency: 1 });
    expect(alone.peak()).toBe(1);
    const unbounded = counting(yard);
    await runPlan(sixSleeps(), { host: unbounded.host });
    expect(unbounded.peak()).toBe(Math.min(6, DEFAULT_PLAN_CONCURRENCY));
  });

  it("refuses a concurrency that is not a whole number of steps", async () => {
    expect(() => sixSleeps(0)).toThrow(/concurrency/);
    expect(() => sixSleeps(2.5)).toThrow(/whole number/);
  });
});
