import { DEFAULT_SHUTDOWN_GRACE_MS } from "../config/defaults.js";
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
 */
const live = new Set<number>();
let hooked = false;
let reaper: Reaper | undefined;

/** Remember a server's process group (its leader's pid) so that it dies with this process. */
export function trackProcessGroup(pid: number): void {
  live.add(pid);
  if (!hooked) {
    hooked = true;
    process.once("exit", killAll);
  }
  if (reaper?.alive) reaper.watch(pid);
  else startReaper();
}

/** Forget a group that has been reaped; with the last one, the reaper leaves too (until the next). */
export function untrackProcessGroup(pid: number): void {
  live.delete(pid);
  if (live.size > 0) reaper?.forget(pid);
  else {
    reaper?.leave();
    reaper = undefined;
  }
}

/** Start a reaper (the first, or one to replace a reaper that died) and tell it every live group. */
function startReaper(): void {
  if (process.platform === "win32") return; // no process groups to signal
  try {
    reaper = new Reaper(DEFAULT_SHUTDOWN_GRACE_MS);
  } catch {
    reaper = undefined; // cannot spawn (out of processes or memory): the exit hook still covers exits
    return;
  }
  for (const pid of live) reaper.watch(pid);
}

function killAll(): void {
  for (const pid of live) {
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
