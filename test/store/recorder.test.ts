// The recorder's flush waits for the events reported before it, not for the recorder to be idle: a store
// whose writes take time (PostgreSQL) under steady traffic is never idle, and a task call awaits a flush
// before it follows its task.
import { describe, expect, it } from "vitest";
import { StoreRecorder } from "../../src/store/recorder.js";
import type { Store } from "../../src/store/store.js";
import type { SwitchyardEvent } from "../../src/telemetry/events.js";

/** A store whose every write takes `ms`, keeping what it was given in order. */
function slowStore(ms: number): { store: Store; written: SwitchyardEvent[] } {
  const written: SwitchyardEvent[] = [];
  const record = (batch: SwitchyardEvent[]) =>
    new Promise<void>((resolve) =>
      setTimeout(() => {
        written.push(...batch);
        resolve();
      }, ms),
    );
  return { store: { record } as unknown as Store, written };
}

const event = (id: string) => ({ type: "call_started", id, name: "t" }) as unknown as SwitchyardEvent;

describe("StoreRecorder.flush", () => {
  it("resolves once the events reported before it are written, while others keep coming", async () => {
    const { store, written } = slowStore(20);
    const recorder = new StoreRecorder(store);
    let n = 0;
    const busy = setInterval(() => recorder.onEvent(event(`busy${n++}`)), 5);
    try {
      recorder.onEvent(event("mine"));
      await new Promise((resolve) => setTimeout(resolve, 30)); // a write is under way, more queued
      recorder.onEvent(event("mine too"));
      const flushed = await Promise.race([
        recorder.flush().then(() => "flushed"),
        new Promise((resolve) => setTimeout(() => resolve("still waiting"), 2_000)),
      ]);
      expect(flushed).toBe("flushed");
      const ids = written.map((e) => (e as { id: string }).id);
      expect(ids).toContain("mine");
      expect(ids).toContain("mine too");
    } finally {
      clearInterval(busy);
    }
  });

  it("resolves at once when nothing is pending, and after a failed write too", async () => {
    const failing = { record: () => Promise.reject(new Error("disk full")) } as unknown as Store;
    const errors: unknown[] = [];
    const recorder = new StoreRecorder(failing, { onError: (error) => errors.push(error) });
    await recorder.flush();
    recorder.onEvent(event("lost"));
    await recorder.flush();
    expect(errors).toHaveLength(1);
  });
});
