// One life of a server: its process (if any), transport, MCP client, handshake and lists. The parts
// live beside it: the version probe (version-negotiation.ts), HTTP and its refusals
// (http-transports.ts), what it lists (server-lists.ts), what a failed start says (open-failure.ts).
import {
  Client,
  type Prompt,
  type Resource,
  type ResourceTemplateType,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import { DEFAULT_STREAM_OPEN_WAIT_MS } from "../config/defaults.js";
import type { ServerConfig, TransportKind, VersionNegotiation } from "../config/schema.js";
import { isSwitchyardError, readableFailure } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { WireSink } from "../telemetry/wire-trace.js";
import {
  type ClientRequests,
  clientCapabilities,
  registerClientRequests,
  ServerRequestBudget,
} from "./client-requests.js";
import { FirstAnswer } from "./first-answer.js";
import { HttpTransports } from "./http-transports.js";
import { launchHttpServer } from "./launcher.js";
import { describeExit, describeOpenFailure } from "./open-failure.js";
import { outsideRequestOrigins, RequestsInFlight } from "./request-origin.js";
import { listResourceTemplatesAgain, listServer } from "./server-lists.js";
import type { ServerProcess } from "./server-process.js";
import { StdioTransport } from "./stdio-transport.js";
import { tapTransport } from "./tap-transport.js";
import { TaskCalls } from "./tasks.js";
import { StdioProbeWatch } from "./version-negotiation.js";

/** What Switchyard tells servers about itself. */
export const CLIENT_INFO = { name: "switchyard", version: "0.1.0" };
/** A timer that only holds the event loop: it need not fire before it is cleared. */
const HOLD_INTERVAL_MS = 2 ** 30;

/** MCP's log levels (syslog's) on ours. */
const SERVER_LOG_LEVELS: Record<string, "debug" | "info" | "warn" | "error"> = {
  debug: "debug",
  info: "info",
  notice: "info",
  warning: "warn",
  error: "error",
  critical: "error",
  alert: "error",
  emergency: "error",
};

export interface SessionHooks {
  logger: Logger;
  wire?: WireSink;
  /** A stdout line that is not JSON-RPC. */
  onNoise: (line: string) => void;
  /** The server said its tools changed, and they were listed again. */
  onToolsChanged: (error: Error | null, tools: Tool[] | null) => void;
  /** The connection or the server's process went away; `why` says how, when it is not an exit. */
  onLost: (why?: string) => void;
  /** The server said its resources changed, and they (and its templates) were listed again. */
  onResourcesChanged?: (
    error: Error | null,
    lists: { resources: Resource[]; resourceTemplates: ResourceTemplateType[] } | null,
  ) => void;
  /** The server said its prompts changed, and they were listed again. */
  onPromptsChanged?: (error: Error | null, prompts: Prompt[] | null) => void;
  /** `notifications/resources/updated`: a subscribed resource changed. */
  onResourceUpdated?: (uri: string) => void;
  /** What the client answers when the server asks (elicitation, roots, sampling); declared only when given. */
  requests?: ClientRequests;
}

export interface SessionOptions {
  /**
   * Replaces the config's `"auto"` negotiation: what the server negotiated in an earlier life (see
   * `negotiationFor` in version-negotiation.ts), so that a restart does not probe again.
   */
  versionNegotiation?: VersionNegotiation;
}

/**
 * One life of a server: its process (if any), transport, MCP client, handshake and tool list. A
 * connection opens a new session to restart a server; a session is never reused once closed.
 */
export class ServerSession {
  readonly #config: ServerConfig;
  readonly #hooks: SessionHooks;
  readonly #negotiation: VersionNegotiation;
  /** The version probe's watch: a stdio server on `"auto"` negotiation only. */
  readonly #probe: StdioProbeWatch | undefined;
  /** The HTTP transports of this session's connect attempt (a `url` server, or a launched one). */
  #http: HttpTransports | undefined;
  /** The first answer to a lasting stream request (Streamable HTTP's server-to-client messages). */
  readonly #streamAnswered = new FirstAnswer();
  #client: Client | undefined;
  /** The tools being listed again after `tools/list_changed`, while they are. */
  #toolsRefresh: Promise<void> | undefined;
  #process: ServerProcess | undefined;
  #kind: TransportKind;
  #closed = false;
  tools: Tool[] = [];
  /** Resources, resource templates and prompts, listed when the server's capabilities offer them. */
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplateType[] = [];
  prompts: Prompt[] = [];
  connectMs: number | undefined;
  /** The tool calls of this session that run as tasks. */
  readonly tasks: TaskCalls;
  /** The requests sent and not yet answered, by origin: whose a server's message is. */
  readonly #inFlight = new RequestsInFlight();
  /** How many requests the server may send the client: per request of the client's in flight, and without. */
  readonly serverRequests: ServerRequestBudget;

  constructor(config: ServerConfig, hooks: SessionHooks, options: SessionOptions = {}) {
    this.#config = config;
    this.#hooks = hooks;
    this.tasks = new TaskCalls(config.name, hooks.logger, {
      requests: hooks.requests,
      clientInfo: CLIENT_INFO,
      capabilities: clientCapabilities(hooks.requests),
    });
    this.serverRequests = new ServerRequestBudget(config.name);
    this.#kind = config.transport;
    this.#negotiation =
      config.versionNegotiation === "auto"
        ? (options.versionNegotiation ?? "auto")
        : config.versionNegotiation;
    this.#probe =
      config.transport === "stdio" && this.#negotiation === "auto"
        ? new StdioProbeWatch(config.connectTimeoutMs)
        : undefined;
  }

  get client(): Client | undefined {
    return this.#client;
  }

  /** The transport in use (an `http` server may have fallen back to `sse`). */
  get transportKind(): TransportKind {
    return this.#kind;
  }

  /** The server's own process: the stdio child, or a launched local HTTP server. */
  get process(): ServerProcess | undefined {
    return this.#process;
  }

  /** True when the server needs `switchyard login`: no valid token, and no refresh could get one. */
  get needsLogin(): boolean {
    return this.#http?.needsLogin ?? false;
  }

  /**
   * Start (or reach) the server, run the handshake and list its tools, within `connectTimeoutMs`. A
   * stdio server started again without the version probe gets a `connectTimeoutMs` of its own.
   * @throws SwitchyardError `AUTH_REQUIRED` when an HTTP server answers 401 or 403 (no SSE fallback);
   *   Error whose message says why otherwise, with the process's exit and last output when it has one.
   */
  open(signal?: AbortSignal): Promise<void> {
    // The process, its streams and timers belong to no caller, even when one caller's request starts it.
    return outsideRequestOrigins(() => this.#open(signal));
  }

  async #open(signal: AbortSignal | undefined): Promise<void> {
    const started = performance.now();
    // Connecting is work in flight, even while all it waits for is the first event of an unref'd
    // stream (legacy SSE sends its endpoint there): hold the event loop until it is done.
    const holdEventLoop = setInterval(() => {}, HOLD_INTERVAL_MS);
    try {
      try {
        await this.#openOnce(this.#negotiation, signal);
      } catch (error) {
        // A stdio server that closed during the version probe, or left it unanswered and was stopped.
        if (!this.#probe?.startAgain(error) || signal?.aborted) throw error;
        this.#hooks.logger.info(
          {},
          this.#probe.unanswered
            ? `the server left the version probe unanswered for ${this.#probe.waitMs} ms; restarting it with a plain initialize`
            : "the server closed during the version probe; restarting it with a plain initialize",
        );
        await this.#process?.stop();
        await this.#openOnce("legacy", signal);
      }
      this.connectMs = Math.round(performance.now() - started);
    } catch (error) {
      const failure = isSwitchyardError(error)
        ? error
        : new Error(describeOpenFailure(error, { config: this.#config, process: this.#process }), {
            cause: error,
          });
      await this.close();
      throw failure;
    } finally {
      clearInterval(holdEventLoop);
    }
  }

  /** One start: the handshake, then the lists, within `connectTimeoutMs`. */
  async #openOnce(mode: VersionNegotiation, signal: AbortSignal | undefined): Promise<void> {
    const deadline = AbortSignal.timeout(this.#config.connectTimeoutMs);
    const openSignal = signal ? AbortSignal.any([signal, deadline]) : deadline;
    await this.#establish(openSignal, mode);
    // A token the handshake passed with and the listing is refused with (revoked, or the server moved
    // to another authorization server) needs a login as much as one refused at the handshake.
    const lists = await listServer(this.#client!, { signal: openSignal, logger: this.#hooks.logger }).catch(
      (error: unknown) => {
        throw this.#http?.authFailure(error) ?? error;
      },
    );
    this.tools = lists.tools;
    this.resources = lists.resources;
    this.resourceTemplates = lists.resourceTemplates;
    this.prompts = lists.prompts;
    // Streamable HTTP: the stream of server-to-client messages (the standalone GET, or
    // subscriptions/listen) is open before the first call, so that nothing the server sends in
    // answer to that call (an elicitation, say) goes to a stream not yet there.
    if (this.#kind === "http") await this.#streamAnswered.wait(DEFAULT_STREAM_OPEN_WAIT_MS);
  }

  /**
   * After `notifications/tools/list_changed`: list the tools again (in order, one listing after
   * another) and hand them on. A tool call waits for it ({@link toolsSettled}), so that what the server
   * changed is judged (pins, quarantine) before the call goes out, not after.
   */
  #toolsChanged(): void {
    const client = this.#client;
    if (!client) return;
    const listed = (this.#toolsRefresh ?? Promise.resolve()).then(() =>
      client.listTools().then(
        ({ tools }) => this.#hooks.onToolsChanged(null, tools),
        (error: unknown) =>
          this.#hooks.onToolsChanged(error instanceof Error ? error : new Error(String(error)), null),
      ),
    );
    this.#toolsRefresh = listed;
    void listed.finally(() => {
      if (this.#toolsRefresh === listed) this.#toolsRefresh = undefined;
    });
  }

  /** Resolves once the tools listed after the latest `tools/list_changed` have been handed on. */
  toolsSettled(): Promise<void> {
    return this.#toolsRefresh ?? Promise.resolve();
  }

  /** After `notifications/resources/list_changed`: the SDK listed the resources; list the templates too. */
  async #resourcesChanged(error: Error | null, resources: Resource[] | null): Promise<void> {
    if (error || !resources || !this.#client) return this.#hooks.onResourcesChanged?.(error, null);
    const resourceTemplates = await listResourceTemplatesAgain(
      this.#client,
      this.resourceTemplates,
      this.#hooks.logger,
    );
    this.resources = resources;
    this.resourceTemplates = resourceTemplates;
    this.#hooks.onResourcesChanged?.(null, { resources, resourceTemplates });
  }

  /** "what (exit code 3); stderr: last | lines", from what the process left behind. */
  describeExit(what: string): string {
    return describeExit(this.#process, what);
  }

  /** Close the client and stop the process. Idempotent; `onLost` is not called for it. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    if (client) {
      client.onclose = () => {};
      await client.close().catch(() => {});
    }
    await this.#process?.stop();
  }

  async #establish(signal: AbortSignal, mode: VersionNegotiation): Promise<void> {
    if (this.#config.transport === "stdio")
      return await this.#connectWith(this.#stdioTransport(), "stdio", signal, mode);
    const url = this.#config.command ? await this.#launch(signal) : new URL(this.#config.url!);
    const http = new HttpTransports({ config: this.#config, url, streamAnswered: this.#streamAnswered });
    this.#http = http;
    if (this.#config.transport === "sse") {
      try {
        return await this.#connectWith(http.create("sse"), "sse", signal, mode);
      } catch (error) {
        throw http.authFailure(error) ?? error;
      }
    }
    try {
      await this.#connectWith(http.create("http"), "http", signal, mode);
    } catch (error) {
      // A server that refuses the client says so over either transport: report it, do not fall back.
      const refused = http.authFailure(error);
      if (refused) throw refused;
      if (this.#config.transportForced || signal.aborted) throw error;
      this.#hooks.logger.info({}, `Streamable HTTP failed (${readableFailure(error)}); trying legacy SSE`);
      await this.#client?.close().catch(() => {});
      try {
        await this.#connectWith(http.create("sse"), "sse", signal, mode);
      } catch (sseError) {
        this.#kind = "http"; // neither worked: report what was configured
        throw http.bothFailed(error, sseError);
      }
    }
  }

  async #connectWith(
    transport: Transport,
    kind: TransportKind,
    signal: AbortSignal,
    mode: VersionNegotiation,
  ): Promise<void> {
    this.#kind = kind;
    const client = new Client(CLIENT_INFO, {
      capabilities: clientCapabilities(this.#hooks.requests),
      // The probe may take the whole connect budget: a pinned or HTTP probe has no fallback, so cutting
      // it short would only fail the connect; and on stdio with "auto" the probe's watch cuts it short
      // instead of the SDK, whose fallback (`initialize` on the same connection) it replaces.
      versionNegotiation: { mode, probe: { timeoutMs: this.#config.connectTimeoutMs } },
      // Tools: told at once (no debounce) and listed by us, so that a call knows a new listing is on its
      // way; the SDK still subscribes to the changes (2026-07-28's subscriptions/listen).
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.#toolsChanged() },
        resources: { onChanged: (error, resources) => void this.#resourcesChanged(error, resources) },
        prompts: { onChanged: (error, prompts) => this.#hooks.onPromptsChanged?.(error, prompts) },
      },
    });
    this.#client = client;
    const originOf = () => this.#inFlight.originOf();
    registerClientRequests(client, {
      server: this.#config.name,
      requests: this.#hooks.requests,
      budget: this.serverRequests,
      originOf,
    });
    // A server's log messages go to our logger, at their level, tagged with the server (the logger's),
    // and to the requests' `log` with the origin they belong to.
    client.setNotificationHandler("notifications/message", ({ params }) => {
      const { level, logger, data } = params;
      const text = typeof data === "string" ? data : JSON.stringify(data);
      this.#hooks.logger[SERVER_LOG_LEVELS[level] ?? "info"](
        { source: "server log", serverLevel: level, ...(logger !== undefined ? { logger } : {}) },
        text,
      );
      this.#hooks.requests?.log?.({
        server: this.#config.name,
        level,
        ...(logger !== undefined ? { logger } : {}),
        data,
        origin: originOf(),
      });
    });
    client.setNotificationHandler("notifications/resources/updated", ({ params }) =>
      this.#hooks.onResourceUpdated?.(params.uri),
    );
    const tracked = this.#inFlight.track(transport);
    const wired = this.tasks.tap(
      this.#hooks.wire ? tapTransport(tracked, this.#config.name, this.#hooks.wire) : tracked,
    );
    client.onclose = () => this.#lost();
    client.onerror = (error) => this.#hooks.logger.debug({}, `transport error: ${error.message}`);
    const watch =
      transport instanceof StdioTransport && mode === "auto" ? this.#probe?.watch(transport) : undefined;
    try {
      await client.connect(wired, { signal, timeout: this.#config.connectTimeoutMs });
    } finally {
      clearTimeout(watch);
    }
  }

  #stdioTransport(): StdioTransport {
    const { command, args, env, cwd, maxResultBytes } = this.#config;
    const transport = new StdioTransport({
      command: command!,
      args,
      env,
      cwd,
      maxMessageBytes: maxResultBytes,
      onNoise: this.#hooks.onNoise,
      // Stop sending at once: calls that arrive from now on wait for the restart instead.
      onExit: () => this.#lost(),
      // Nothing it answers can arrive any more, though it runs on: lost all the same.
      onStdoutClosed: () => this.#lost("the server closed its stdout and kept running"),
      onStderr: (line) => this.#hooks.logger.debug({ stream: "stderr" }, line),
    });
    this.#process = transport.process;
    return transport;
  }

  /** Start the local HTTP server a `url` entry carries, and return the URL it answers on. */
  async #launch(signal: AbortSignal): Promise<URL> {
    const launched = await launchHttpServer(this.#config, {
      signal,
      onOutputLine: (line) => this.#hooks.logger.debug({ stream: "output" }, line),
      onExit: () => this.#lost(),
    });
    this.#process = launched.process;
    this.#hooks.logger.debug({ url: launched.url, pid: launched.process.pid }, "launched the server");
    return new URL(launched.url);
  }

  #lost(why?: string): void {
    if (!this.#closed) this.#hooks.onLost(why);
  }
}
