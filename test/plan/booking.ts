// The booking fixture (test/fixtures/booking-server.mjs) as a config entry, and what it was asked.
import { readFileSync } from "node:fs";
import { NODE, ROOT } from "../helpers.js";

const BOOKING = `${ROOT}test/fixtures/booking-server.mjs`;

/** A booking server that logs every call to `log` (and fails its first charge when `failOnce` exists). */
export function booking(log: string, failOnce?: string) {
  return { command: NODE, args: [BOOKING, "--log", log, ...(failOnce ? ["--fail-once", failOnce] : [])] };
}

/** What the server was asked, in order. */
export function asked(log: string): Array<{ tool: string; args: Record<string, unknown> }> {
  let text = "";
  try {
    text = readFileSync(log, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
