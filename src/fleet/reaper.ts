import { type ChildProcess, spawn } from "node:child_process";
import { Socket } from "node:net";

/** The reaper's first argument, followed by this process's pid: `ps` shows it as "switchyard-reaper <pid>". */
export const REAPER_NAME = "switchyard-reaper";

/**
 * The reaper's program, run with `node -e` so that it is the same from `dist` and from `src` and
 * needs no file of its own. argv: REAPER_NAME, the host's pid, the grace period in ms.
 *
 * It reads lines from its stdin — a pipe from the host: `+<pgid>` to watch a process group, `-<pgid>`
 * to forget it. The pipe ends only when the host is gone, however it went (exit, signal, SIGKILL).
 * Then, with nothing to watch, it exits at once; otherwise it sends SIGTERM to every group, waits up
 * to the grace period for them to go, sends SIGKILL to those still there, and exits.
 */
const REAPER_SCRIPT = String.raw`"use strict";
process.title = process.argv[1] + " " + process.argv[2]; // what ps shows instead of this script
const fs = require("fs");
const graceMs = Number(process.argv[3]) || 1000;
const groups = new Set();
const signal = (pgid, name) => {
  try {
    process.kill(-pgid, name);
    return true;
  } catch {
    return false;
  }
};
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  const lines = (pending + chunk).split("\n");
  pending = lines.pop();
  for (const line of lines) {
    const pgid = Number(line.slice(1));
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    if (line[0] === "+") groups.add(pgid);
    else if (line[0] === "-") groups.delete(pgid);
  }
});
// The groups that still have a live member; a zombie (dead, not yet reaped by its new parent) is not
// one. Undefined without /proc: then a group is there while it can be signalled.
const liveGroups = () => {
  let entries;
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return undefined;
  }
  const live = new Set();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync("/proc/" + entry + "/stat", "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z" && state !== "X") live.add(Number(pgrp));
    } catch {
      // gone meanwhile
    }
  }
  return live;
};
let reaping = false;
const reap = () => {
  if (reaping) return;
  reaping = true;
  for (const pgid of groups) if (!signal(pgid, "SIGTERM")) groups.delete(pgid);
  const deadline = Date.now() + graceMs;
  const check = () => {
    const live = liveGroups();
    for (const pgid of groups) if (live ? !live.has(pgid) : !signal(pgid, 0)) groups.delete(pgid);
    if (groups.size > 0 && Date.now() < deadline) return void setTimeout(check, 20);
    for (const pgid of groups) signal(pgid, "SIGKILL");
    process.exit(0);
  };
  check();
};
process.stdin.on("end", reap);
process.stdin.on("close", reap);
process.stdin.on("error", reap);
`;

/** A running reaper, told about process groups through its stdin. */
export class Reaper {
  readonly #child: ChildProcess;
  #alive = true;

  /**
   * Start a reaper for this process: detached into its own session and process group, so that a
   * signal to this process's group (Ctrl-C, a closed terminal) does not reach it, and unref'd, so
   * that it never keeps this process alive.
   * @param graceMs how long the groups get between SIGTERM and SIGKILL once this process is gone.
   */
  constructor(graceMs: number) {
    this.#child = spawn(
      process.execPath,
      ["-e", REAPER_SCRIPT, REAPER_NAME, String(process.pid), String(graceMs)],
      {
        detached: true,
        // Nothing of this process's: no stdout or stderr a parent may be waiting on, no cwd it holds,
        // no NODE_OPTIONS (an --inspect port, a loader) meant for the host.
        stdio: ["pipe", "ignore", "ignore"],
        cwd: "/",
        env: {},
        windowsHide: true,
      },
    );
    const gone = () => {
      this.#alive = false;
    };
    this.#child.once("error", gone);
    this.#child.once("exit", gone);
    this.#child.stdin?.on("error", gone);
    this.#child.unref();
    if (this.#child.stdin instanceof Socket) this.#child.stdin.unref();
  }

  /** Whether it can still be told things; a reaper that died (someone killed it) is replaced. */
  get alive(): boolean {
    return this.#alive && this.#child.pid !== undefined && !this.#child.stdin?.destroyed;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Have the reaper end this process group once this process is gone. */
  watch(pgid: number): void {
    this.#send(`+${pgid}\n`);
  }

  /** The group has been reaped: the reaper leaves it alone. */
  forget(pgid: number): void {
    this.#send(`-${pgid}\n`);
  }

  /** Nothing left to watch: close the pipe, and the reaper exits at once. */
  leave(): void {
    this.#alive = false;
    this.#child.stdin?.end();
  }

  #send(line: string): void {
    if (!this.alive) return;
    // Small writes to a pipe go out at once; one still queued when this process dies is lost with it.
    this.#child.stdin?.write(line);
  }
}
