import { closeSync, openSync, writeSync } from "node:fs";

/** Which way a JSON-RPC message went. */
export type WireDirection = "to-server" | "from-server";

/** One raw JSON-RPC message as it crossed a server's transport. */
export interface WireRecord {
  server: string;
  direction: WireDirection;
  /** ISO 8601 timestamp. */
  time: string;
  /** The run and call a request (or its answer) belongs to, when it was made through a call. */
  runId?: string;
  callId?: string;
  message: unknown;
}

/** Receives every wire record; must not throw. */
export type WireSink = (record: WireRecord) => void;

/** A sink with an owner: `close()` flushes and releases the file. */
export interface WireTraceWriter {
  sink: WireSink;
  close(): void;
}

/**
 * Write wire records as JSON lines to a file (appended) or to stdout (`-`), synchronously so that the
 * trace is complete even when the process dies.
 */
export function openWireTrace(target: string): WireTraceWriter {
  const fd = target === "-" ? 1 : openSync(target, "a");
  let open = true;
  return {
    sink(record) {
      if (open) writeSync(fd, `${JSON.stringify(record)}\n`);
    },
    close() {
      if (!open) return;
      open = false;
      if (fd !== 1) closeSync(fd);
    },
  };
}
