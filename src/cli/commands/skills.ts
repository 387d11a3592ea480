import type { CommandContext } from "../context.js";
import { EXIT_FAILED, EXIT_OK } from "../exit-codes.js";
import { firstLine, formatTable } from "../table.js";
import { checkServerNames } from "./servers.js";

/** Flags of `skills`. */
export interface SkillsFlags {
  /** Only these servers. */
  server?: string[];
}

/**
 * `switchyard skills`: the skills the servers serve (the Skills extension), each entry checked, with
 * its id, server, file count and description; nothing of a skill is read. Each skill refused is on
 * stderr, and makes the exit 1.
 */
export async function skillsCommand(ctx: CommandContext, flags: SkillsFlags = {}): Promise<number> {
  const config = ctx.loadConfig();
  const only = checkServerNames(config, flags.server, ctx.configFile());
  const yard = await ctx.connect(only ? { only } : {});
  // One server named: say so when it serves no skills, rather than list none.
  const { skills, refused } = await yard.skills(only?.length === 1 ? { server: only[0]! } : {});
  for (const error of refused) ctx.out.note(`refused: ${error.message}`);
  if (ctx.out.json) {
    ctx.out.data({
      skills,
      refused: refused.map((error) => ({ code: error.code, server: error.server, message: error.message })),
    });
    return refused.length ? EXIT_FAILED : EXIT_OK;
  }
  const rows = skills.map((skill) => [
    skill.id,
    skill.server,
    String(skill.files.length),
    firstLine(skill.description),
  ]);
  ctx.out.result(
    formatTable(["SKILL", "SERVER", "FILES", "DESCRIPTION"], rows, {
      empty: only ? `no skills on ${only.join(", ")}` : "no server serves skills",
    }),
  );
  return refused.length ? EXIT_FAILED : EXIT_OK;
}
