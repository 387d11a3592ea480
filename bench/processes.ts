// Waiting for the machine to be quiet between measurements: no child process of this one still
// starting or dying, and a collected heap.
import { readdirSync, readFileSync } from "node:fs";

/** Process ids of this process's children (Linux; empty where /proc cannot tell). */
export function childPids(): number[] {
  const pids: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${process.pid}/task`)) {
      const text = readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8").trim();
      if (text) pids.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // not Linux, or no children file: settle() then only waits a moment
  }
  return pids;
}

const SETTLE_POLL_MS = 20;
const SETTLE_TIMEOUT_MS = 5_000;
const SETTLE_PAUSE_MS = 50;

/**
 * Resolve once no child process is left except `keep` (servers a scenario keeps running), after a
 * short pause and a garbage collection (when run with --expose-gc), so one client's teardown does not
 * land in the next client's measurement. Resolves with the children still left over after 5 s (a
 * client that does not stop its servers), which the caller reports.
 */
export async function settle(keep: readonly number[] = []): Promise<number[]> {
  const started = performance.now();
  const extra = () => childPids().filter((pid) => !keep.includes(pid));
  while (extra().length > 0 && performance.now() - started < SETTLE_TIMEOUT_MS) await sleep(SETTLE_POLL_MS);
  await sleep(SETTLE_PAUSE_MS);
  collectGarbage();
  return extra();
}

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
