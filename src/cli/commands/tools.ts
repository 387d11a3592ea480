import { namesStandAlone } from "../connect-for.js";
import type { CommandContext } from "../context.js";
import { EXIT_OK } from "../exit-codes.js";
import { firstLine, formatTable } from "../table.js";
import { checkServerNames } from "./servers.js";

/** Flags of `tools`. */
export interface ToolsFlags {
  /** Only the tools of these servers. */
  server?: string[];
  /** Ask the servers even when the cached catalog is still good, and cache what they say. */
  refresh?: boolean;
}

/**
 * `switchyard tools`: list the catalog — each server's tools from the catalog cache when its config and
 * script are as they were (nothing is started), else by starting it (only the named servers, with
 * `--server`, when their names stand alone). Failed servers are reported on stderr; their tools are
 * absent.
 */
export async function toolsCommand(ctx: CommandContext, flags: ToolsFlags = {}): Promise<number> {
  const config = ctx.loadConfig();
  const file = ctx.configFile();
  const only = checkServerNames(config, flags.server, file);
  const keep = (entry: { server: string }) => !only || only.includes(entry.server);

  const alone =
    only?.every((name) => namesStandAlone(config, config.servers.find((server) => server.name === name)!)) ??
    false;
  // From the catalog cache, nothing started, unless --refresh: what the policy lets this identity call.
  const yard = await ctx.connect({ ...(alone && only ? { only } : {}), fromCache: flags.refresh !== true });
  const tools = yard.tools().filter(keep);

  if (ctx.out.json) {
    // yard.tools() is already the listing's shape: name, server, tool, description, inputSchema.
    ctx.out.data(tools);
  } else {
    // A tool that cannot be called from here says so in place of its description, with why.
    const rows = tools.map((tool) => [
      tool.name,
      tool.server,
      tool.unsupported !== undefined
        ? `(not offered: ${tool.unsupported}) ${firstLine(tool.description)}`
        : firstLine(tool.description),
    ]);
    ctx.out.result(
      formatTable(["TOOL", "SERVER", "DESCRIPTION"], rows, {
        empty: only
          ? `no tools on ${only.join(", ")}`
          : ctx.policy()
            ? `no tools that user ${ctx.identity().user} may call (the config's policy lists none)`
            : "no tools in the catalog",
      }),
    );
  }
  return EXIT_OK;
}
