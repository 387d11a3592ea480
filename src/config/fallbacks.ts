// Servers' `fallback` lists checked together: each names another configured server, and following them
// never comes back to where it began.

import { didYouMean } from "../errors.js";
import { invalid } from "./check.js";
import type { ServerConfig } from "./sections/server.js";

/**
 * Check every server's `fallback`: the servers it names exist, are not itself, and no chain of
 * fallbacks leads back to a server already on it (a call would bounce between them).
 * @throws SwitchyardError `CONFIG_INVALID` naming the server and what to change.
 */
export function checkFallbacks(servers: readonly ServerConfig[], section: string): void {
  const byName = new Map(servers.map((server) => [server.name, server]));
  for (const server of servers) {
    if (!server.fallback) continue;
    const at = `${section}.${server.name}.fallback`;
    for (const name of server.fallback) {
      if (name === server.name)
        throw invalid(at, `a server cannot be its own fallback; name another server (not "${name}")`);
      if (!byName.has(name)) {
        const hint = didYouMean(name, byName.keys());
        throw invalid(at, `no server named "${name}"${hint ? ` (${hint})` : ""}; name a configured server`);
      }
    }
  }
  for (const server of servers) {
    const cycle = cycleFrom(server.name, byName, [server.name]);
    if (cycle)
      throw invalid(
        `${section}.${server.name}.fallback`,
        `fallbacks go round in a circle (${cycle.join(" → ")}); remove one of them`,
      );
  }
}

/** A path of fallbacks from `name` back to a server already on `path`, if there is one. */
function cycleFrom(name: string, byName: Map<string, ServerConfig>, path: string[]): string[] | undefined {
  for (const next of byName.get(name)?.fallback ?? []) {
    if (path.includes(next)) return [...path, next];
    const found = cycleFrom(next, byName, [...path, next]);
    if (found) return found;
  }
  return undefined;
}
