import path from "node:path";
import type { ServerInfo, ServerSource, SwitchyardConfig } from "../../internal.js";
import { didYouMean } from "../../internal.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";

import { firstLine, formatTable } from "../table.js";

/** Flags of `servers`. */
export interface ServersFlags {
  /** Only these servers (started alone: `servers` reports live state). */
  server?: string[];
  /** Every column, the resilience counters included even when they say nothing. */
  wide?: boolean;
}

/** `switchyard servers`: connect to the servers and show their state; exit 1 if any failed. */
export async function serversCommand(ctx: CommandContext, flags: ServersFlags = {}): Promise<number> {
  const config = ctx.loadConfig();
  const only = checkServerNames(config, flags.server, ctx.configFile());
  // The table says which servers failed, and why.
  const yard = await ctx.connect({ ...(only ? { only } : {}), noteFailures: false });
  const sources = new Map(config.servers.map((server) => [server.name, server.source]));
  const states: ServerView[] = yard.servers().map((state) => {
    const source = sources.get(state.name);
    return source ? { ...state, source } : state;
  });
  if (ctx.out.json)
    ctx.out.data(
      states.map((state) => ({
        ...serverJson(state),
        ...(state.source ? { source: state.source } : {}),
        findings: yard.findings({ server: state.name }),
      })),
    );
  else ctx.out.result(renderServers(states, { wide: flags.wide === true }));
  const held = yard.quarantined();
  if (held.length)
    ctx.out.note(
      `${held.length} ${held.length === 1 ? "tool is" : "tools are"} quarantined (${held.map((entry) => entry.name).join(", ")}): switchyard scan says why`,
    );
  return states.some((state) => state.status === "failed" || state.status === "needs-auth")
    ? EXIT_FAILED
    : EXIT_OK;
}

/**
 * The servers a `--server` flag names (each may also be a comma-separated list), checked against the
 * config: an unknown name is a usage error with the closest names. Undefined: no filter.
 */
export function checkServerNames(
  config: SwitchyardConfig,
  names: readonly string[] | undefined,
  configFile: string,
): string[] | undefined {
  if (!names?.length) return undefined;
  const wanted = [...new Set(names.flatMap((name) => name.split(",")).map((name) => name.trim()))].filter(
    (name) => name !== "",
  );
  const known = config.servers.map((server) => server.name);
  for (const name of wanted) {
    if (known.includes(name)) continue;
    const hint = didYouMean(name, known);
    throw new CliError(
      `--server ${name}: no server named "${name}" in ${path.basename(configFile)}${hint ? ` (${hint})` : ""}; its servers are ${known.join(", ") || "none"}`,
      EXIT_USAGE,
    );
  }
  return wanted.length ? wanted : undefined;
}

/**
 * What `servers` shows of one server: the connection's state and its guard's counters, and where `add`
 * found it (the entry's `source`).
 */
export type ServerView = ServerInfo & { source?: ServerSource };

/** The CONTRACT.md shape of one server, plus the resilience counters (docs/contract.md). */
export function serverJson(state: ServerView) {
  return {
    name: state.name,
    status: state.status,
    transport: state.transport,
    protocolVersion: state.protocolVersion ?? null,
    tools: state.tools,
    resources: state.resources,
    prompts: state.prompts,
    connectMs: state.connectMs ?? null,
    restarts: state.restarts,
    health: state.health,
    breaker: state.breaker,
    inFlight: state.inFlight,
    limit: state.limit,
    limitMode: state.limitMode,
    queued: state.queued,
    tasks: state.tasks,
    ...(state.error !== undefined ? { error: state.error } : {}),
  };
}

/** The column titles of the servers table, for a caller that speaks another language (the demo). */
export type ServerHeadings = Record<
  | "server"
  | "status"
  | "transport"
  | "protocol"
  | "tools"
  | "connect"
  | "error"
  | "restarts"
  | "health"
  | "breaker"
  | "inFlight"
  | "queued",
  string
> & { none: string; limit?: string; source?: string };

