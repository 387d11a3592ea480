/**
 * Every server process group this process has started and not yet reaped. When this process exits —
 * normally, through `process.exit()`, or from an uncaught error — the groups still alive are killed,
 * so no server outlives its client. (A SIGKILL of this process cannot be caught; the servers then see
 * their stdin close, which is the spec's signal to exit.)
 */
const live = new Set<number>();
let hooked = false;

/** Remember a server's process group (its leader's pid) so that it dies with this process. */
export function trackProcessGroup(pid: number): void {
  live.add(pid);
  if (!hooked) {
    hooked = true;
    process.once("exit", killAll);
  }
}

/** Forget a group that has been reaped. */
export function untrackProcessGroup(pid: number): void {
  live.delete(pid);
}

function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}
