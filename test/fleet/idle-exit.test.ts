import { describe, expect, it } from "vitest";
import { isAlive, waitFor } from "../helpers.js";
import {
  CALL_HOST,
  connectedLine,
  fleetFile,
  grandchildrenIn,
  marked,
  markedServers,
  newMarker,
  reapersOf,
  startHost,
} from "./hosts.js";

// These tests run test/fixtures/call-host.mjs, which uses the built library (dist): `npm run build` first.

/** How long a script that is done may take to exit by itself. */
const EXIT_WITHIN_MS = 5_000;

async function exitsWithin(host: ReturnType<typeof startHost>, ms: number) {
  const timer = setTimeout(() => host.child.kill("SIGKILL"), ms);
  const exit = await host.exited;
  clearTimeout(timer);
  return exit;
}

describe("idle connections do not keep the process alive", () => {
  it("a script that forgets close() exits by itself after its calls, and leaves no server behind", async () => {
    const marker = newMarker("idle");
    const { wrapper, quiet } = markedServers(marker);
    const file = fleetFile({ wrapper, quiet });
    const host = startHost([
      CALL_HOST,
      file,
      ...["--call", "wrapper_echo", '{"text":"hi"}'],
      ...["--call", "quiet_echo", '{"text":"hi"}'],
      "--await",
    ]);
    await waitFor(() => host.stdout().includes("done"), 15_000, "the calls to be answered");
    const done = performance.now();
    await waitFor(() => grandchildrenIn(host.stderr()).length === 1, 2_000, "the wrapper's grandchild");
    const pids = [...Object.values(connectedLine(host)!.servers), ...grandchildrenIn(host.stderr())];
    const reapers = reapersOf(host.child.pid!);
    expect(host.stderr()).not.toContain("calls failed");

    const exit = await exitsWithin(host, EXIT_WITHIN_MS);
    console.info(`the script exited by itself ${Math.round(exit.at - done)} ms after its calls were done`);
    expect(exit).toMatchObject({ code: 0, signal: null });
    await waitFor(() => !pids.some(isAlive), 5_000, "the servers to end");
    expect(marked(marker)).toEqual([]);
    await waitFor(() => !reapers.some(isAlive), 2_000, "the reaper to leave");
  });

  it("an idle server on the newest protocol (its subscriptions/listen stays open) does not hold the process", async () => {
    const marker = newMarker("idle-listen");
    const { sdk } = markedServers(marker);
    const host = startHost([CALL_HOST, fleetFile({ sdk }), "--call", "sdk_echo", '{"text":"hi"}', "--await"]);
    await waitFor(() => host.stdout().includes("done"), 15_000, "the call to be answered");
    expect(host.stderr()).not.toContain("calls failed");
    // The listen subscription exists only in this era.
    expect(connectedLine(host)!.protocols.sdk).toBe("2026-07-28");
    const exit = await exitsWithin(host, EXIT_WITHIN_MS);
    expect(exit).toMatchObject({ code: 0, signal: null });
    await waitFor(() => marked(marker).length === 0, 5_000, "the server to end");
  });

  it("a call in flight holds the process until it is answered", async () => {
    const marker = newMarker("busy-hold");
    const { wrapper, quiet } = markedServers(marker);
    const host = startHost([
      CALL_HOST,
      fleetFile({ wrapper, quiet }),
      ...["--call", "wrapper_sleep", '{"ms":1500}'],
      "--await",
    ]);
    await waitFor(() => host.stdout().includes("calling"), 15_000, "the host to call");
    const calling = performance.now();
    const exit = await exitsWithin(host, 1_500 + EXIT_WITHIN_MS);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(host.stdout()).toContain("done");
    expect(host.stderr()).not.toContain("calls failed");
    expect(exit.at - calling).toBeGreaterThanOrEqual(1_400);
    await waitFor(() => marked(marker).length === 0, 5_000, "the servers to end");
  });
});
