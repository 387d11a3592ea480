import { readFileSync } from "node:fs";
import path from "node:path";
import type { Finding } from "../../internal.js";
import { scanCatalog, type ToolDefinition } from "../../trust/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { firstLine, formatTable } from "../table.js";
import { checkServerNames } from "./servers.js";

/** Flags of `scan`. */
export interface ScanFlags {
  /** Only these servers' findings. */
  server?: string[];
  /** Scan a tools file (the routing data format) instead of the fleet: nothing is started. */
  tools?: string;
}

/** A finding as `scan --json` prints it: the finding, and whether its tool is quarantined for it. */
type ScanRow = Finding & { quarantined?: boolean };

/**
 * `switchyard scan`: what the scans find in the fleet's definitions (its servers started, so that what
 * they list now is scanned and compared with the pins), or in a tools file with `--tools`. Exit 1 on
 * any high finding not accepted with `trust`.
 */
export async function scanCommand(ctx: CommandContext, flags: ScanFlags = {}): Promise<number> {
  let rows: ScanRow[];
  if (flags.tools !== undefined) {
    if (flags.server?.length) throw new CliError("scan: give --tools or --server, not both", EXIT_USAGE);
    rows = scanCatalog(readToolsFile(flags.tools));
  } else {
    const config = ctx.loadConfig();
    const only = checkServerNames(config, flags.server, ctx.configFile());
    const yard = await ctx.connect(only ? { only } : {});
    const held = new Set(yard.quarantined().map((entry) => `${entry.server}\0${entry.tool}`));
    rows = yard
      .findings()
      .filter((finding) => !only || only.includes(finding.server))
      .map((finding) =>
        finding.tool !== undefined && held.has(`${finding.server}\0${finding.tool}`)
          ? { ...finding, quarantined: true }
          : finding,
      );
  }
  if (ctx.out.json) ctx.out.data(rows);
  else ctx.out.result(renderFindings(rows));
  return rows.some((row) => row.severity === "high" && !row.accepted) ? EXIT_FAILED : EXIT_OK;
}

/** Findings as a table, most severe first; a line when there are none. */
export function renderFindings(rows: readonly ScanRow[]): string {
  const order = { high: 0, medium: 1, low: 2 } as const;
  const sorted = [...rows].sort((a, b) => order[a.severity] - order[b.severity]);
  return formatTable(
    ["SEVERITY", "KIND", "SERVER", "TOOL", "DETAIL"],
    sorted.map((row) => [
      `${row.severity}${row.quarantined ? " (quarantined)" : row.accepted ? " (trusted)" : ""}`,
      row.kind,
      row.server,
      row.tool ?? "",
      firstLine(`${row.where ? `${row.where}: ` : ""}${row.detail}`),
    ]),
    { empty: "nothing found" },
  );
}

/** A tools file in the routing data format: `[{ server, name, description, inputSchema }]`. */
function readToolsFile(file: string): ToolDefinition[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(error);
    throw new CliError(`scan --tools ${file}: cannot read it as JSON (${why})`, EXIT_USAGE);
  }
  const tools = Array.isArray(parsed) ? parsed : (parsed as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools))
    throw new CliError(
      `scan --tools ${path.basename(file)}: expected an array of tools ({ "server", "name", "description", "inputSchema" }), or { "tools": [...] }`,
      EXIT_USAGE,
    );
  return tools.map((tool, index) => {
    const entry = tool as Record<string, unknown>;
    if (typeof entry?.name !== "string")
      throw new CliError(`scan --tools ${path.basename(file)}: tool ${index} has no "name"`, EXIT_USAGE);
    return {
      server: typeof entry.server === "string" ? entry.server : "(file)",
      name: entry.name,
      ...(typeof entry.title === "string" ? { title: entry.title } : {}),
      ...(typeof entry.description === "string" ? { description: entry.description } : {}),
      ...(entry.inputSchema !== undefined ? { inputSchema: entry.inputSchema } : {}),
      ...(entry.outputSchema !== undefined ? { outputSchema: entry.outputSchema } : {}),
      ...(typeof entry.annotations === "object" && entry.annotations !== null
        ? { annotations: entry.annotations as Record<string, unknown> }
        : {}),
    };
  });
}

/** Flags of `trust`. */
export interface TrustFlags {
  /** One tool, by its own name on the server. */
  tool?: string;
}

/**
 * `switchyard trust <server> [--tool name]`: accept the server's tools (or one) as it lists them now —
 * pinned again as trusted, in the store, so that what drift or a scan quarantined is listed again.
 */
export async function trustCommand(
  ctx: CommandContext,
  server: string,
  flags: TrustFlags = {},
): Promise<number> {
  const config = ctx.loadConfig();
  checkServerNames(config, [server], ctx.configFile());
  if (!(await ctx.store()))
    throw new CliError(
      `trust: ${ctx.configFile()} says store: false, so no pin would outlive this command; remove it to keep pins`,
      EXIT_USAGE,
    );
  const yard = await ctx.connect({ only: [server], noteFailures: false });
  const state = yard.servers()[0];
  if (state?.status !== "ready" && state?.status !== "restarting")
    throw new CliError(
      `trust: server ${server} is ${state?.status ?? "unknown"}${state?.error ? `: ${state.error}` : ""}; nothing to accept`,
    );
  let pins: ReturnType<typeof yard.trust>;
  try {
    pins = yard.trust(server, flags.tool);
  } catch (error) {
    throw new CliError(`trust: ${(error as Error).message}`, EXIT_USAGE);
  }
  if (ctx.out.json)
    ctx.out.data(
      pins.map(({ server, tool, fingerprint, pinnedAt }) => ({ server, tool, fingerprint, pinnedAt })),
    );
  else
    ctx.out.result(
      `trusted ${pins.length} ${pins.length === 1 ? "tool" : "tools"} of server ${server} as listed now: ${pins.map((pin) => pin.tool).join(", ") || "none"}`,
    );
  return EXIT_OK;
}
