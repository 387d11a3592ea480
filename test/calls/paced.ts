// Two paced servers (test/fixtures/paced-server.mjs) sharing one log: what a fleet-wide cap and
// priorities did, read from the servers' side — when each call started and ended, in the order it happened.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { NODE, ROOT } from "../helpers.js";

const PACED = `${ROOT}test/fixtures/paced-server.mjs`;

/** Two paced servers, `a` and `b`, logging to one fresh file. */
export function pacedFleet(extra: Record<string, unknown> = {}): {
  log: string;
  config: Record<string, unknown>;
} {
  const log = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-fleet-limit-")), "calls.log");
  writeFileSync(log, "");
  const server = (name: string) => ({ command: NODE, args: [PACED, "--name", name, "--log", log] });
  return { log, config: { mcpServers: { a: server("a"), b: server("b") }, ...extra } };
}

/** The log's lines, as [event, server, label]. */
export function logged(log: string): Array<[string, string, string]> {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" ") as [string, string, string]);
}

/** The most calls ever in flight at once over every server, from the log's order. */
export function mostInFlight(log: string): number {
  let now = 0;
  let most = 0;
  for (const [event] of logged(log)) {
    now += event === "start" ? 1 : -1;
    most = Math.max(most, now);
  }
  return most;
}

/** Labels in the order their calls reached a server. */
export function arrivals(log: string): string[] {
  return logged(log)
    .filter(([event]) => event === "start")
    .map(([, , label]) => label);
}

/** Until the log shows the call labelled so has started. */
export async function started(log: string, label: string): Promise<void> {
  while (!arrivals(log).includes(label)) await new Promise((resolve) => setTimeout(resolve, 10));
}
