// The relay keeps a call that ended until its client collects the result, for a while at most — and
// holds nothing (no timer, which would keep the call and all it references) once it was collected.
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_GATEWAY_PENDING_KEEP_MS } from "../../src/config/defaults.js";
import { ClientRelay } from "../../src/gateway/index.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("ClientRelay", () => {
  it("holds no timer for calls whose results were handed over (a gateway serving many calls stays flat)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const relay = new ClientRelay();
    for (let i = 0; i < 100; i += 1) {
      const call = relay.start("s", "ana", async () => i);
      await call.result;
      expect((await call.next()).done).toBe(true);
      relay.forget(call);
    }
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps an ended call nobody collected for its client's retry, then lets it go", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const relay = new ClientRelay();
    const call = relay.start("s", "ana", async () => "answer");
    await call.result;
    expect(relay.resume(call.id, "ana")).toBe(call);
    expect(() => relay.resume(call.id, "bo")).toThrow(/requestState/);
    vi.advanceTimersByTime(DEFAULT_GATEWAY_PENDING_KEEP_MS + 1);
    expect(() => relay.resume(call.id, "ana")).toThrow(/call the tool again/);
    expect(vi.getTimerCount()).toBe(0);
  });
});
