import { connectFor } from "../connect-for.js";
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
  // A tool's error is redacted wherever it is printed, as the gateway answers it; a result is the caller's.
  if (ctx.out.json) ctx.out.data(result.isError ? ctx.redactor().value(result) : result);
  else if (result.isError) ctx.out.note(`${name} returned an error: ${result.text}`);
  else ctx.out.result(result.text);
  return result.isError ? EXIT_FAILED : EXIT_OK;
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
