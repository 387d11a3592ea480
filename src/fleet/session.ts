import {
  Client,
  extractWWWAuthenticateParams,
  type FetchLike,
  type Prompt,
  type Resource,
  type ResourceTemplateType,
  SdkError,
  SdkErrorCode,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { DEFAULT_STDIO_PROBE_WAIT_MS, DEFAULT_STREAM_OPEN_WAIT_MS } from "../config/defaults.js";
import type { ServerConfig, TransportKind, VersionNegotiation } from "../config/schema.js";
import { isSwitchyardError, readableFailure, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { WireSink } from "../telemetry/wire-trace.js";
import { isConnectionLoss } from "./call-errors.js";
import { type ClientRequests, clientCapabilities, registerClientRequests } from "./client-requests.js";
import { launchHttpServer } from "./launcher.js";
import { connectAuthProvider, FileOAuthProvider } from "./oauth.js";
import type { ServerProcess } from "./server-process.js";
import { StdioTransport } from "./stdio-transport.js";
import { fetchWithIdleStreams, opensLastingStream } from "./stream-fetch.js";
import { tapTransport } from "./tap-transport.js";
import { TaskCalls } from "./tasks.js";

/** What Switchyard tells servers about itself. */
export const CLIENT_INFO = { name: "switchyard", version: "0.1.0" };
/** The first version of the protocol negotiated with `server/discover` rather than `initialize`. */
const FIRST_DISCOVER_VERSION = "2026-07-28";
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
  /** The connection or the server's process went away. */
  onLost: () => void;
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
   * {@link negotiationFor}), so that a restart does not probe again.
   */
  versionNegotiation?: VersionNegotiation;
}

/**
 * The negotiation that reaches `version` again without a probe: `{ pin: version }` for a revision
 * negotiated with `server/discover` (2026-07-28 and later), `"legacy"` for an older one.
 */
export function negotiationFor(version: string | undefined): VersionNegotiation | undefined {
  if (version === undefined) return undefined;
  return version >= FIRST_DISCOVER_VERSION ? { pin: version } : "legacy";
}

/**
 * One life of a server: its process (if any), transport, MCP client, handshake and tool list. A
 * connection opens a new session to restart a server; a session is never reused once closed.
 */
