import type { PromptResult, ResourceContents } from "../../internal.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { firstLine, formatTable } from "../table.js";
import { checkServerNames } from "./servers.js";

/** Flags of `resources` and `read`. */
export interface ResourceFlags {
  /** Only these servers (`resources`); the server to read from (`read`). */
  server?: string[];
}

/**
 * `switchyard resources`: every resource and resource template of the fleet (or of the servers
 * named), with its server. Failed servers are reported on stderr.
 */
export async function resourcesCommand(ctx: CommandContext, flags: ResourceFlags = {}): Promise<number> {
  const config = ctx.loadConfig();
  const only = checkServerNames(config, flags.server, ctx.configFile());
  const yard = await ctx.connect(only ? { only } : {});
  const resources = yard.resources();
  const templates = yard.resourceTemplates();
  if (ctx.out.json) {
    ctx.out.data({ resources, resourceTemplates: templates });
    return EXIT_OK;
  }
  const rows = [
    ...resources.map((entry) => [
      entry.uri,
      entry.server,
      entry.mimeType ?? "",
      firstLine(entry.description ?? entry.title ?? entry.name),
    ]),
    ...templates.map((entry) => [
      entry.uriTemplate,
      entry.server,
      entry.mimeType ?? "",
      `(template) ${firstLine(entry.description ?? entry.title ?? entry.name)}`,
    ]),
  ];
  ctx.out.result(
    formatTable(["URI", "SERVER", "TYPE", "DESCRIPTION"], rows, {
      empty: only ? `no resources on ${only.join(", ")}` : "no resources in the catalog",
    }),
  );
  return EXIT_OK;
}

/**
 * `switchyard read <uri> [--server s]`: the resource's text on stdout; a blob is described on stderr
 * (`--json`: the contents, blobs in base64). Only the server named is started with `--server`.
 */
export async function readCommand(
  ctx: CommandContext,
  uri: string,
  flags: ResourceFlags = {},
): Promise<number> {
  const config = ctx.loadConfig();
  const only = checkServerNames(config, flags.server, ctx.configFile());
  if (only && only.length > 1) throw new CliError("read takes one --server", EXIT_USAGE);
  const yard = await ctx.connect(only ? { only } : {});
  const server = only?.[0];
  const result = await yard.readResource(uri, server !== undefined ? { server } : {});
  if (ctx.out.json) {
    ctx.out.data(result);
    return EXIT_OK;
  }
  writeContents(ctx, result);
  return EXIT_OK;
}

/** `switchyard prompts`: every prompt of the fleet, with its server and arguments. */
export async function promptsCommand(ctx: CommandContext): Promise<number> {
  const yard = await ctx.connect();
  const prompts = yard.prompts();
  if (ctx.out.json) {
    ctx.out.data(prompts);
    return EXIT_OK;
  }
  const rows = prompts.map((entry) => [
    entry.name,
    entry.server,
    entry.arguments.map((arg) => `${arg.name}${arg.required ? "" : "?"}`).join(", "),
    firstLine(entry.description || entry.title || ""),
  ]);
  ctx.out.result(
    formatTable(["PROMPT", "SERVER", "ARGUMENTS", "DESCRIPTION"], rows, {
      empty: "no prompts in the catalog",
    }),
  );
  return EXIT_OK;
}

/** `switchyard prompt <name> [json-args]`: the prompt's messages, one `role: text` block each. */
export async function promptCommand(
  ctx: CommandContext,
  name: string,
  rawArgs: string | undefined,
): Promise<number> {
  const args = parseArgs(rawArgs);
  const yard = await ctx.connect();
  const result = await yard.getPrompt(name, args);
  if (ctx.out.json) {
    ctx.out.data(result);
    return EXIT_OK;
  }
  ctx.out.result(formatMessages(result));
  return EXIT_OK;
}

function writeContents(ctx: CommandContext, result: ResourceContents): void {
  for (const content of result.contents) {
    if ("text" in content && typeof content.text === "string") {
      ctx.out.result(content.text);
    } else if ("blob" in content && typeof content.blob === "string") {
      const bytes = Buffer.from(content.blob, "base64").length;
      ctx.out.note(
        `${content.uri}: binary content (${content.mimeType ?? "unknown type"}, ${bytes} bytes) from server ${result.server}, not printed; --json has it in base64`,
      );
    }
  }
}

function formatMessages(result: PromptResult): string {
  return result.messages
    .map((message) => {
      const content = message.content as {
        type: string;
        text?: string;
        mimeType?: string;
        resource?: { uri?: string };
      };
      const body =
        content.type === "text"
          ? (content.text ?? "")
          : content.type === "resource"
            ? `[resource ${content.resource?.uri ?? ""}]`
            : `[${content.type}${content.mimeType ? ` ${content.mimeType}` : ""}]`;
      return `${message.role}: ${body}`;
    })
    .join("\n\n");
}

function parseArgs(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new CliError(
      `arguments must be a JSON object, e.g. '{"city":"Paris"}' (${(error as Error).message})`,
      EXIT_USAGE,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new CliError(`arguments must be a JSON object, e.g. '{"city":"Paris"}'`, EXIT_USAGE);
  return parsed as Record<string, unknown>;
}
