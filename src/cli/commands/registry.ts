// `switchyard search`, `add` and `remove`: servers found in an MCP registry (the v0.1 API) and written into
// the config file, or taken out of it, with the file's comments and formatting kept.

import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import {
  chooseRegistry,
  DEFAULT_REGISTRY_PAGE_SIZE,
  didYouMean,
  globMatcher,
  type RegistrySection,
  readRegistries,
  registryToken,
  SwitchyardError,
} from "../../internal.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { officialMeta, type ServerResponse } from "../registry/api.js";
import { RegistryClient } from "../registry/client.js";
import { openConfig, removeEntry, writeEntry } from "../registry/config-edit.js";
import { entryFor, howItRuns } from "../registry/entry.js";
import { firstLine, formatTable } from "../table.js";
import type { RunAction } from "./route.js";

/** Flags of `search`. */
export interface SearchFlags {
  registry?: string;
  limit?: string;
  cursor?: string;
}

/** Flags of `add`. */
export interface AddFlags {
  registry?: string;
  as?: string;
  force?: boolean;
}

/** Register `search`, `add` and `remove` on the CLI. */
export function registerRegistryCommands(cli: Command, run: RunAction): void {
  cli
    .command("search <words...>")
    .description("find servers in an MCP registry (the official one unless --registry or the config says)")
    .option("--registry <url|name>", "the registry to ask: a URL, or a name in the config's registries.list")
    .option("--limit <n>", `servers to list (default ${DEFAULT_REGISTRY_PAGE_SIZE}), page after page`)
    .option("--cursor <cursor>", "start where a previous search stopped (it prints the cursor)")
    .action(run((ctx, words: string[], flags: SearchFlags) => searchCommand(ctx, words, flags)));
  cli
    .command("add <name>")
    .description(
      "add a server from an MCP registry to the config, pinned to its version (name@version: that version)",
    )
    .option("--registry <url|name>", "the registry to ask: a URL, or a name in the config's registries.list")
    .option("--as <key>", "the server's name in the config (default: the last part of its registry name)")
    .option("--force", "replace a server of that name already in the config")
    .action(run((ctx, name: string, flags: AddFlags) => addCommand(ctx, name, flags)));
  cli
    .command("remove <server>")
    .description("remove a server from the config file, keeping its comments and formatting")
    .action(run((ctx, server: string) => removeCommand(ctx, server)));
}

/** The registry a command asks, with the config's token for it. */
function registryClient(
  ctx: CommandContext,
  section: RegistrySection | undefined,
  wanted?: string,
): RegistryClient {
  const chosen = chooseRegistry(section, wanted ?? process.env.SWITCHYARD_REGISTRY);
  const token = registryToken(chosen.entry);
  return new RegistryClient({
    url: chosen.url,
    ...(token !== undefined ? { token, tokenFrom: `registries.list "${chosen.entry!.name}"` } : {}),
    signal: ctx.signal,
  });
}

/** The `registries` section of the config file, when there is one (search needs none). */
function registriesOf(file: string): RegistrySection | undefined {
  return existsSync(file) ? readRegistries(file) : undefined;
}

/** `switchyard search <words>`: name, version, how it runs and description of each server found. */
export async function searchCommand(
  ctx: CommandContext,
  words: string[],
  flags: SearchFlags,
): Promise<number> {
  const limit = flags.limit === undefined ? DEFAULT_REGISTRY_PAGE_SIZE : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new CliError(`--limit ${flags.limit}: expected a whole number above 0`, EXIT_USAGE);
  const client = registryClient(ctx, registriesOf(ctx.editableConfigFile()), flags.registry);
  const found: ServerResponse[] = [];
  let cursor = flags.cursor;
  // Pages until `limit` servers are found or the registry has no more.
  do {
    const page = await client.page({
      search: words.join(" "),
      ...(cursor ? { cursor } : {}),
      limit: limit - found.length,
    });
    found.push(...page.servers.slice(0, limit - found.length));
    cursor = page.nextCursor;
  } while (cursor && found.length < limit);
  if (ctx.out.json) {
    ctx.out.data({
      registry: client.url,
      servers: found.map((response) => ({
        name: response.server.name,
        version: response.server.version,
        description: response.server.description ?? null,
        runs: runsOf(response),
        ...(officialMeta(response)?.status ? { status: officialMeta(response)!.status } : {}),
      })),
      nextCursor: cursor ?? null,
    });
    return EXIT_OK;
  }
  ctx.out.result(
    formatTable(
      ["NAME", "VERSION", "RUNS", "DESCRIPTION"],
      found.map((response) => [
        response.server.name,
        response.server.version,
        firstLine(howItRuns(response), 50),
        firstLine(response.server.description ?? "", 80),
      ]),
      { empty: `no servers in ${client.url} match "${words.join(" ")}"` },
    ),
  );
  if (cursor) ctx.out.note(`more in ${client.url}: switchyard search ${words.join(" ")} --cursor ${cursor}`);
  if (found.length) ctx.out.note("add one with: switchyard add <name>");
  return EXIT_OK;
}

