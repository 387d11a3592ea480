import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  deathTimes,
  fleetFile,
  MARKER_VAR,
  marked,
  newMarker,
  reapersOf,
  startHost,
} from "../fleet/hosts.js";
import { isAlive, ROOT, waitFor } from "../helpers.js";
import { DATA_DIR } from "./fleet.js";

// A host-style launch: test/fixtures/gateway-host.mjs starts `switchyard serve --stdio` (from dist/:
// `npm run build` first) as Claude Desktop does, over the example fleet, with calls in flight; then the
// host dies, or the gateway is stopped, and /proc must hold nothing of it: not the gateway, not one
// server, not a grandchild, not the reaper.

const GATEWAY_HOST = `${ROOT}test/fixtures/gateway-host.mjs`;
const EXAMPLES = path.join(ROOT, "examples");

/** The example fleet (examples/fleet.json) with absolute paths, every server carrying `marker`. */
function exampleFleet(marker: string): string {
  const { mcpServers } = JSON.parse(readFileSync(path.join(EXAMPLES, "fleet.json"), "utf8")) as {
    mcpServers: Record<string, { args: string[]; env?: Record<string, string> }>;
  };
  const servers = Object.fromEntries(
    Object.entries(mcpServers).map(([name, server]) => [
      name,
      {
        ...server,
        args: server.args.map((arg) => (/\.(mjs|py)$/.test(arg) ? path.join(EXAMPLES, arg) : arg)),
        env: { ...server.env, [MARKER_VAR]: marker },
      },
    ]),
  );
  return fleetFile(servers);
}

/** A host with the gateway up and a call in flight on every kind of example server. */
async function hostWithCalls(marker: string) {
  const host = startHost(
    [
      GATEWAY_HOST,
      exampleFleet(marker),
      ...["--call", "orders_query_recent_orders", '{"customer_id":"C10001"}'],
      ...["--call", "hasher_hash_text", '{"text":"in flight"}'],
    ],
    { [MARKER_VAR]: marker, SWITCHYARD_DATA_DIR: DATA_DIR },
  );
  await waitFor(() => host.stdout().includes("calling"), 60_000, "the host to start the gateway and call");
  const gateway = (JSON.parse(host.stdout().split("\n")[0]!) as { gateway: number; tools: number }).gateway;
  // Every example server is up (each carries the marker), and so is the gateway (it does too).
  await waitFor(() => marked(marker).length >= 7, 10_000, "the example servers to start");
  const reapers = reapersOf(gateway);
  expect(reapers).toHaveLength(1);
  return { host, gateway, reaper: reapers[0]! };
}

/**
 * Everything the host started must be gone: the gateway, its servers and their children, the reaper
 * (`host`: a host still alive, which carries the marker too).
 */
async function expectNothingLeft(marker: string, pids: Record<string, number>, host?: number) {
  const times = await deathTimes(pids, performance.now(), 10_000);
  const left = () => marked(marker).filter((pid) => pid !== host);
  await waitFor(() => left().length === 0, 10_000, "every marked process to end");
  expect(left()).toEqual([]);
  expect(Object.values(pids).filter(isAlive)).toEqual([]);
  return times;
}

describe("switchyard serve --stdio leaves nothing behind when its host goes", () => {
  it("the host is SIGKILLed with calls in flight: the gateway (stdin closed), every server and the reaper end", async () => {
    const marker = newMarker("gateway-host-sigkill");
    const { host, gateway, reaper } = await hostWithCalls(marker);
    host.child.kill("SIGKILL");
    const times = await expectNothingLeft(marker, { gateway, reaper });
    console.info(`after SIGKILL of the host, gone after (ms): ${JSON.stringify(times)}`);
  });

  it("the host is SIGTERMed (it has no handler: it dies as from SIGKILL): the same", async () => {
    const marker = newMarker("gateway-host-sigterm");
    const { host, gateway, reaper } = await hostWithCalls(marker);
    host.child.kill("SIGTERM");
    await expectNothingLeft(marker, { gateway, reaper });
  });

  it("the gateway itself is SIGKILLed: the reaper ends every server", async () => {
    const marker = newMarker("gateway-sigkill");
    const { host, gateway, reaper } = await hostWithCalls(marker);
    process.kill(gateway, "SIGKILL");
    await expectNothingLeft(marker, { gateway, reaper }, host.child.pid);
    host.child.kill("SIGKILL");
  });

  it("the gateway is SIGTERMed (a host closing it): it closes its servers and exits", async () => {
    const marker = newMarker("gateway-sigterm");
    const { host, gateway, reaper } = await hostWithCalls(marker);
    process.kill(gateway, "SIGTERM");
    await expectNothingLeft(marker, { gateway, reaper }, host.child.pid);
    expect(host.stderr()).not.toContain("internal error");
    host.child.kill("SIGKILL");
  });
});
