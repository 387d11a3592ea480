import {
  type ServerConfig,
  type Switchyard,
  type SwitchyardConfig,
  SwitchyardError,
  toolNamePrefix,
} from "../internal.js";
import type { CommandContext } from "./context.js";

// What a command that names a tool (`call`, `describe`) or servers (`tools --server`) connects: as
// little as it can. Servers are listed from the catalog cache (`fromCache`: each server's catalog, kept
// by the library after it listed it) and started only when a request needs them.

/**
 * Whether a server's tools get the same names when it is connected alone as in the whole fleet: no
 * other enabled server can make a name that starts like its names (`namespace: false`, the same
 * namespace, or one that extends it, as `orders` and `orders_archive` do). Then only collisions among
 * its own tools can change a name, and they are settled the same way alone.
 */
export function namesStandAlone(config: SwitchyardConfig, server: ServerConfig): boolean {
  if (server.namespace === false) return false;
  const prefix = toolNamePrefix(server.namespace);
  return config.servers
    .filter((other) => !other.disabled && other.name !== server.name)
    .every((other) => {
      if (other.namespace === false) return false;
      const theirs = toolNamePrefix(other.namespace);
      return !theirs.startsWith(prefix) && !prefix.startsWith(theirs);
    });
}

/**
 * The one server a catalog name belongs to when the whole fleet is not needed to say it: its
 * `<namespace>_` prefix is exactly one enabled server's, and that server's names stand alone.
 */
export function serverForTool(config: SwitchyardConfig, name: string): string | undefined {
  const matches = config.servers.filter(
    (server) =>
      !server.disabled && server.namespace !== false && name.startsWith(toolNamePrefix(server.namespace)),
  );
  if (matches.length !== 1 || !namesStandAlone(config, matches[0]!)) return undefined;
  return matches[0]!.name;
}

/**
 * A Switchyard that lists `name`, started as little as it can be: from the catalog cache (nothing is
 * started until the tool is called, then only its server), and only the tool's server when its name
 * says which it is and its names stand alone. A name the cache does not list connects the whole fleet
 * afresh, so that a tool added since is found and the "did you mean" comes from the live catalog.
 * `refresh`: no cache. `noteFailures: false`: failed servers are not noted (the tool's own is the
 * command's error).
 */
export async function connectFor(
  ctx: CommandContext,
  name: string,
  options: { refresh?: boolean; noteFailures?: boolean } = {},
): Promise<Switchyard> {
  const config = ctx.loadConfig();
  const server = serverForTool(config, name);
  const noteFailures = options.noteFailures !== false;
  if (server !== undefined) {
    const alone = await ctx.connect({ only: [server], noteFailures: false, fromCache: !options.refresh });
    if (alone.describeTool(name)) return alone;
    const state = alone.servers()[0];
    // Codes a script can tell apart in `--json`'s error (both exit 1).
    if (state?.status === "needs-auth")
      throw new SwitchyardError("AUTH_REQUIRED", `${name}: ${state.error ?? "a login is needed"}`, {
        server,
      });
    if (state?.status === "failed")
      throw new SwitchyardError(
        "SERVER_UNAVAILABLE",
        `${name}: server ${server} failed: ${state.error ?? "unknown error"}`,
        { server },
      );
    ctx.logger.debug({ server }, `${name} is not on ${server} alone: connecting the whole fleet`);
    await ctx.disconnect(alone);
  }
  if (!options.refresh) {
    const cached = await ctx.connect({ noteFailures, fromCache: true });
    if (cached.describeTool(name)) return cached;
    await ctx.disconnect(cached);
  }
  return ctx.connect({ noteFailures });
}
