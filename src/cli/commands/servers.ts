import type { ServerInfo } from "../../index.js";
import type { CommandContext } from "../context.js";
import { EXIT_FAILED, EXIT_OK } from "../exit-codes.js";
import { formatTable } from "../table.js";

/** `switchyard servers`: connect to every server and show its state; exit 1 if any failed. */
export async function serversCommand(ctx: CommandContext): Promise<number> {
  const yard = await ctx.connect();
  const states = yard.servers();
  if (ctx.out.json) ctx.out.data(states.map(serverJson));
  else ctx.out.result(renderServers(states));
  return states.some((state) => state.status === "failed") ? EXIT_FAILED : EXIT_OK;
}

/** What `servers` shows of one server: the connection's state and its guard's counters. */
export type ServerView = ServerInfo;

/** The CONTRACT.md shape of one server, plus the resilience counters (docs/contract.md). */
export function serverJson(state: ServerView) {
  return {
    name: state.name,
    status: state.status,
    transport: state.transport,
    protocolVersion: state.protocolVersion ?? null,
    tools: state.tools,
    connectMs: state.connectMs ?? null,
    restarts: state.restarts,
    health: state.health,
    breaker: state.breaker,
    inFlight: state.inFlight,
    queued: state.queued,
    ...(state.error !== undefined ? { error: state.error } : {}),
  };
}

/** A table of servers, then one line per failure with its reason. */
export function renderServers(states: ServerView[]): string {
  const rows = states.map((state) => [
    state.name,
    state.status,
    state.transport,
    state.protocolVersion ?? "-",
    state.status === "ready" ? String(state.tools) : "-",
    state.connectMs !== undefined ? `${state.connectMs} ms` : "-",
    String(state.restarts),
    state.health,
    state.breaker,
    `${state.inFlight}/${state.queued}`,
  ]);
  const table = formatTable(
    [
      "SERVER",
      "STATUS",
      "TRANSPORT",
      "PROTOCOL",
      "TOOLS",
      "CONNECT",
      "RESTARTS",
      "HEALTH",
      "BREAKER",
      "CALLS/QUEUED",
    ],
    rows,
  );
  const failures = states
    .filter((state) => state.error !== undefined)
    .map((state) => `${state.name}: ${state.error}`);
  return failures.length ? `${table}\n\n${failures.join("\n")}` : table;
}
