import { fileURLToPath } from "node:url";
import type { CommandContext } from "../context.js";
import { EXIT_OK } from "../exit-codes.js";
import { renderServers } from "./servers.js";

/** The bundled example fleet, shipped with the package. */
export const EXAMPLE_FLEET = fileURLToPath(new URL("../../../examples/fleet.json", import.meta.url));

/** `switchyard demo`: start the example fleet, show it, and run the after-sales scenario. */
export async function demoCommand(ctx: CommandContext): Promise<number> {
  const yard = await ctx.connect(EXAMPLE_FLEET);
  ctx.out.result(renderServers(yard.servers()));
  ctx.out.result(`\n${yard.tools().length} tools in the catalog`);
  return EXIT_OK;
}