/** Settles once the first of some requests has been answered (or failed); waits are bounded. */
class FirstAnswer {
  #done = false;
  #wake: (() => void) | undefined;
  readonly #settled = new Promise<void>((resolve) => {
    this.#wake = resolve;
  });

  settle(answer: Promise<unknown>): void {
    if (this.#done) return;
    this.#done = true;
    answer.then(this.#wake, this.#wake);
  }

  /** Until the first answer, at most `ms`. */
  async wait(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }
}

export class ServerSession {
  readonly #config: ServerConfig;
  readonly #hooks: SessionHooks;
  readonly #negotiation: VersionNegotiation;
  /** The last HTTP 401/403 the server answered during this session's connect attempt, if any. */
  #refusal: { status: number; challenge?: string } | undefined;
  /** The OAuth provider of this session's HTTP transport (a server with an `oauth` section). */
  #authProvider: ReturnType<typeof connectAuthProvider>;
  /** True when the server needs `switchyard login`: no valid token, and no refresh could get one. */
  needsLogin = false;
  /** The first answer to a lasting stream request (Streamable HTTP's server-to-client messages). */
  readonly #streamAnswered = new FirstAnswer();
  #client: Client | undefined;
  #process: ServerProcess | undefined;
  #kind: TransportKind;
  /** The server's version probe went unanswered for the probe's wait, and its process was stopped. */
  #probeUnanswered = false;
  #closed = false;
  tools: Tool[] = [];
  /** Resources, resource templates and prompts, listed when the server's capabilities offer them. */
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplateType[] = [];
  prompts: Prompt[] = [];
  connectMs: number | undefined;
  /** The tool calls of this session that run as tasks. */
  readonly tasks: TaskCalls;

  constructor(config: ServerConfig, hooks: SessionHooks, options: SessionOptions = {}) {
    this.#config = config;
    this.#hooks = hooks;
    this.tasks = new TaskCalls(config.name, hooks.logger);
    this.#kind = config.transport;
    this.#negotiation =
      config.versionNegotiation === "auto"
        ? (options.versionNegotiation ?? "auto")
        : config.versionNegotiation;
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

  /**
   * Start (or reach) the server, run the handshake and list its tools, within `connectTimeoutMs`. A
   * stdio server started again without the version probe gets a `connectTimeoutMs` of its own.
   * @throws SwitchyardError `AUTH_REQUIRED` when an HTTP server answers 401 or 403 (no SSE fallback);
   *   Error whose message says why otherwise, with the process's exit and last output when it has one.
   */
  async open(signal?: AbortSignal): Promise<void> {
    const started = performance.now();
    // Connecting is work in flight, even while all it waits for is the first event of an unref'd
    // stream (legacy SSE sends its endpoint there): hold the event loop until it is done.
    const holdEventLoop = setInterval(() => {}, HOLD_INTERVAL_MS);
    try {
      try {
        await this.#openOnce(this.#negotiation, signal);
      } catch (error) {
        if (!this.#startAgainWithoutProbe(error) || signal?.aborted) throw error;
        this.#hooks.logger.info(
          {},
          this.#probeUnanswered
            ? `the server left the version probe unanswered for ${this.#probeWaitMs()} ms; restarting it with a plain initialize`
            : "the server closed during the version probe; restarting it with a plain initialize",
        );
        await this.#process?.stop();
        await this.#openOnce("legacy", signal);
      }
      this.connectMs = Math.round(performance.now() - started);
    } catch (error) {
      const failure = isSwitchyardError(error)
        ? error
        : new Error(this.#describeFailure(error), { cause: error });
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
    this.tools = (await this.#client!.listTools(undefined, { signal: openSignal })).tools;
    await this.#listResourcesAndPrompts(openSignal);
    // Streamable HTTP: the stream of server-to-client messages (the standalone GET, or
    // subscriptions/listen) is open before the first call, so that nothing the server sends in
    // answer to that call (an elicitation, say) goes to a stream not yet there.
    if (this.#kind === "http") await this.#streamAnswered.wait(DEFAULT_STREAM_OPEN_WAIT_MS);
  }

  /**
   * Whether a stdio server that failed its first start goes again with a plain `initialize`: it closed
   * during the version probe (some servers exit on any request before `initialize`), or it left the
   * probe unanswered for {@link DEFAULT_STDIO_PROBE_WAIT_MS} and was stopped (see `#watchProbe`).
   */
  #startAgainWithoutProbe(error: unknown): boolean {
    if (this.#config.transport !== "stdio" || this.#negotiation !== "auto") return false;
    return this.#probeUnanswered || isProbeCutShort(error);
  }

  /**
   * List every page of the server's resources, resource templates and prompts, each only when its
   * capabilities offer it. A server that fails these lists still connects: its tools work; the
   * failure is logged and the list left empty.
   */
  async #listResourcesAndPrompts(signal: AbortSignal): Promise<void> {
    const client = this.#client!;
    const offers = client.getServerCapabilities() ?? {};
    const list = async <T>(what: string, run: () => Promise<T[]>): Promise<T[]> => {
      try {
        return await run();
      } catch (error) {
        if (signal.aborted) throw error;
        this.#hooks.logger.warn({}, `could not list the server's ${what}: ${readableFailure(error)}`);
        return [];
      }
    };
    if (offers.resources) {
      this.resources = await list(
        "resources",
        async () => (await client.listResources(undefined, { signal })).resources,
      );
      this.resourceTemplates = await list(
        "resource templates",
        async () => (await client.listResourceTemplates(undefined, { signal })).resourceTemplates,
      );
    }
    if (offers.prompts)
      this.prompts = await list(
        "prompts",
        async () => (await client.listPrompts(undefined, { signal })).prompts,
      );
  }

  /** After `notifications/resources/list_changed`: the SDK listed the resources; list the templates too. */
  async #resourcesChanged(error: Error | null, resources: Resource[] | null): Promise<void> {
    if (error || !resources || !this.#client) return this.#hooks.onResourcesChanged?.(error, null);
    let resourceTemplates = this.resourceTemplates;
    try {
      resourceTemplates = (await this.#client.listResourceTemplates()).resourceTemplates;
    } catch (failure) {
      this.#hooks.logger.debug({}, `could not list resource templates again: ${readableFailure(failure)}`);
    }
    this.resources = resources;
    this.resourceTemplates = resourceTemplates;
    this.#hooks.onResourcesChanged?.(null, { resources, resourceTemplates });
  }

  /** "what (exit code 3); stderr: last | lines", from what the process left behind. */
  describeExit(what: string): string {
    const exit = this.#process?.describeExit();
    const tail = this.#process?.outputTail.slice(-5) ?? [];
    return `${what}${exit ? ` (${exit})` : ""}${tail.length ? `; stderr: ${tail.join(" | ")}` : ""}`;
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
    if (this.#config.transport === "sse") {
      try {
        return await this.#connectWith(this.#httpTransport("sse", url), "sse", signal, mode);
      } catch (error) {
        throw this.#authFailure(url, error) ?? error;
      }
    }
    try {
      await this.#connectWith(this.#httpTransport("http", url), "http", signal, mode);
    } catch (error) {
      // A server that refuses the client says so over either transport: report it, do not fall back.
      const refused = this.#authFailure(url, error);
      if (refused) throw refused;
      if (this.#config.transportForced || signal.aborted) throw error;
      this.#hooks.logger.info({}, `Streamable HTTP failed (${readableFailure(error)}); trying legacy SSE`);
      await this.#client?.close().catch(() => {});
      try {
        await this.#connectWith(this.#httpTransport("sse", url), "sse", signal, mode);
      } catch (sseError) {
        this.#kind = "http"; // neither worked: report what was configured
        throw (
          this.#authFailure(url, sseError) ??
          new Error(bothFailed(url, readableFailure(error), readableFailure(sseError)), { cause: sseError })
        );
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
      // it short would only fail the connect; and on stdio with "auto" `#watchProbe` cuts it short
      // instead of the SDK, whose fallback (`initialize` on the same connection) it replaces.
      versionNegotiation: { mode, probe: { timeoutMs: this.#config.connectTimeoutMs } },
      listChanged: {
        tools: { onChanged: (error, tools) => this.#hooks.onToolsChanged(error, tools) },
        resources: { onChanged: (error, resources) => void this.#resourcesChanged(error, resources) },
        prompts: { onChanged: (error, prompts) => this.#hooks.onPromptsChanged?.(error, prompts) },
      },
    });
    this.#client = client;
    registerClientRequests(client, this.#config.name, this.#hooks.requests);
    // A server's log messages go to our logger, at their level, tagged with the server (the logger's).
    client.setNotificationHandler("notifications/message", ({ params }) => {
      const { level, logger, data } = params;
      const text = typeof data === "string" ? data : JSON.stringify(data);
      this.#hooks.logger[SERVER_LOG_LEVELS[level] ?? "info"](
        { source: "server log", serverLevel: level, ...(logger !== undefined ? { logger } : {}) },
        text,
      );
    });
    client.setNotificationHandler("notifications/resources/updated", ({ params }) =>
      this.#hooks.onResourceUpdated?.(params.uri),
    );
    const wired = this.tasks.tap(
      this.#hooks.wire ? tapTransport(transport, this.#config.name, this.#hooks.wire) : transport,
    );
    client.onclose = () => this.#lost();
    client.onerror = (error) => this.#hooks.logger.debug({}, `transport error: ${error.message}`);
    const watch =
      transport instanceof StdioTransport && mode === "auto" ? this.#watchProbe(transport) : undefined;
    try {
      await client.connect(wired, { signal, timeout: this.#config.connectTimeoutMs });
    } finally {
      clearTimeout(watch);
    }
  }

  /**
   * Stop the server if it leaves the version probe unanswered for the probe's wait: it is then started
   * again with a plain `initialize` (see `open`). Falling back on the same connection, as the
   * SDK does, is right only for a server that read the probe and ignored it; a server slow to start
   * reads it later, as a request before `initialize`, which many servers cannot forgive (they exit,
   * answer with an error and refuse the handshake, or end their session and stay silent). Only a fresh
   * process never sees the probe.
   */
  #watchProbe(transport: StdioTransport): NodeJS.Timeout {
    this.#probeUnanswered = false;
    return setTimeout(() => {
      if (!transport.probing) return;
      this.#probeUnanswered = true;
      void transport.close();
    }, this.#probeWaitMs());
  }

  /** The probe's wait: how long a stdio server may leave it unanswered (capped by `connectTimeoutMs`). */
  #probeWaitMs(): number {
    return Math.min(this.#config.connectTimeoutMs, DEFAULT_STDIO_PROBE_WAIT_MS);
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

  #httpTransport(kind: "http" | "sse", url: URL): Transport {
    const headers = this.#config.headers;
    // The streams that stay open for server-to-client messages do not hold the event loop.
    const base = fetchWithIdleStreams(fetch);
    // The config's headers on every request, under the SDK's own (which already carry them, in lower
    // case): merged by name whatever its case, so that none is sent twice ("Bearer t, Bearer t").
    const withHeaders: FetchLike = (input, init) => {
      const merged = new Headers(headers);
      for (const [name, value] of new Headers(init?.headers)) merged.set(name, value);
      return base(input, { ...init, headers: merged });
    };
    this.#refusal = undefined;
    // Remember a 401/403 and its challenge: the SDK's errors for them carry neither reliably.
    const fetchWithHeaders: FetchLike = async (input, init) => {
      const lasting = kind === "http" && opensLastingStream(input, init);
      const answered = withHeaders(input, init);
      if (lasting) this.#streamAnswered.settle(answered);
      const response = await answered;
      if (response.status === 401 || response.status === 403) {
        const challenge = response.headers.get("www-authenticate");
        this.#refusal = { status: response.status, ...(challenge ? { challenge } : {}) };
        const { error, scope } = extractWWWAuthenticateParams(response);
        if (error === "insufficient_scope" && scope && this.#authProvider instanceof FileOAuthProvider)
          this.#authProvider.noteRequiredScope(scope);
      } else if (response.ok && this.#authProvider && String(input) === url.href) {
        this.#refusal = undefined; // the provider's token (or refresh) was accepted
      }
      return response;
    };
    this.#authProvider = connectAuthProvider(this.#config, url.href);
    const options = {
      fetch: fetchWithHeaders,
      requestInit: { headers },
      ...(this.#authProvider ? { authProvider: this.#authProvider } : {}),
    };
    return kind === "http"
      ? new StreamableHTTPClientTransport(url, options)
      : new SSEClientTransport(url, options);
  }

  /**
   * The failure to report when the server answered the connect attempt with HTTP 401 or 403:
   * `AUTH_REQUIRED`, naming the server, where it is, the status, its challenge and what to do.
   */
  #authFailure(url: URL, cause: unknown): SwitchyardError | undefined {
    const refusal = this.#refusal;
    const { name } = this.#config;
    const provider = this.#authProvider;
    const needsLogin = provider instanceof FileOAuthProvider && provider.needsLogin;
    if (provider && (cause instanceof UnauthorizedError || refusal || needsLogin)) {
      const where = `${url.origin}${url.pathname}`;
      if (provider instanceof FileOAuthProvider) {
        // No valid token and no refresh: the flow needs the user, which a connect never asks for.
        this.needsLogin = true;
        return new SwitchyardError(
          "AUTH_REQUIRED",
          `server ${name} at ${where} needs a login: run \`switchyard login ${name}\``,
          { server: name, ...(refusal ? { status: refusal.status } : {}), cause },
        );
      }
      const oauth = this.#config.oauth;
      const check =
        oauth?.grant === "cross_app_access"
          ? 'check "oauth.clientId", "oauth.clientSecret" and "oauth.idp" (its ID token may have expired)'
          : oauth?.privateKey
            ? 'check "oauth.clientId", "oauth.privateKey" and "oauth.signingAlgorithm"'
            : 'check "oauth.clientId" and "oauth.clientSecret"';
      return new SwitchyardError(
        "AUTH_REQUIRED",
        `server ${name} at ${where}: the ${oauth?.grant === "cross_app_access" ? "cross-app access" : "client credentials"} grant failed (${readableFailure(cause)}): ${check}`,
        { server: name, ...(refusal ? { status: refusal.status } : {}), cause },
      );
    }
    if (!refusal) return undefined;
    const { status, challenge } = refusal;
    const where = `${url.origin}${url.pathname}`; // no query: it may hold a key
    const said = status === 401 ? "requires authorization" : "denied access";
    const todo =
      status === 401
        ? `set an Authorization header in the server's "headers", e.g. "Authorization": "Bearer \${TOKEN}" with TOKEN from the environment`
        : `check the credentials in the server's "headers" (e.g. "Authorization": "Bearer \${TOKEN}" with TOKEN from the environment): they must grant access to this server`;
    return new SwitchyardError(
      "AUTH_REQUIRED",
      `server ${name} at ${where} ${said} (HTTP ${status}${challenge ? `; WWW-Authenticate: ${challenge}` : ""}): ${todo}`,
      { server: name, status, ...(challenge ? { challenge } : {}), cause },
    );
  }

  #lost(): void {
    if (!this.#closed) this.#hooks.onLost();
  }

  #describeFailure(error: unknown): string {
    const timedOut =
      (error instanceof Error && error.name === "TimeoutError") ||
      (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout);
    if (timedOut) {
      return this.describeExit(
        `no answer to initialize within ${this.#config.connectTimeoutMs} ms (connectTimeoutMs)`,
      );
    }
    if (this.#process?.exitInfo && isLost(error))
      return this.describeExit("the server exited during the handshake");
    const reason = readableFailure(error);
    if (this.#config.transport === "stdio" || reason.includes("://")) return this.describeExit(reason);
    const url = URL.canParse(this.#config.url ?? "") ? new URL(this.#config.url!) : undefined;
    return this.describeExit(url ? `${url.origin}${url.pathname}: ${reason}` : reason);
  }
}

/** Both HTTP transports failed: one reason when they failed alike, else each. */
function bothFailed(url: URL, http: string, sse: string): string {
  const where = `${url.origin}${url.pathname}`;
  if (http === sse || sse.endsWith(http)) return `${where}: ${http} (tried Streamable HTTP and legacy SSE)`;
  return `${where}: Streamable HTTP: ${http}; legacy SSE: ${sse}`;
}

function isProbeCutShort(error: unknown): boolean {
  return (
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    /closed during the server\/discover probe/.test(error.message)
  );
}

/** The connection went away, as the SDK says it or as our own transport does before it knows. */
function isLost(error: unknown): boolean {
  return isConnectionLoss(error) || (error instanceof Error && /not running|closed/i.test(error.message));
}
