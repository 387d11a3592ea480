import { DEFAULT_DESCENDANT_POLL_MS, DEFAULT_SHUTDOWN_GRACE_MS } from "../config/defaults.js";
import {
  type Descendants,
  HOST_TAG,
  hostDescendants,
  processTable,
  processTableLater,
  signalEach,
} from "./descendants.js";
import { Reaper } from "./reaper.js";

/**
 * Every server process group this process has started and not yet reaped, ended however this
 * process ends:
 *
 * - when it exits — normally, through `process.exit()`, or from an uncaught error — an `exit` hook
 *   kills the groups still alive at once;
 * - when it dies in a way no hook sees — SIGKILL, or a signal it has no handler for (Ctrl-C in a
 *   script, a closed terminal) — the {@link Reaper}, a small process started with the first group
 *   and detached from this one, sees its pipe from this process close, and ends every group it was
 *   told about: SIGTERM, then SIGKILL after a grace period. It lives while groups do: once the last
 *   one is reaped it leaves, so that a host with no servers has no child process either.
 *
 * Both also end each server's descendants outside its group (a grandchild that called setsid), found
 * on Linux by the tag they inherit and by parent links (see descendants.ts): those links are looked
 * at every `DEFAULT_DESCENDANT_POLL_MS` while servers run, so a descendant seen once is still known
 * after its parent is gone.
 */
const live = new Map<number, Descendants | undefined>();
let hooked = false;
let reaper: Reaper | undefined;
let poll: NodeJS.Timeout | undefined;

/** Remember a server's process group (its leader's pid) so that it dies with this process, its descendants too. */
export function trackProcessGroup(pid: number, descendants?: Descendants): void {
  live.set(pid, descendants);
  if (!hooked) {
    hooked = true;
    process.once("exit", killAll);
  }
  if (reaper?.alive) reaper.watch(pid);
  else startReaper();
  if (!poll && descendants && process.platform === "linux") {
    poll = setInterval(recordDescendants, DEFAULT_DESCENDANT_POLL_MS);
    poll.unref();
  }
}

/** Forget a group that has been reaped; with the last one, the reaper leaves too (until the next). */
export function untrackProcessGroup(pid: number): void {
  live.delete(pid);
  if (live.size > 0) reaper?.forget(pid);
  else {
    reaper?.leave();
    reaper = undefined;
    clearInterval(poll);
    poll = undefined;
  }
}

let looking = false;

/** Look at every live server's descendants again: one read of /proc for all, one at a time, not blocking. */
function recordDescendants(): void {
  if (looking) return;
  looking = true;
  void processTableLater()
    .then((table) => {
      for (const descendants of live.values()) descendants?.record(table);
    })
    .finally(() => {
      looking = false;
    });
}

/** Start a reaper (the first, or one to replace a reaper that died) and tell it every live group. */
function startReaper(): void {
  if (process.platform === "win32") return; // no process groups to signal
  try {
    reaper = new Reaper(DEFAULT_SHUTDOWN_GRACE_MS, HOST_TAG);
  } catch {
    reaper = undefined; // cannot spawn (out of processes or memory): the exit hook still covers exits
    return;
  }
  for (const pid of live.keys()) reaper.watch(pid);
}

function killAll(): void {
  // Before the groups go (their members are the links to what they started): every descendant known.
  const table = processTable();
  const doomed = table ? hostDescendants(table) : [];
  for (const descendants of live.values()) {
    descendants?.record(table);
    doomed.push(...(descendants?.outside() ?? []));
  }
  signalEach(doomed, "SIGKILL");
  for (const pid of live.keys()) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
    // Killed already: the reaper, seeing nothing left to watch, exits as soon as this process does.
    reaper?.forget(pid);
  }
  live.clear();
}
