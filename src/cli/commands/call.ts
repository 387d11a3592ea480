import { type Switchyard, SwitchyardError } from "../../internal.js";
import { readCatalogCache, serverForTool, writeCatalogCache } from "../catalog-cache.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";

/** `switchyard call <name> [json-args]`: call one tool; exit 1 when the result is an error. */
export async function callCommand(
  ctx: CommandContext,
  name: string,
  rawArgs: string | undefined,
): Promise<number> {
  const args = parseArgs(rawArgs);
  // The call's error says what concerns it: a tool of a failed server is SERVER_UNAVAILABLE, with why.
  const yard = await connectFor(ctx, name, { noteFailures: false });
  const result = await yard.callTool(name, args);
  if (ctx.out.json) ctx.out.data(result);
  else if (result.isError) ctx.out.note(`${name} returned an error: ${result.text}`);
  else ctx.out.result(result.text);
  return result.isError ? EXIT_FAILED : EXIT_OK;
}

/**
 * A Switchyard that lists `name`, started as small as it can be: only the tool's server when the
 * cached catalog (or, without one, the name's `<namespace>_` prefix) says which it is and it lists
 * the name under the same name alone; else the whole fleet, which also refreshes the cache. A name no
 * server lists gets the whole fleet too, so that its "did you mean" comes from the whole catalog.
 * `noteFailures: false`: the whole fleet's failed servers are not noted (the tool's own server, started
 * alone, never is: its failure is the error thrown).
 */
export async function connectFor(
  ctx: CommandContext,
  name: string,
  options: { refresh?: boolean; noteFailures?: boolean } = {},
): Promise<Switchyard> {
  const config = ctx.loadConfig();
  const file = ctx.configFile();
  const cache = options.refresh ? undefined : readCatalogCache(file, config);
  const server = serverForTool(config, name, cache);
  if (server !== undefined) {
    // Its failure is this command's error below.
    const alone = await ctx.connect({ only: [server], noteFailures: false });
    if (alone.describeTool(name)) return alone;
    const state = alone.servers()[0];
    // Codes a script can tell apart in `--json`'s error (both exit 1).
    if (state?.status === "needs-auth")
      throw new SwitchyardError("AUTH_REQUIRED", `${name}: ${state.error ?? "a login is needed"}`, {
        server,
      });
    if (state?.status === "failed") {
      // Its names are its own: no other server can list this one, and this one could not start.
      throw new SwitchyardError(
        "SERVER_UNAVAILABLE",
        `${name}: server ${server} failed: ${state.error ?? "unknown error"}`,
        { server },
      );
    }
    ctx.logger.debug({ server }, `${name} is not on ${server} alone: connecting the whole fleet`);
    await ctx.disconnect(alone);
  }
  const yard = await ctx.connect({ noteFailures: options.noteFailures !== false });
  writeCatalogCache(file, config, yard);
  return yard;
}

function parseArgs(raw: string | undefined): unknown {
  if (raw === undefined || raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new CliError(
      `arguments must be a JSON object, e.g. '{"text":"hi"}' (${(error as Error).message})`,
      EXIT_USAGE,
    );
  }
}