/** The `servers` table's column headings (English). */
export const SERVER_HEADINGS: ServerHeadings = {
  server: "SERVER",
  status: "STATUS",
  transport: "TRANSPORT",
  protocol: "PROTOCOL",
  tools: "TOOLS",
  connect: "CONNECT",
  error: "ERROR",
  restarts: "RESTARTS",
  health: "HEALTH",
  breaker: "BREAKER",
  inFlight: "IN FLIGHT",
  limit: "LIMIT",
  queued: "QUEUED",
  source: "SOURCE",
  none: "no servers in the config",
};

interface Column {
  title: keyof ServerHeadings;
  cell: (state: ServerView) => string;
  /** Shown without `--wide` only when a server's value is not this (it says something then). */
  quietWhen?: (state: ServerView) => boolean;
}

/** An error as the table shows it: its first line, short enough to leave room for the rest. */
const errorCell = (state: ServerView) => {
  if (state.status === "needs-auth") return `run: switchyard login ${state.name}`;
  return state.error === undefined ? "" : firstLine(state.error, 40);
};

/** A server's `source` in a few words: `<name>@<version> <registry host> <published date>`. */
function sourceCell(state: ServerView): string {
  const source = state.source;
  if (!source) return "-";
  const official = source.meta?.["io.modelcontextprotocol.registry/official"] as
    | { publishedAt?: unknown }
    | undefined;
  const published = typeof official?.publishedAt === "string" ? ` ${official.publishedAt.slice(0, 10)}` : "";
  const host = URL.canParse(source.registry) ? new URL(source.registry).host : source.registry;
  return `${source.name}@${source.version} ${host}${published}`;
}

const COLUMNS: Column[] = [
  { title: "server", cell: (state) => state.name },
  { title: "status", cell: (state) => state.status },
  { title: "transport", cell: (state) => state.transport },
  { title: "protocol", cell: (state) => state.protocolVersion ?? "-" },
  {
    title: "tools",
    cell: (state) => (state.status === "ready" || state.status === "lazy" ? String(state.tools) : "-"),
  },
  {
    title: "connect",
    cell: (state) => (state.connectMs !== undefined ? `${state.connectMs} ms` : "-"),
  },
  { title: "restarts", cell: (state) => String(state.restarts), quietWhen: (state) => state.restarts === 0 },
  { title: "health", cell: (state) => state.health, quietWhen: (state) => state.health === "unknown" },
  { title: "breaker", cell: (state) => state.breaker, quietWhen: (state) => state.breaker === "closed" },
  { title: "inFlight", cell: (state) => String(state.inFlight), quietWhen: (state) => state.inFlight === 0 },
  // Where the limit of calls in flight stands ("auto": adaptive); `--wide` only.
  {
    title: "limit",
    cell: (state) => (state.limitMode === "adaptive" ? `${state.limit} auto` : String(state.limit)),
    quietWhen: () => true,
  },
  { title: "queued", cell: (state) => String(state.queued), quietWhen: (state) => state.queued === 0 },
  // Where `add` found it: `--wide` only, when a server has a source.
  { title: "source", cell: sourceCell, quietWhen: () => true },
  // Last, so that a long error never pushes the other columns apart.
  { title: "error", cell: errorCell, quietWhen: (state) => state.error === undefined },
];

/**
 * A table of servers: name, status, transport, protocol, tools, connect time and error, plus each
 * resilience column (restarts, health, breaker, in flight, queued) that says something for some server
 * — all of them with `wide` (SOURCE when a server has one). An error too long for its cell follows the table in full.
 */
export function renderServers(
  states: ServerView[],
  options: { wide?: boolean; headings?: ServerHeadings } = {},
): string {
  const headings = options.headings ?? SERVER_HEADINGS;
  const columns = COLUMNS.filter(
    (column) =>
      !column.quietWhen ||
      states.some((state) => !column.quietWhen!(state)) ||
      // `--wide`: every column but an error or a source that no server has.
      (options.wide === true &&
        column.title !== "error" &&
        (column.title !== "source" || states.some((state) => state.source !== undefined))),
  );
  const table = formatTable(
    columns.map((column) => headings[column.title] ?? SERVER_HEADINGS[column.title]!),
    states.map((state) => columns.map((column) => column.cell(state))),
    { empty: headings.none },
  );
  const failures = states
    .filter((state) => state.error !== undefined && state.error !== errorCell(state))
    .map((state) => `${state.name}: ${state.error}`);
  return failures.length ? `${table}\n\n${failures.join("\n")}` : table;
}
