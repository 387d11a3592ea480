import {
  type CallToolResult,
  Client,
  createFetchWithInit,
  SdkError,
  SdkErrorCode,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import type { ServerConfig, TransportKind, VersionNegotiation } from "../config/schema.js";
import { messageOf, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { WireSink } from "../telemetry/wire-trace.js";
import { toCallError } from "./call-errors.js";
import { launchHttpServer } from "./launcher.js";
import type { ServerProcess } from "./server-process.js";
import { StdioTransport } from "./stdio-transport.js";
import { tapTransport } from "./tap-transport.js";

/** Longest wait for an answer to the `server/discover` version probe before falling back to `initialize`. */
const MAX_PROBE_MS = 10_000;

/** What Switchyard tells servers about itself. */
export const CLIENT_INFO = { name: "switchyard", version: "0.1.0" };

/** Where a server stands. `connecting` and `closed` are transient; the rest are the ones users see. */
export type ServerStatus = "connecting" | "ready" | "failed" | "disabled" | "closed";

/** A snapshot of one server, as `servers()` and `switchyard servers` report it. */
export interface ServerState {
  name: string;
  status: ServerStatus;
  transport: TransportKind;
  /** Protocol version agreed in the handshake. */
  protocolVersion?: string;
  /** Tools the server offers (before allow/deny filters). */
  tools: number;
  /** Spawn or first request → handshake done and tools listed. */
  connectMs?: number;
  /** Why the server is `failed`, with its last stderr lines when it is a process. */
  error?: string;
  /** `serverInfo` from the handshake. */
  serverInfo?: { name: string; version: string };
  /** The server's process id (stdio). */
  pid?: number;
}

export interface ConnectionHooks {
  logger: Logger;
  wire?: WireSink;
  /** The server's tool list changed (after `notifications/tools/list_changed`). */
  onToolsChanged?: (server: string, tools: Tool[]) => void;
  /** The server's status changed (crash, close). */
  onStatusChange?: (state: ServerState) => void;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** One live MCP connection: transport, handshake, tool list, calls and shutdown. */
export class ServerConnection {
  readonly config: ServerConfig;
  readonly #hooks: ConnectionHooks;
  readonly #log: Logger;
  #status: ServerStatus;
  #transportKind: TransportKind;
  #client: Client | undefined;
  /** The server's own process: the stdio child, or a launched local HTTP server. */
  #process: ServerProcess | undefined;
  #tools: Tool[] = [];
  #connectMs: number | undefined;
  #error: string | undefined;
  #noiseReported = false;
  #closing: Promise<void> | undefined;

  constructor(config: ServerConfig, hooks: ConnectionHooks) {
    this.config = config;
    this.#hooks = hooks;
    this.#log = hooks.logger.child({ server: config.name });
    this.#status = config.disabled ? "disabled" : "connecting";
    this.#transportKind = config.transport;
  }

  get name(): string {
    return this.config.name;
  }

  get status(): ServerStatus {
    return this.#status;
  }

  /** The tools the server listed, all pages, unfiltered. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** The server's `instructions` from the handshake, if any. */
  get instructions(): string | undefined {
    return this.#client?.getInstructions();
  }

  state(): ServerState {
    const state: ServerState = {
      name: this.name,
      status: this.#status,
      transport: this.#transportKind,
      tools: this.#tools.length,
    };
    const protocolVersion = this.#client?.getNegotiatedProtocolVersion();
    const serverInfo = this.#client?.getServerVersion();
    if (protocolVersion) state.protocolVersion = protocolVersion;
    if (this.#connectMs !== undefined) state.connectMs = this.#connectMs;
    if (this.#error !== undefined) state.error = this.#error;
    if (serverInfo) state.serverInfo = { name: serverInfo.name, version: serverInfo.version };
    if (this.#process?.pid !== undefined) state.pid = this.#process.pid;
    return state;
  }

  /**
   * Start the server (or reach it), run the handshake and list its tools, within `connectTimeoutMs`.
   * Never throws: a failure leaves the connection `failed` with a reason.
   */
  async connect(signal?: AbortSignal): Promise<void> {
    if (this.#status !== "connecting") return;
    const started = performance.now();
    try {
      const deadline = AbortSignal.timeout(this.config.connectTimeoutMs);
      const connectSignal = signal ? AbortSignal.any([signal, deadline]) : deadline;
      await this.#establish(connectSignal);
      this.#tools = await this.#client!.listTools(undefined, { signal: connectSignal }).then((r) => r.tools);
      this.#connectMs = Math.round(performance.now() - started);
      this.#status = "ready";
      this.#log.info({ ms: this.#connectMs, tools: this.#tools.length }, "connected");
    } catch (error) {
      const reason = this.#describeConnectFailure(error);
      await this.#teardown();
      if (this.#status === "connecting") {
        this.#status = "failed";
        this.#error = reason;
        this.#log.warn({}, `failed to connect: ${reason}`);
      }
    }
  }

  /**
   * Call one tool by the server's own name.
   * @throws SwitchyardError `SERVER_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`, `INVALID_ARGUMENTS` or `SERVER_ERROR`.
   */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const client = this.#client;
    if (this.#status !== "ready" || !client) {
      throw new SwitchyardError(
        "SERVER_UNAVAILABLE",
        `server ${this.name} is ${this.#status}${this.#error ? `: ${this.#error}` : ""}; tool ${tool} cannot be called`,
        { server: this.name, tool },
      );
    }
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    try {
      const request = { name: tool, arguments: args };
      const requestOptions = options.signal
        ? { timeout: timeoutMs, signal: options.signal }
        : { timeout: timeoutMs };
      return (await client.callTool(request, requestOptions)) as CallToolResult;
    } catch (error) {
      throw toCallError(error, {
        server: this.name,
        tool,
        timeoutMs,
        signal: options.signal,
        unavailable: () => (this.#status !== "ready" && this.#error ? this.#error : undefined),
      });
    }
  }

  /** Stop the server (stdio: stdin, SIGTERM, SIGKILL) and release everything. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#status !== "disabled") this.#status = "closed";
      await this.#teardown();
    })();
    return this.#closing;
  }

  async #establish(signal: AbortSignal): Promise<void> {
    if (this.config.transport === "stdio") {
      try {
        return await this.#connectWith(this.#stdioTransport(), "stdio", signal);
      } catch (error) {
        // Some servers exit on any request before `initialize`, such as the version probe: start them
        // again and skip the probe. Everyone else pays nothing for probing (it runs in place).
        if (!(this.#negotiation() === "auto" && isProbeCutShort(error)) || signal.aborted) throw error;
        this.#log.info(
          {},
          "the server closed during the version probe; restarting it with a plain initialize",
        );
        await this.#teardown();
        return await this.#connectWith(this.#stdioTransport(), "stdio", signal, "legacy");
      }
    }
    const url = this.config.command ? await this.#launch(signal) : new URL(this.config.url!);
    if (this.config.transport === "sse")
      return this.#connectWith(this.#httpTransport("sse", url), "sse", signal);
    try {
      await this.#connectWith(this.#httpTransport("http", url), "http", signal);
    } catch (error) {
      if (this.config.transportForced || signal.aborted) throw error;
      this.#log.info({}, `Streamable HTTP failed (${messageOf(error)}); trying legacy SSE`);
      await this.#closeClient();
      try {
        await this.#connectWith(this.#httpTransport("sse", url), "sse", signal);
      } catch (sseError) {
        throw new Error(`Streamable HTTP: ${messageOf(error)}; legacy SSE: ${messageOf(sseError)}`, {
          cause: sseError,
        });
      }
    }
  }

  async #connectWith(
    transport: Transport,
    kind: TransportKind,
    signal: AbortSignal,
    mode: VersionNegotiation = this.#negotiation(),
  ): Promise<void> {
    this.#transportKind = kind;
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      versionNegotiation: {
        mode,
        probe: { timeoutMs: Math.min(this.config.connectTimeoutMs, MAX_PROBE_MS) },
      },
      listChanged: { tools: { onChanged: (error, tools) => this.#toolsChanged(error, tools) } },
    });
    this.#client = client;
    const wired = this.#hooks.wire ? tapTransport(transport, this.name, this.#hooks.wire) : transport;
    client.onclose = () => this.#lost();
    client.onerror = (error) => this.#log.debug({}, `transport error: ${error.message}`);
    await client.connect(wired, { signal, timeout: this.config.connectTimeoutMs });
  }

  #negotiation(): VersionNegotiation {
    return this.config.versionNegotiation;
  }

  #stdioTransport(): StdioTransport {
    const { command, args, env, cwd } = this.config;
    const transport = new StdioTransport({
      command: command!,
      args,
      env,
      cwd,
      onNoise: (line) => this.#noise(line),
      onStderr: (line) => this.#log.debug({ stream: "stderr" }, line),
    });
    this.#process = transport.process;
    return transport;
  }

  /** Start the local HTTP server a `url` entry carries, and return the URL it answers on. */
  async #launch(signal: AbortSignal): Promise<URL> {
    const launched = await launchHttpServer(this.config, {
      signal,
      onOutputLine: (line) => this.#log.debug({ stream: "output" }, line),
      onExit: () => this.#lost(),
    });
    this.#process = launched.process;
    this.#log.debug({ url: launched.url, pid: launched.process.pid }, "launched the server");
    return new URL(launched.url);
  }

  #httpTransport(kind: "http" | "sse", url: URL): Transport {
    const headers = this.config.headers;
    const fetchWithHeaders = createFetchWithInit(fetch, { headers });
    return kind === "http"
      ? new StreamableHTTPClientTransport(url, { fetch: fetchWithHeaders, requestInit: { headers } })
      : new SSEClientTransport(url, { fetch: fetchWithHeaders, requestInit: { headers } });
  }

  #noise(line: string): void {
    if (this.#noiseReported) return;
    this.#noiseReported = true;
    const sample = line.length > 200 ? `${line.slice(0, 200)}…` : line;
    this.#log.warn(
      { sample },
      "the server prints non-JSON-RPC lines on stdout; they are skipped (servers should log to stderr)",
    );
  }

  #toolsChanged(error: Error | null, tools: Tool[] | null): void {
    if (this.#status !== "ready") return;
    if (error || !tools) {
      this.#log.warn({}, `could not refresh tools after list_changed: ${error ? error.message : "no tools"}`);
      return;
    }
    this.#tools = tools;
    this.#log.info({ tools: tools.length }, "tool list changed");
    this.#hooks.onToolsChanged?.(this.name, tools);
  }

  /** The connection dropped: a crash unless we were the ones closing it. */
  #lost(): void {
    if (this.#status !== "ready") return;
    this.#status = "failed";
    this.#error = this.#describeExit("the connection closed");
    this.#log.warn({}, `server lost: ${this.#error}`);
    this.#hooks.onStatusChange?.(this.state());
  }

  async #teardown(): Promise<void> {
    await this.#closeClient();
    await this.#process?.stop();
  }

  async #closeClient(): Promise<void> {
    const client = this.#client;
    if (client) {
      client.onclose = undefined;
      await client.close().catch(() => {});
    }
  }

  #describeConnectFailure(error: unknown): string {
    const timedOut =
      (error instanceof Error && error.name === "TimeoutError") ||
      (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout);
    if (timedOut) {
      return this.#describeExit(
        `no answer to initialize within ${this.config.connectTimeoutMs} ms (connectTimeoutMs)`,
      );
    }
    if (this.#process?.exitInfo && isConnectionLoss(error)) {
      return this.#describeExit("the server exited during the handshake");
    }
    return this.#describeExit(messageOf(error));
  }

  #describeExit(what: string): string {
    const exit = this.#process?.describeExit();
    const tail = this.#process?.outputTail.slice(-5) ?? [];
    return `${what}${exit ? ` (${exit})` : ""}${tail.length ? `; stderr: ${tail.join(" | ")}` : ""}`;
  }
}

function isProbeCutShort(error: unknown): boolean {
  return (
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    /closed during the server\/discover probe/.test(error.message)
  );
}

function isConnectionLoss(error: unknown): boolean {
  if (error instanceof SdkError) {
    return [SdkErrorCode.ConnectionClosed, SdkErrorCode.NotConnected, SdkErrorCode.SendFailed].includes(
      error.code,
    );
  }
  return error instanceof Error && /not running|closed/i.test(error.message);
}
