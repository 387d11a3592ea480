import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { isAlive, ROOT, raw, waitFor } from "../helpers.js";
import {
  CALL_HOST,
  connectedLine,
  deathTimes,
  fleetFile,
  grandchildrenIn,
  marked,
  markedServers,
  newMarker,
  reapersOf,
  startHost,
} from "./hosts.js";

// These tests run test/fixtures/call-host.mjs, which uses the built library (dist): `npm run build` first.

describe("the reaper: no server outlives its host", () => {
  it("a SIGKILLed host takes every server with it, calls in flight: busy stdio, launched HTTP, grandchildren", async () => {
    const marker = newMarker("sigkill");
    const { busy, wrapper, hasher, http } = markedServers(marker);
    const file = fleetFile({ busy, wrapper, hasher, http });
    const host = startHost([
      CALL_HOST,
      file,
      ...["--call", "busy_spin", '{"ms":60000}'],
      ...["--call", "wrapper_sleep", '{"ms":60000}'],
      ...["--call", "http_sleep", '{"ms":60000}'],
    ]);
    await waitFor(() => host.stdout().includes("calling"), 15_000, "the host to connect and call");
    await waitFor(() => host.stderr().includes("spinning 60000"), 5_000, "the busy server to start spinning");
    const { servers } = connectedLine(host)!;
    const [grandchild] = grandchildrenIn(host.stderr());
    const pids = { ...servers, grandchild: grandchild! };
    expect(Object.values(pids).every(isAlive)).toBe(true);
    expect(marked(marker).sort()).toEqual(Object.values(pids).sort());
    const reapers = reapersOf(host.child.pid!);

    host.child.kill("SIGKILL");
    const killed = performance.now();
    const times = await deathTimes({ ...pids, reaper: reapers[0] ?? -1 }, killed);
    console.info(`after SIGKILL of the host, gone after (ms): ${JSON.stringify(times)}`);
    expect(marked(marker)).toEqual([]);
    expect(reapers).toHaveLength(1);
    expect(times.reaper).toBeDefined();
    await host.exited;
  });

  it("the same from src (the library under tsx): the reaper needs no build", async () => {
    const marker = newMarker("sigkill-src");
    const { wrapper, hasher } = markedServers(marker);
    const host = startHost(
      [
        "--import",
        "tsx",
        CALL_HOST,
        fleetFile({ wrapper, hasher }),
        "--call",
        "wrapper_sleep",
        '{"ms":60000}',
      ],
      { CALL_HOST_LIBRARY: `${ROOT}src/index.ts` },
    );
    await waitFor(() => host.stdout().includes("calling"), 20_000, "the host to connect and call");
    await waitFor(() => grandchildrenIn(host.stderr()).length === 1, 5_000, "the wrapper's grandchild");
    const { servers } = connectedLine(host)!;
    const pids = { ...servers, grandchild: grandchildrenIn(host.stderr())[0]! };
    const reapers = reapersOf(host.child.pid!);
    host.child.kill("SIGKILL");
    const times = await deathTimes({ ...pids, reaper: reapers[0] ?? -1 }, performance.now());
    console.info(`after SIGKILL of a host running src, gone after (ms): ${JSON.stringify(times)}`);
    expect(marked(marker)).toEqual([]);
    expect(reapers).toHaveLength(1);
  });

  it("a server that ignores SIGTERM gets SIGKILL once the grace period has passed", async () => {
    const marker = newMarker("stubborn");
    const { stubborn } = markedServers(marker);
    const host = startHost([CALL_HOST, fleetFile({ stubborn }), "--call", "stubborn_sleep", '{"ms":60000}']);
    await waitFor(() => host.stdout().includes("calling"), 15_000, "the host to connect and call");
    const { servers } = connectedLine(host)!;
    const reapers = reapersOf(host.child.pid!);
    host.child.kill("SIGKILL");
    const killed = performance.now();
    const times = await deathTimes({ ...servers, reaper: reapers[0] ?? -1 }, killed);
    console.info(`after SIGKILL of the host, gone after (ms): ${JSON.stringify(times)}`);
    expect(marked(marker)).toEqual([]);
    expect(times.stubborn).toBeGreaterThanOrEqual(900); // SIGTERM first, then the grace period (1 s)
    expect(reapers).toHaveLength(1);
  });

  it("the reaper lives while servers do: it comes with the first and leaves with the last", async () => {
    expect(reapersOf(process.pid)).toEqual([]);
    const yard = await Switchyard.connect({ mcpServers: { a: raw(), b: raw() } });
    // /proc can lag a moment on a loaded machine (the reaper's command line not yet rewritten).
    await waitFor(() => reapersOf(process.pid).length > 0, 2_000, "the reaper");
    const reapers = reapersOf(process.pid);
    expect(reapers).toHaveLength(1);
    await yard.close();
    await waitFor(() => !reapers.some(isAlive), 2_000, "the reaper to leave");
    const again = await Switchyard.connect({ mcpServers: { a: raw() } });
    // /proc can lag a moment on a loaded machine, and a reaper that is still starting (its command line
    // being rewritten) may not match for an instant: the new reaper shows within the wait, and stays alone.
    await waitFor(() => reapersOf(process.pid).length === 1, 2_000, "a new reaper");
    await delay(300);
    expect(reapersOf(process.pid)).toHaveLength(1);
    await again.close();
    await waitFor(() => reapersOf(process.pid).length === 0, 2_000, "the second reaper to leave");
  });

  for (const close of [false, true]) {
    const how = close ? "after close()" : "without close(), its servers still running";
    it(`the reaper leaves at once when the host exits normally ${how}`, async () => {
      const marker = newMarker("normal");
      const { wrapper, quiet } = markedServers(marker);
      const file = fleetFile({ wrapper, quiet });
      const host = startHost([
        CALL_HOST,
        file,
        // A call that lasts longer than the wait for the reaper below: the host cannot exit (and its reaper
        // leave) before the test has seen the reaper, however slow the machine.
        ...["--call", "wrapper_sleep", '{"ms":4000}'],
        close ? "--close" : "--await",
      ]);
      await waitFor(() => host.stdout().includes("calling"), 15_000, "the host to connect and call");
      // /proc can lag a moment on a loaded machine (the reaper not yet exec'd): it shows within the wait.
      await waitFor(() => reapersOf(host.child.pid!).length > 0, 3_000, "the host's reaper");
      const reapers = reapersOf(host.child.pid!);
      expect(reapers).toHaveLength(1);
      const exit = await host.exited;
      expect(exit.code).toBe(0);
      expect(host.stdout()).toContain(close ? "closed" : "done");
      const times = await deathTimes({ reaper: reapers[0]! }, exit.at, 2_000);
      console.info(`after a normal exit of the host ${how}, the reaper was gone after ${times.reaper} ms`);
      expect(times.reaper).toBeLessThan(900); // not the 1 s grace period: it had nothing left to end
      await waitFor(() => marked(marker).length === 0, 2_000, "the servers to end");
    });
  }
});
