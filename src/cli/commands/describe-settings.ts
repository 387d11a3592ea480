// What `describe` says of how a tool's calls are served beyond the tool itself: its server's
// `fallback`, `rateLimit` and `cache` (and whether the cache keeps this tool's results), the fleet's
// `limits.inFlight`, and the `routing.hints` that put the tool first. Each line only where it applies.
import type { CatalogEntry, SwitchyardConfig } from "../../internal.js";
import { globMatcher } from "../../internal.js";

/** The lines, labels padded like the rest of `describe` (14 columns); none when nothing is set. */
export function settingsLines(config: SwitchyardConfig, entry: CatalogEntry): string[] {
  const server = config.servers.find((candidate) => candidate.name === entry.server);
  const lines: string[] = [];
  if (server?.fallback?.length)
    lines.push(
      `Fallback:     ${server.fallback.join(", ")} (serves its calls while ${entry.server} is down)`,
    );
  if (server?.rateLimit) lines.push(`Rate limit:   ${rateText(server.rateLimit)}`);
  if (server?.cache) {
    const { ttlMs, maxEntries, tools } = server.cache;
    const why =
      entry.annotations?.readOnlyHint === true
        ? "yes (read-only)"
        : globMatcher(tools)(entry.tool)
          ? "yes (cache.tools)"
          : "no (not read-only, not in cache.tools)";
    lines.push(`Cache:        ${why}; results kept ${ttlMs} ms, at most ${maxEntries}`);
  }
  const inFlight = config.limits?.inFlight;
  if (inFlight !== undefined)
    lines.push(`Fleet cap:    ${inFlight} calls in flight over every server (limits.inFlight)`);
  const hints = (config.routing?.hints ?? []).filter((hint) => globMatcher(hint.tools)(entry.name));
  if (hints.length)
    lines.push(
      `Routing hints: first for requests matching ${hints.map((hint) => JSON.stringify(hint.when)).join(", ")}`,
    );
  return lines;
}

/** `rateLimit` in words: "2 per second, 30 per minute, burst 1". */
function rateText(limit: NonNullable<SwitchyardConfig["servers"][number]["rateLimit"]>): string {
  return [
    ...(limit.perSecond !== undefined ? [`${limit.perSecond} per second`] : []),
    ...(limit.perMinute !== undefined ? [`${limit.perMinute} per minute`] : []),
    `burst ${limit.burst ?? 1}`,
  ].join(", ");
}
