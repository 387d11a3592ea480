import {
  ClientRelay,
  createGateway,
  createGatewayAuth,
  DEFAULT_GATEWAY_HOST,
  type Gateway,
  type GatewayMode,
  isLoopbackHost,
  listenHttp,
} from "../../gateway/index.js";
import { openWireTrace, Switchyard } from "../../internal.js";
import { packageFile } from "../../package-root.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { PACKAGE, PACKAGE_VERSION } from "../version.js";

/** Flags of `switchyard serve`. */
export interface ServeFlags {
  stdio?: boolean;
  http?: string;
  host?: string;
  mode?: string;
  printConfig?: boolean;
  /** Serve a non-loopback address without `gateway.auth` (refused otherwise). */
  allowUnauthenticated?: boolean;
  /** The global `--trace-wire <file|->`: every server's JSON-RPC messages, as for every command. */
  traceWire?: string;
}

/** Exit codes for the signals that end serving (128 + the signal's number). */
const SIGNAL_EXIT: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * `switchyard serve --stdio | --http <port> [--host] [--mode all|search]`: the whole fleet as one MCP
 * server, until the client goes (stdio: stdin ends) or a signal comes. `--print-config` prints the
 * hosts' config snippets for it on stdout and exits.
 */
export async function serveCommand(ctx: CommandContext, flags: ServeFlags): Promise<number> {
  const http = flags.http !== undefined ? parsePort(flags.http) : undefined;
  if (flags.printConfig) {
    ctx.out.result(hostConfigs(ctx, flags, http));
    return EXIT_OK;
  }
  if ((flags.stdio === true) === (http !== undefined))
    throw new CliError(
      "serve needs one of --stdio (for a host that starts it, such as Claude Desktop) or --http <port>",
      EXIT_USAGE,
    );
  if (flags.host !== undefined && http === undefined)
    throw new CliError("--host goes with --http <port> (stdio has no address)", EXIT_USAGE);
  if (flags.stdio && flags.traceWire === "-")
    throw new CliError(
      "--trace-wire - writes to stdout, which carries MCP with --stdio; give the trace a file, e.g. --trace-wire trace.jsonl",
      EXIT_USAGE,
    );
  const config = ctx.loadConfig();
  const mode = parseMode(flags.mode ?? config.gateway?.mode);
  const host = flags.host ?? config.gateway?.host ?? DEFAULT_GATEWAY_HOST;
  // Anyone who reaches a non-loopback address may call every tool unless gateway.auth says who may:
  // refused before anything starts, unless asked for in so many words.
  if (http !== undefined && !config.gateway?.auth && !isLoopbackHost(host) && !flags.allowUnauthenticated)
    throw new CliError(
      `serve --http on ${host}, which is not a loopback address, with no gateway.auth in ${ctx.configFile()}: anyone who reaches it could call every tool. Set gateway.auth (tokens or oauth), listen on 127.0.0.1, or add --allow-unauthenticated if something in front of it (a proxy, a firewall) decides who gets in`,
      EXIT_USAGE,
    );
  // gateway.operations.open: /healthz, /readyz and /metrics without gateway.auth — for a scraper on this
  // machine only; anywhere else they would say who the servers are and why they fail to anyone.
  const openOperations = http !== undefined && config.gateway?.operations?.open === true;
  if (openOperations && !isLoopbackHost(host))
    throw new CliError(
      `gateway.operations.open in ${ctx.configFile()} answers /healthz, /readyz and /metrics without gateway.auth, which is allowed on a loopback address only (the gateway listens on ${host}): remove it and give the scraper a gateway.auth token, or listen on 127.0.0.1`,
      EXIT_USAGE,
    );
  const relay = new ClientRelay();
  const store = await ctx.store().catch((error) => {
    if (config.store !== undefined) throw error;
    ctx.logger.warn({}, ctx.redact(`runs are not recorded: ${(error as Error).message}`));
    return undefined;
  });
  const wire = flags.traceWire !== undefined ? openWireTrace(flags.traceWire) : undefined;
  const yard = await Switchyard.connect(config, {
    ...relay.switchyardOptions({ logger: ctx.logger }),
    identity: ctx.identity(),
    ...(store ? { store } : {}),
    ...(wire ? { wireTrace: wire.sink } : {}),
  });
  // gateway.auth: who may use the HTTP face (the token's audience is the URL it listens on, known below).
  let resourceUrl = "";
  const auth = config.gateway?.auth
    ? createGatewayAuth(config.gateway.auth, { resourceUrl: () => resourceUrl })
    : undefined;
  const gateway = createGateway(yard, {
    mode,
    relay,
    version: PACKAGE_VERSION,
    ...(auth ? { authenticate: auth.authenticate } : {}),
    ...(openOperations ? { openOperations } : {}),
    // gateway.limits: sessions held, and what one identity may take (sessions, open streams).
    ...limitsOf(config.gateway?.limits),
    // gateway.sessionKey: 2025-11-25 sessions sealed into their ids, served by any replica with the key.
    ...(config.gateway?.sessionKey !== undefined ? { sessionKey: config.gateway.sessionKey } : {}),
    ...(config.gateway?.previousSessionKeys
      ? { previousSessionKeys: config.gateway.previousSessionKeys }
      : {}),
    // 2025-11-25 sessions kept in the store too: any replica sharing it (PostgreSQL) takes them up.
    ...(store
      ? {
          sessionStore: store,
          onSessionStoreError: (error: unknown) =>
            ctx.logger.warn(
              {},
              ctx.redact(`a gateway session is held in this process only: ${(error as Error).message}`),
            ),
        }
      : {}),
  });
  // Until the client goes (stdio) or a signal comes: then everything is closed in order.
  let stop!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => {
    stop = resolve;
  });
  ctx.handleInterrupts((signal) => {
    stop(SIGNAL_EXIT[signal] ?? 1);
    return true;
  });
  let closeListener: (() => Promise<void>) | undefined;
  try {
    if (http !== undefined) {
      const listener = await listenHttp(gateway, {
        port: http,
        host,
        onError: (error) => ctx.logger.warn({}, ctx.redact(`http: ${(error as Error).message}`)),
        ...(config.gateway?.allowedHosts ? { allowedHosts: config.gateway.allowedHosts } : {}),
        ...(config.gateway?.allowedOrigins ? { allowedOrigins: config.gateway.allowedOrigins } : {}),
        ...(auth ? { auth } : {}),
      });
      closeListener = listener.close;
      resourceUrl = listener.url;
      if (!auth && !isLoopbackHost(host))
        process.stderr.write(
          `switchyard: warning: ${host} is not a loopback address and the config has no gateway.auth (--allow-unauthenticated): anyone who reaches it may call every tool\n`,
        );
      process.stderr.write(
        `switchyard: serving ${yard.tools().length} tools (${mode} mode) at ${listener.url}\n`,
      );
      if (process.stderr.isTTY) process.stderr.write(`${hostConfigs(ctx, flags, listener.port)}\n`);
    } else {
      if (process.stderr.isTTY) process.stderr.write(`${hostConfigs(ctx, flags, undefined)}\n`);
      const { closed } = await gateway.connectStdio();
      void closed.then(() => stop(EXIT_OK));
    }
    return await stopped;
  } finally {
    await closeListener?.();
    await closeAll(gateway, yard);
    wire?.close();
    if (http === undefined) process.stdin.destroy(); // nothing more is read: let the process end
  }
}

