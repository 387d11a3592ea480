import { describe, expect, it } from "vitest";
import { abortable, type Clock, Deadline } from "../../src/abort.js";

/** A clock that moves only when told. */
function manualClock(start = 1_000): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe("a deadline", () => {
  it("counts down on the clock it is given, and says when it has passed", () => {
    const clock = manualClock();
    const deadline = new Deadline(500, clock);
    expect(deadline.left()).toBe(500);
    clock.advance(200);
    expect(deadline.left()).toBe(300);
    expect(deadline.elapsed()).toBe(200);
    expect(deadline.passed).toBe(false);
    clock.advance(400);
    expect(deadline.left()).toBe(-100);
    expect(deadline.remaining()).toBe(1); // what a timeout handed on may be: never 0 or less
    expect(deadline.passed).toBe(true);
  });

  it("makes no timer until its signal is asked for, and a passed one's signal is aborted at once", () => {
    const clock = manualClock();
    const deadline = new Deadline(10, clock);
    expect(deadline.fired).toBe(false);
    clock.advance(20);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as DOMException).name).toBe("TimeoutError");
    expect(deadline.fired).toBe(true);
  });

  it("aborts its signal when the time is up, joined with a caller's", async () => {
    const deadline = new Deadline(30);
    const caller = new AbortController();
    const signal = deadline.signalWith(caller.signal);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    expect(deadline.fired).toBe(true);
    expect(caller.signal.aborted).toBe(false);
    deadline.dispose();
  });
});

describe("abortable work", () => {
  it("is the work itself without a signal, and its outcome when the signal stays", async () => {
    expect(await abortable(Promise.resolve(1), undefined)).toBe(1);
    expect(await abortable(Promise.resolve(2), new AbortController().signal)).toBe(2);
  });

  it("rejects with the reason given as soon as the signal aborts, whether or not the work heeds it", async () => {
    const controller = new AbortController();
    const never = new Promise<number>(() => {});
    const waiting = abortable(never, controller.signal, () => new Error("stopped"));
    controller.abort();
    await expect(waiting).rejects.toThrow("stopped");
    const already = abortable(
      Promise.reject(new Error("ignored")),
      controller.signal,
      () => new Error("at once"),
    );
    await expect(already).rejects.toThrow("at once");
  });
});
