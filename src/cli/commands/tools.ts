import type { CommandContext } from "../context.js";
import { EXIT_OK } from "../exit-codes.js";
import { firstLine, formatTable } from "../table.js";

/** `switchyard tools`: list the catalog. Failed servers are reported on stderr; their tools are absent. */
export async function toolsCommand(ctx: CommandContext): Promise<number> {
  const yard = await ctx.connect();
  const tools = yard.tools();
  for (const state of yard.servers()) {
    if (state.status === "failed")
      ctx.out.note(`warning: server ${state.name} failed, its tools are not listed: ${state.error}`);
  }
  if (ctx.out.json) {
    ctx.out.data(tools);
  } else {
    const rows = tools.map((tool) => [tool.name, tool.server, firstLine(tool.description)]);
    ctx.out.result(formatTable(["TOOL", "SERVER", "DESCRIPTION"], rows));
  }
  return EXIT_OK;
}
