import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";

/** While descendants are given their grace period, how often to look whether they are gone. */
const GONE_POLL_MS = 20;

/**
 * The environment variable each server process is started with, `<host tag>.<n>`; what it starts
 * inherits it, setsid or not, so that a server's detached descendants can be found (Linux: /proc).
 */
export const SERVER_TAG_VAR = "SWITCHYARD_SERVER_TAG";
/** This process's part of every server tag: its pid and a random part, so no other host's match. */
export const HOST_TAG = `${process.pid}-${randomBytes(4).toString("hex")}`;

let serial = 0;

/** A tag for a server process about to start. */
export function newServerTag(): string {
  serial += 1;
  return `${HOST_TAG}.${serial}`;
}

/** One live process, as /proc/<pid>/stat says: its parent, its group and when it started (in ticks). */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  start: string;
}

/**
 * Every live process (zombies left out), from /proc; `undefined` where there is none (macOS, Windows):
 * there, nothing is found and only process groups are signalled.
 */
export function processTable(): ProcessEntry[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const table: ProcessEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const parsed = statOf(Number(entry));
    if (parsed) table.push(parsed);
  }
  return table;
}

/**
 * The same as {@link processTable} without blocking the event loop, for the periodic look (a few ms
 * of reads per hundred processes).
 */
export async function processTableLater(): Promise<ProcessEntry[] | undefined> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return undefined;
  }
  const table: ProcessEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => undefined);
    const parsed = stat === undefined ? undefined : parseStat(Number(entry), stat);
    if (parsed) table.push(parsed);
  }
  return table;
}

/** /proc/<pid>/stat's state, ppid, pgrp and start time (field 22); undefined when gone or a zombie. */
function statOf(pid: number): ProcessEntry | undefined {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

function parseStat(pid: number, stat: string): ProcessEntry | undefined {
  // After the command name in parentheses (which may hold spaces): state ppid pgrp session … (field 3 on).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] === "Z" || fields[0] === "X") return undefined;
  return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), start: fields[19]! };
}

/**
 * Whether a process was started with a server tag: `tag` itself, or (`prefix`) any tag that begins
 * `tag.`. A process of another user, whose environment cannot be read, carries none.
 */
function carriesTag(pid: number, tag: string, prefix: boolean): boolean {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return false;
  }
  const needle = `${SERVER_TAG_VAR}=${tag}${prefix ? "." : ""}`;
  for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
    if (at > 0 && environ[at - 1] !== "\0") continue;
    const end = at + needle.length;
    if (prefix || end === environ.length || environ[end] === "\0") return true;
  }
  return false;
}

/**
 * Every live process that descends from `roots` — the roots included — by parent links, as the
 * table shows them now.
 */
function below(table: ProcessEntry[], roots: Iterable<ProcessEntry>): Map<number, ProcessEntry> {
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of table) {
    const siblings = children.get(entry.ppid);
    if (siblings) siblings.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const found = new Map<number, ProcessEntry>();
  const queue = [...roots];
  for (let entry = queue.pop(); entry; entry = queue.pop()) {
    if (found.has(entry.pid) || entry.pid === process.pid) continue;
    found.set(entry.pid, entry);
    queue.push(...(children.get(entry.pid) ?? []));
  }
  return found;
}

/**
 * Send `signal` to each process still alive as the same process (its start time unchanged: its pid
 * not reused meanwhile). Returns how many were signalled.
 */
export function signalEach(entries: Iterable<ProcessEntry>, signal: NodeJS.Signals): number {
  let signalled = 0;
  for (const { pid, start } of entries) {
    if (statOf(pid)?.start !== start) continue;
    try {
      process.kill(pid, signal);
      signalled += 1;
    } catch {
      // gone meanwhile, or not ours to signal
    }
  }
  return signalled;
}

/**
 * A server's descendants, wherever they went: the processes of its group, those that carry its tag
 * (a grandchild that called setsid, or was left to init when its parent died), and every process
 * below one of them. {@link record} looks again and remembers what it finds, each with its start
 * time, so that a descendant seen once is still found after the link to it is gone (its parent died
 * and it was reparented) — even one whose environment was emptied.
 */
export class Descendants {
  readonly #tag: string;
  readonly #pgid: number;
  readonly #known = new Map<number, ProcessEntry>();

  constructor(tag: string, pgid: number) {
    this.#tag = tag;
    this.#pgid = pgid;
  }

  /**
   * Look again: the group's processes, those known already, and (`byTag`, which reads every process's
   * environment) those that carry the tag, with everything below them. Those gone are forgotten.
   */
  record(table = processTable(), byTag = false): void {
    if (!table) return;
    const byPid = new Map(table.map((entry) => [entry.pid, entry]));
    for (const [pid, known] of this.#known) {
      if (byPid.get(pid)?.start !== known.start) this.#known.delete(pid);
    }
    const roots = table.filter(
      (entry) =>
        entry.pgrp === this.#pgid ||
        this.#known.has(entry.pid) ||
        (byTag && carriesTag(entry.pid, this.#tag, false)),
    );
    for (const [pid, entry] of below(table, roots)) this.#known.set(pid, entry);
  }

  /** The descendants known outside the server's process group (which its group signal misses). */
  outside(): ProcessEntry[] {
    return [...this.#known.values()].filter((entry) => entry.pgrp !== this.#pgid);
  }

  /** Look again (by tag too), then signal every descendant outside the group; how many were. */
  signal(signal: NodeJS.Signals): number {
    this.record(processTable(), true);
    return signalEach(this.outside(), signal);
  }

  /**
   * End the descendants outside the group as a server is ended: SIGTERM, then SIGKILL for those still
   * there after `graceMs`. At once when there are none.
   */
  async end(graceMs: number): Promise<void> {
    if (this.signal("SIGTERM") === 0) return;
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && this.outside().some(({ pid, start }) => statOf(pid)?.start === start)) {
      await delay(GONE_POLL_MS);
    }
    this.signal("SIGKILL");
  }
}

/** Every process in the table that carries one of this host's tags, and everything below one of them. */
export function hostDescendants(table: ProcessEntry[]): ProcessEntry[] {
  const tagged = table.filter((entry) => carriesTag(entry.pid, HOST_TAG, true));
  return [...below(table, tagged).values()];
}