async function closeAll(gateway: Gateway, yard: Switchyard): Promise<void> {
  await gateway.close();
  await yard.close();
}

type LimitKey = "maxSessions" | "sessionsPerUser" | "streamsPerUser" | "sessionIdleMs" | "sessionMaxAgeMs";

/** `gateway.limits` as the gateway's options (only the keys the config sets). */
function limitsOf(limits: Partial<Record<LimitKey, number | undefined>> | undefined) {
  const { maxSessions, sessionsPerUser, streamsPerUser, sessionIdleMs, sessionMaxAgeMs } = limits ?? {};
  return {
    ...(maxSessions !== undefined ? { maxSessions } : {}),
    ...(sessionsPerUser !== undefined ? { sessionsPerUser } : {}),
    ...(streamsPerUser !== undefined ? { streamsPerUser } : {}),
    ...(sessionIdleMs !== undefined ? { sessionIdleMs } : {}),
    ...(sessionMaxAgeMs !== undefined ? { sessionMaxAgeMs } : {}),
  };
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535)
    throw new CliError(`--http needs a TCP port from 0 to 65535 (got "${value}")`, EXIT_USAGE);
  return port;
}

function parseMode(mode: string | undefined): GatewayMode {
  if (mode === undefined || mode === "all" || mode === "search") return mode ?? "all";
  throw new CliError(`--mode must be all or search (got "${mode}")`, EXIT_USAGE);
}

/**
 * The config snippets that make a host start (stdio) or reach (HTTP) this gateway: Claude Desktop and
 * Cursor (`mcpServers`), VS Code (`servers`), with the absolute paths of node, the CLI and the config.
 */
export function hostConfigs(ctx: CommandContext, flags: ServeFlags, port: number | undefined): string {
  const cli = packageFile(PACKAGE.bin.switchyard);
  const config = ctx.configFile();
  const mode = flags.mode !== undefined ? ["--mode", flags.mode] : [];
  if (port === undefined) {
    const args = [cli, "--config", config, "serve", "--stdio", ...mode];
    const launch = { command: process.execPath, args };
    return [
      "Claude Desktop (claude_desktop_config.json) or Cursor (~/.cursor/mcp.json):",
      JSON.stringify({ mcpServers: { switchyard: launch } }, null, 2),
      "VS Code (.vscode/mcp.json):",
      JSON.stringify({ servers: { switchyard: { type: "stdio", ...launch } } }, null, 2),
    ].join("\n");
  }
  const host = flags.host ?? DEFAULT_GATEWAY_HOST;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/mcp`;
  return [
    "Cursor (~/.cursor/mcp.json):",
    JSON.stringify({ mcpServers: { switchyard: { url } } }, null, 2),
    "VS Code (.vscode/mcp.json):",
    JSON.stringify({ servers: { switchyard: { type: "http", url } } }, null, 2),
    `MCP Inspector: npx @modelcontextprotocol/inspector --cli ${url} --transport http --method tools/list`,
  ].join("\n");
}