/** How each way a server runs is said in `search --json`: a package (npm, pypi, oci) or a remote. */
function runsOf(response: ServerResponse) {
  return [
    ...(response.server.packages ?? []).map((pkg) => ({
      type: pkg.registryType,
      identifier: pkg.identifier,
      version: pkg.version ?? null,
    })),
    ...(response.server.remotes ?? []).map((remote) => ({ type: remote.type, url: remote.url })),
  ];
}

/** `switchyard add <name>[@version]`: the server's entry written into the config file. */
export async function addCommand(ctx: CommandContext, spec: string, flags: AddFlags): Promise<number> {
  const at = spec.lastIndexOf("@");
  const [name, version] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, undefined];
  const file = ctx.editableConfigFile();
  const config = openConfig(file);
  const registries = registriesOf(file);
  if (registries?.allow && !globMatcher(registries.allow)(name))
    throw new SwitchyardError(
      "POLICY_DENIED",
      `${path.basename(file)} allows adding only servers named ${registries.allow.join(", ")} (registries.allow), not ${name}: ask whoever keeps the config to allow it`,
    );
  const key = flags.as ?? keyOf(name);
  if (!/^[A-Za-z0-9_.-]+$/.test(key))
    throw new CliError(`--as ${key}: a server's name is letters, digits, ".", "_" and "-"`, EXIT_USAGE);
  if (config.names.includes(key) && !flags.force)
    throw new CliError(
      `${path.basename(file)} already has a server named "${key}": pass --as <other name>, or --force to replace it`,
      EXIT_USAGE,
    );
  const client = registryClient(ctx, registries, flags.registry);
  const response = await client.version(name, version || "latest");
  const built = entryFor(response, {
    registry: client.url,
    transportKey: config.section === "servers" ? "type" : "transport",
  });
  writeEntry(config, key, built.entry);
  if (ctx.out.json)
    ctx.out.data({
      server: key,
      file,
      name: response.server.name,
      version: response.server.version,
      runs: built.runs,
      variables: built.variables,
      entry: built.entry,
    });
  else
    ctx.out.result(
      `added ${key} (${response.server.name}@${response.server.version}) to ${file}: ${built.runs}`,
    );
  if (built.variables.length)
    ctx.out.note(
      `set before starting it: ${built.variables.join(", ")} (the entry reads them as \${VARIABLE})`,
    );
  if (built.optional.length) ctx.out.note(`optional, not set: ${built.optional.join(", ")}`);
  if (officialMeta(response)?.status && officialMeta(response)!.status !== "active")
    ctx.out.note(
      `the registry marks ${response.server.name}@${response.server.version} ${officialMeta(response)!.status}`,
    );
  return EXIT_OK;
}

/** The config key of a registry name: its last part (`io.github.acme/weather` → `weather`). */
function keyOf(name: string): string {
  const last = name.slice(name.lastIndexOf("/") + 1);
  return last.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "") || "server";
}

/** `switchyard remove <server>`: the entry taken out of the config file. */
export async function removeCommand(ctx: CommandContext, server: string): Promise<number> {
  const file = ctx.editableConfigFile();
  const config = openConfig(file);
  if (!config.names.includes(server)) {
    const hint = didYouMean(server, config.names);
    throw new CliError(
      `no server named "${server}" in ${path.basename(file)}${hint ? ` (${hint})` : ""}; its servers are ${config.names.join(", ") || "none"}`,
      EXIT_USAGE,
    );
  }
  removeEntry(config, server);
  if (ctx.out.json) ctx.out.data({ server, file, removed: true });
  else ctx.out.result(`removed ${server} from ${file}`);
  return EXIT_OK;
}
