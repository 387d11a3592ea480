import { describe, expect, it } from "vitest";
import { CLI, isAlive, waitFor } from "../helpers.js";
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

// These tests run the built CLI and test/fixtures/call-host.mjs (which uses dist): `npm run build` first.

describe("signals", () => {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    it(`a script with no handler of its own dies of ${signal} as before, and takes its servers with it`, async () => {
      const marker = newMarker(signal);
      const { wrapper, hasher } = markedServers(marker);
      const file = fleetFile({ wrapper, hasher });
      const host = startHost([CALL_HOST, file, "--call", "wrapper_sleep", '{"ms":60000}']);
      await waitFor(() => host.stdout().includes("calling"), 15_000, "the host to connect and call");
      await waitFor(() => grandchildrenIn(host.stderr()).length === 1, 5_000, "the wrapper's grandchild");
      const { servers } = connectedLine(host)!;
      const pids = { ...servers, grandchild: grandchildrenIn(host.stderr())[0]! };
      expect(Object.values(pids).every(isAlive)).toBe(true);
      const reapers = reapersOf(host.child.pid!);

      host.child.kill(signal);
      const exit = await host.exited;
      expect(exit).toMatchObject({ code: null, signal }); // the library changed nothing about the signal
      const times = await deathTimes(pids, exit.at);
      console.info(`after ${signal} of a script, gone after (ms): ${JSON.stringify(times)}`);
      expect(marked(marker)).toEqual([]);
      expect(reapers).toHaveLength(1);
      await waitFor(() => !reapers.some(isAlive), 5_000, "the reaper to leave");
    });
  }

  it("the CLI handles SIGHUP (a closed terminal) like SIGTERM: servers closed, exit code 129", async () => {
    const marker = newMarker("cli-sighup");
    const { wrapper, hasher } = markedServers(marker);
    // `call` starts only the tool's server when its name says which; without a namespace it cannot
    // tell, so the whole fleet runs (the launched HTTP server included).
    const file = fleetFile({ wrapper: { ...wrapper, namespace: false }, hasher });
    const cli = startHost([CLI, "--config", file, "--log-level", "debug", "call", "sleep", '{"ms":60000}']);
    await waitFor(() => marked(marker).length === 3, 15_000, "the servers and the grandchild");
    await waitFor(() => /"connected"|connected/.test(cli.stderr()), 5_000, "the fleet to connect");
    const all = marked(marker);

    cli.child.kill("SIGHUP");
    const exit = await cli.exited;
    expect(exit).toMatchObject({ code: 129, signal: null });
    await waitFor(() => all.every((pid) => !isAlive(pid)), 5_000, "every server process to end");
  });
});
