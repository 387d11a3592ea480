import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it, onTestFinished } from "vitest";
import { DEFAULT_DESCENDANT_POLL_MS } from "../../src/config/defaults.js";
import { Switchyard } from "../../src/index.js";
import { isAlive, NODE, ROOT, waitFor } from "../helpers.js";
import {
  CALL_HOST,
  connectedLine,
  deathTimes,
  fleetFile,
  MARKER_VAR,
  marked,
  newMarker,
  reapersOf,
  startHost,
} from "./hosts.js";

// A server's grandchild that calls setsid leaves the server's process group: signalling the group
// misses it. These tests run test/fixtures/wedged-server.mjs with --detach (the grandchild keeps its
// environment) or --detach-bare (an empty one); it ignores SIGTERM and SIGHUP. The host tests use the
// built library (dist): `npm run build` first.

const WEDGED_SERVER = `${ROOT}test/fixtures/wedged-server.mjs`;

/** A server entry whose detached grandchild writes its pid to the returned file. */
function detaching(flag: "--detach" | "--detach-bare" | "--detach-orphan", env: Record<string, string> = {}) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-detached-")), "grandchild.pid");
  return { entry: { command: NODE, args: [WEDGED_SERVER, flag, file], env }, file };
}

/** The grandchild's pid, once it has written it; alive, unless `mayHaveEnded` (its host may be gone already). */
async function grandchildOf(file: string, mayHaveEnded = false): Promise<number> {
  await waitFor(() => existsSync(file) && readFileSync(file, "utf8") !== "", 10_000, "the grandchild's pid");
  const pid = Number(readFileSync(file, "utf8"));
  if (!mayHaveEnded) expect(isAlive(pid)).toBe(true);
  return pid;
}

describe("detached grandchildren do not outlive the fleet (Linux)", () => {
  it("close() ends a grandchild that called setsid, with its environment or without", async () => {
    const kept = detaching("--detach");
    const bare = detaching("--detach-bare");
    const yard = await Switchyard.connect({ mcpServers: { kept: kept.entry, bare: bare.entry } });
    const pids = [await grandchildOf(kept.file), await grandchildOf(bare.file)];
    await yard.close();
    await waitFor(() => !pids.some(isAlive), 5_000, "the detached grandchildren to end");
  });

  it("close() ends one with an empty environment whose parent died, left to init: it was seen while it had one", async () => {
    const orphan = detaching("--detach-orphan");
    await using yard = await Switchyard.connect({ mcpServers: { w: orphan.entry } });
    const pid = await grandchildOf(orphan.file);
    // Its parent lives 5 s: looks at the parent links (every 2 s) see it meanwhile. Then it is left to init.
    const parentOf = () => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
    const parent = parentOf();
    await waitFor(() => !isAlive(pid) || parentOf() !== parent, 15_000, "the grandchild's parent to exit");
    expect(isAlive(pid)).toBe(true);
    await yard.close();
    await waitFor(() => !isAlive(pid), 5_000, "the orphaned grandchild to end");
  });

  it("a restart ends the old life's grandchild, the fleet still running", async () => {
    const kept = detaching("--detach");
    await using yard = await Switchyard.connect({
      mcpServers: { w: { ...kept.entry, restart: { maxRestarts: 3, backoffMs: 50 } } },
    });
    const pid = await grandchildOf(kept.file);
    const wedging = yard.callTool("w_wedge", { how: "close-stdout" }).catch(() => undefined);
    await waitFor(() => yard.servers()[0]!.restarts > 0, 10_000, "the restart");
    await wedging;
    await waitFor(() => !isAlive(pid), 5_000, "the old grandchild to end");
  });

  it("a SIGKILLed host's reaper ends them: by the tag they inherit, at once", async () => {
    const marker = newMarker("detached-sigkill");
    const kept = detaching("--detach", { [MARKER_VAR]: marker });
    const host = startHost([CALL_HOST, fleetFile({ w: kept.entry })]);
    onTestFinished(() => void host.child.kill("SIGKILL")); // a host left by a failure takes its servers with it
    await waitFor(() => host.stdout().includes("calling"), 20_000, "the host to connect");
    const { servers } = connectedLine(host)!;
    const pids = { server: servers.w!, grandchild: await grandchildOf(kept.file) };
    const reapers = reapersOf(host.child.pid!);
    host.child.kill("SIGKILL");
    const times = await deathTimes({ ...pids, reaper: reapers[0] ?? -1 }, performance.now());
    console.info(`after SIGKILL of the host, gone after (ms): ${JSON.stringify(times)}`);
    expect(Object.values(pids).filter(isAlive)).toEqual([]);
    expect(marked(marker)).toEqual([]);
    expect(reapers).toHaveLength(1);
    await host.exited;
  }, 60_000);

  it("a SIGKILLed host's reaper ends them: with an empty environment, once it has seen them", async () => {
    const bare = detaching("--detach-bare");
    const host = startHost([CALL_HOST, fleetFile({ w: bare.entry })]);
    onTestFinished(() => void host.child.kill("SIGKILL"));
    await waitFor(() => host.stdout().includes("calling"), 20_000, "the host to connect");
    const { servers } = connectedLine(host)!;
    const pids = { server: servers.w!, grandchild: await grandchildOf(bare.file) };
    const reapers = reapersOf(host.child.pid!);
    // The server exits as soon as its stdin closes with the host, leaving the grandchild to init:
    // only a look at the parent links while it ran (every 2 s) ties the grandchild to it.
    await delay(2.5 * DEFAULT_DESCENDANT_POLL_MS);
    host.child.kill("SIGKILL");
    const times = await deathTimes({ ...pids, reaper: reapers[0] ?? -1 }, performance.now());
    console.info(`after SIGKILL of the host, gone after (ms): ${JSON.stringify(times)}`);
    expect(Object.values(pids).filter(isAlive)).toEqual([]);
    await host.exited;
  }, 60_000);

  it("a host that exits without close() ends them from its exit hook", async () => {
    const kept = detaching("--detach");
    const host = startHost([CALL_HOST, fleetFile({ w: kept.entry }), "--await"]);
    onTestFinished(() => void host.child.kill("SIGKILL"));
    // The server answers only once its grandchild runs (--detach waits for the pid file), so the grandchild
    // was alive while the host was; the host, with no calls, may have exited and ended it already.
    const pid = await grandchildOf(kept.file, true);
    expect((await host.exited).code).toBe(0);
    await waitFor(() => !isAlive(pid), 5_000, "the detached grandchild to end");
  }, 60_000);
});
