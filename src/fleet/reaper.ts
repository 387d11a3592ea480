import { type ChildProcess, spawn } from "node:child_process";
import { Socket } from "node:net";
import { DEFAULT_DESCENDANT_POLL_MS } from "../config/defaults.js";

/** The reaper's first argument, followed by this process's pid: `ps` shows it as "switchyard-reaper <pid>". */
export const REAPER_NAME = "switchyard-reaper";

/**
 * The reaper's program, run with `node -e` so that it is the same from `dist` and from `src` and
 * needs no file of its own. argv: REAPER_NAME, the host's pid, the grace period in ms, the host's
 * server tag (descendants.ts), how often to look at the groups' descendants in ms.
 *
 * It reads lines from its stdin — a pipe from the host: `+<pgid>` to watch a process group, `-<pgid>`
 * to forget it, `.` to leave at once (the host has nothing left for it). Otherwise the pipe ends only
 * when the host is gone, however it went (exit, signal, SIGKILL).
 * Then, with nothing to watch, it exits at once; otherwise it sends SIGTERM to every group and to
 * every descendant outside them (Linux: those that carry the host's tag, and those seen below a
 * group while it ran, as descendants.ts finds them — its logic, again, as this script imports
 * nothing), waits up to the grace period for them to go, sends SIGKILL to those still there, and exits.
 */
const REAPER_SCRIPT = String.raw`"use strict";
process.title = process.argv[1] + " " + process.argv[2]; // what ps shows instead of this script
const fs = require("fs");
const graceMs = Number(process.argv[3]) || 1000;
const hostTag = process.argv[4] || "";
const pollMs = Number(process.argv[5]) || 2000;
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
    if (line === ".") process.exit(0);
    const pgid = Number(line.slice(1));
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    if (line[0] === "+") groups.add(pgid);
    else if (line[0] === "-") groups.delete(pgid);
  }
});
// A live process (not a zombie: dead, not yet reaped by its new parent) from /proc/<pid>/stat.
const statOf = (pid) => {
  try {
    const stat = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return undefined;
    return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), start: fields[19] };
  } catch {
    return undefined;
  }
};
// Every live process; undefined without /proc: then a group is there while it can be signalled.
const table = () => {
  let entries;
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return undefined;
  }
  const live = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const found = statOf(Number(entry));
    if (found) live.push(found);
  }
  return live;
};
const tagged = (pid) => {
  if (!hostTag) return false;
  try {
    const environ = fs.readFileSync("/proc/" + pid + "/environ", "latin1");
    const needle = "SWITCHYARD_SERVER_TAG=" + hostTag + ".";
    return environ.startsWith(needle) || environ.includes("\0" + needle);
  } catch {
    return false;
  }
};
// Descendants outside the groups, pid → start time (a pid reused since is not theirs).
const known = new Map();
const record = (byTag) => {
  const live = table();
  if (!live) return;
  const byPid = new Map(live.map((entry) => [entry.pid, entry]));
  for (const [pid, start] of known) if (byPid.get(pid)?.start !== start) known.delete(pid);
  const children = new Map();
  for (const entry of live) children.set(entry.ppid, [...(children.get(entry.ppid) || []), entry]);
  const queue = live.filter((e) => groups.has(e.pgrp) || known.has(e.pid) || (byTag && tagged(e.pid)));
  const seen = new Set();
  for (let entry = queue.pop(); entry; entry = queue.pop()) {
    if (seen.has(entry.pid) || entry.pid === process.pid) continue;
    seen.add(entry.pid);
    if (!groups.has(entry.pgrp)) known.set(entry.pid, entry.start);
    queue.push(...(children.get(entry.pid) || []));
  }
};
const signalKnown = (name) => {
  let signalled = 0;
  for (const [pid, start] of known) {
    if (statOf(pid)?.start !== start) continue;
    try {
      process.kill(pid, name);
      signalled += 1;
    } catch {
      // gone meanwhile
    }
  }
  return signalled;
};
setInterval(() => record(false), pollMs).unref();
let reaping = false;
const reap = () => {
  if (reaping) return;
  reaping = true;
  // Nothing to watch (the host's exit hook ended everything, descendants included): leave at once.
  if (groups.size === 0) process.exit(0);
  record(true);
  for (const pgid of groups) if (!signal(pgid, "SIGTERM")) groups.delete(pgid);
  signalKnown("SIGTERM");
  const deadline = Date.now() + graceMs;
  const check = () => {
    const live = table();
    const liveGroups = live && new Set(live.map((entry) => entry.pgrp));
    for (const pgid of groups) if (liveGroups ? !liveGroups.has(pgid) : !signal(pgid, 0)) groups.delete(pgid);
    for (const [pid, start] of known) if (statOf(pid)?.start !== start) known.delete(pid);
    if ((groups.size > 0 || known.size > 0) && Date.now() < deadline) return void setTimeout(check, 20);
    for (const pgid of groups) signal(pgid, "SIGKILL");
    record(true);
    signalKnown("SIGKILL");
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
   * @param hostTag the part of a server tag that marks this process's servers and their descendants.
   */
  constructor(graceMs: number, hostTag: string) {
    this.#child = spawn(
      process.execPath,
      [
        "-e",
        REAPER_SCRIPT,
        REAPER_NAME,
        String(process.pid),
        String(graceMs),
        hostTag,
        String(DEFAULT_DESCENDANT_POLL_MS),
      ],
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

  /** Nothing left to watch: say so and close the pipe, and the reaper exits at once. */
  leave(): void {
    // Said, not just the pipe closed: a reaper that saw only the end would reap what it was told of,
    // and look for this host's descendants — among them a server starting now, with the next reaper.
    this.#send(".\n");
    this.#alive = false;
    this.#child.stdin?.end();
  }

  #send(line: string): void {
    if (!this.alive) return;
    // Small writes to a pipe go out at once; one still queued when this process dies is lost with it.
    this.#child.stdin?.write(line);
  }
}
