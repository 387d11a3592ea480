// The wire messages of runs, read from a `--trace-wire` file (JSON lines of `WireRecord`s, each request
// and its answer tagged with the run and call it was made for). The store does not keep wire messages;
// the viewer reads the file it is given (`switchyard ui --trace <file>`), as it grows.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import type { WireRecord } from "../telemetry/wire-trace.js";

/** Bytes read from the file at a time. */
const CHUNK_BYTES = 1 << 20;

/** A wire trace file, indexed by run as it is read; reads only what was appended since the last look. */
export class WireTraceFile {
  readonly path: string;
  readonly #byRun = new Map<string, WireRecord[]>();
  #offset = 0;
  #rest = "";
  /** Keeps a character cut between two reads whole. */
  #decoder = new StringDecoder("utf8");
  /** Lines that were not JSON wire records (a trace written by something else, a torn last line). */
  skipped = 0;

  constructor(path: string) {
    this.path = path;
  }

  /** The wire records of one run, in the order they were written. */
  forRun(runId: string): WireRecord[] {
    this.#catchUp();
    return this.#byRun.get(runId) ?? [];
  }

  #catchUp(): void {
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return; // not written yet
    }
    if (size < this.#offset) {
      // The file was replaced or cut: read it again from the start.
      this.#byRun.clear();
      this.#offset = 0;
      this.#rest = "";
      this.#decoder = new StringDecoder("utf8");
    }
    if (size === this.#offset) return;
    const fd = openSync(this.path, "r");
    try {
      const buffer = Buffer.alloc(CHUNK_BYTES);
      while (this.#offset < size) {
        const read = readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, size - this.#offset), this.#offset);
        if (read === 0) break;
        this.#offset += read;
        const text = this.#rest + this.#decoder.write(buffer.subarray(0, read));
        const lines = text.split("\n");
        this.#rest = lines.pop() ?? "";
        for (const line of lines) this.#add(line);
      }
    } finally {
      closeSync(fd);
    }
  }

  #add(line: string): void {
    if (line.trim() === "") return;
    let record: WireRecord;
    try {
      record = JSON.parse(line) as WireRecord;
    } catch {
      this.skipped += 1;
      return;
    }
    if (typeof record !== "object" || record === null || typeof record.runId !== "string") return;
    let list = this.#byRun.get(record.runId);
    if (!list) {
      list = [];
      this.#byRun.set(record.runId, list);
    }
    list.push(record);
  }
}
