import { afterEach, describe, expect, it } from "vitest";
import { Switchyard, type WireRecord } from "../../src/index.js";
import { processesWith, raw, sdk, waitFor } from "../helpers.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

/**
 * A server slow to start (it reads its first message after the probe's wait) that answers a request
 * before `initialize` with an error and refuses everything after it, as servers on some SDKs do.
 */
const late = (name: string) => raw("--name", name, "--read-delay-ms", "3000", "--refuse-after-early");

const method = (record: WireRecord) => (record.message as { method?: string }).method;
const sent = (wire: WireRecord[], name: string) =>
  wire.filter((record) => record.direction === "to-server" && method(record) === name);

/** Crash the server's process with its `crash` tool (or a kill), and time the restart. */
async function crashAndTimeRestart(yard: Switchyard, crash: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await crash().catch(() => {});
  await waitFor(
    () => yard.servers()[0]!.restarts === 1 && yard.servers()[0]!.status === "ready",
    8_000,
    "the restart",
  );
  return performance.now() - started;
}

describe("version negotiation (auto)", () => {
  it("waits briefly for a server that ignores the probe, and does not probe it again on a restart", async () => {
    const wire: WireRecord[] = [];
    const started = performance.now();
    const yard = await Switchyard.connect(
      { mcpServers: { quiet: { ...raw("--ignore-early"), restart: { maxRestarts: 2, backoffMs: 0 } } } },
      { wireTrace: (record) => wire.push(record) },
    );
    opened.push(yard);
    const connectMs = performance.now() - started;
    const [state] = yard.servers();
    expect(state, state!.error).toMatchObject({ status: "ready", protocolVersion: "2025-11-25" });
    expect(sent(wire, "server/discover")).toHaveLength(1); // it was probed, once
    expect(connectMs).toBeLessThan(5_000);
    expect(state!.connectMs).toBeLessThan(5_000);

    const beforeCrash = wire.length;
    const restartMs = await crashAndTimeRestart(yard, () => yard.callTool("quiet_crash", {}));
    const afterCrash = wire.slice(beforeCrash);
    expect(sent(afterCrash, "server/discover")).toHaveLength(0);
    expect(sent(afterCrash, "initialize")).toHaveLength(1);
    expect(restartMs).toBeLessThan(1_500);
    expect(yard.servers()[0]!.protocolVersion).toBe("2025-11-25");
    expect((await yard.callTool("quiet_echo", { text: "back" })).text).toBe("back");
  });

  it("restarts a 2026-07-28 server on the revision it negotiated", async () => {
    const wire: WireRecord[] = [];
    const yard = await Switchyard.connect(
      { mcpServers: { modern: { ...sdk(), restart: { maxRestarts: 2, backoffMs: 0 } } } },
      { wireTrace: (record) => wire.push(record) },
    );
    opened.push(yard);
    expect(yard.servers()[0]).toMatchObject({ status: "ready", protocolVersion: "2026-07-28" });
    const beforeCrash = wire.length;
    await crashAndTimeRestart(yard, async () => process.kill(yard.servers()[0]!.pid!, "SIGKILL"));
    expect(yard.servers()[0]).toMatchObject({ status: "ready", protocolVersion: "2026-07-28" });
    expect(sent(wire.slice(beforeCrash), "initialize")).toHaveLength(0);
    expect((await yard.callTool("modern_echo", { text: "pinned" })).text).toBe("pinned");
  });

  it("starts a slow server that exits on the probe again without it, even when the probe's wait ran out first", async () => {
    const yard = await Switchyard.connect({
      mcpServers: { slow: raw("--strict-init", "--read-delay-ms", "2500") },
    });
    opened.push(yard);
    const [state] = yard.servers();
    expect(state, state!.error).toMatchObject({ status: "ready", protocolVersion: "2025-11-25" });
    expect((await yard.callTool("slow_echo", { text: "late" })).text).toBe("late");
  });

  it("connects a server that reads its first message after the probe's wait and refuses everything after an early request", async () => {
    const marker = `late-${process.pid}-alone`;
    const wire: WireRecord[] = [];
    const yard = await Switchyard.connect(
      { mcpServers: { late: late(marker) } },
      { wireTrace: (record) => wire.push(record) },
    );
    opened.push(yard);
    const [state] = yard.servers();
    expect(state, state!.error).toMatchObject({ status: "ready", protocolVersion: "2025-11-25", tools: 5 });
    expect(sent(wire, "initialize")).toHaveLength(1); // to a process that never saw the probe
    expect(processesWith(marker)).toEqual([state!.pid]);
    expect((await yard.callTool("late_echo", { text: "late" })).text).toBe("late");
    await yard.close();
    expect(processesWith(marker)).toEqual([]);
  });

  it("connects such a slow server within a fleet of servers connecting at once", async () => {
    const marker = `late-${process.pid}-fleet`;
    const yard = await Switchyard.connect({
      mcpServers: {
        late1: late(`${marker}-1`),
        late2: late(`${marker}-2`),
        modern1: sdk(),
        modern2: sdk(),
        plain: raw(),
        quiet: raw("--ignore-early"),
        strict: raw("--strict-init"),
        lateModern: sdk("--read-delay-ms", "3000"),
      },
    });
    opened.push(yard);
    for (const state of yard.servers())
      expect(state, `${state.name}: ${state.error}`).toMatchObject({ status: "ready" });
    expect(yard.servers().find((state) => state.name === "lateModern")).toMatchObject({
      protocolVersion: "2025-11-25",
    });
    for (const name of ["late1", "late2"]) {
      expect(yard.servers().find((state) => state.name === name)).toMatchObject({
        protocolVersion: "2025-11-25",
        tools: 5,
      });
      expect((await yard.callTool(`${name}_echo`, { text: name })).text).toBe(name);
    }
    expect(processesWith(marker)).toHaveLength(2);
    await yard.close();
    expect(processesWith(marker)).toEqual([]);
  });

  it("connects a pinned 2026-07-28 server that is slow to start on its revision", async () => {
    const yard = await Switchyard.connect({
      mcpServers: {
        pinned: { ...sdk("--read-delay-ms", "3000"), versionNegotiation: { pin: "2026-07-28" } },
      },
    });
    opened.push(yard);
    const [state] = yard.servers();
    expect(state, state!.error).toMatchObject({ status: "ready", protocolVersion: "2026-07-28" });
    expect((await yard.callTool("pinned_echo", { text: "pinned" })).text).toBe("pinned");
  });
});
