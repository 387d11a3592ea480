import { setTimeout as delay } from "node:timers/promises";
import type {
  CallToolResult,
  Client,
  GetPromptResult,
  McpSubscription,
  Prompt,
  ReadResourceResult,
  RequestOptions,
  Resource,
  ResourceTemplateType,
  Tool,
} from "@modelcontextprotocol/client";
import { DEFAULT_RESTART_STABLE_AFTER_MS } from "../config/defaults.js";
import type { ServerConfig, TransportKind } from "../config/schema.js";
import { type ErrorCode, httpStatusOf, isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import {
  endSpan,
  failSpan,
  inSpan,
  type Span,
  SpanKind,
  startSpan,
  traceContextMeta,
} from "../telemetry/tracer.js";
import type { WireSink } from "../telemetry/wire-trace.js";
import { isRefused, toCallError, toRequestError } from "./call-errors.js";
import { type CachedServerCatalog, readServerCatalog, writeServerCatalog } from "./catalog-cache.js";
import type { ClientRequests } from "./client-requests.js";
import { negotiationFor, ServerSession, type SessionOptions } from "./session.js";
import { CALL_TOOL_RESULT, declaresHeaders } from "./tool-result.js";

export { CLIENT_INFO } from "./session.js";

/**
 * Where a server stands: `ready`, `failed` (with a reason), `needs-auth` (an OAuth server with no
 * valid token: `switchyard login <server>`, error code `AUTH_REQUIRED`) and `disabled` are the settled states;
 * `connecting`, `restarting` (after a crash, within `restart.maxRestarts`) and `closed` pass. `lazy`: a
 * `lazy: true` server not started yet, its lists from its cached catalog; the first call (or anything
 * else that needs it) starts it, and it is `ready` or `failed` from then on.
 */
export type ServerStatus =
  | "lazy"
  | "connecting"
  | "ready"
  | "restarting"
  | "failed"
  | "needs-auth"
  | "disabled"
  | "closed";

/** What the last health ping said: `unknown` until one ran (pings are off unless `health.intervalMs`). */
export type Health = "ok" | "failing" | "unknown";

/** A snapshot of one server, as `servers()` and `switchyard servers` report it. */
export interface ServerState {
  name: string;
  status: ServerStatus;
  transport: TransportKind;
  /** Protocol version agreed in the handshake. */
  protocolVersion?: string;
  /** Tools the server offers (before allow/deny filters). */
  tools: number;
  /** Resources the server lists (none when it does not offer resources). */
  resources: number;
  /** Prompts the server lists (none when it does not offer prompts). */
  prompts: number;
  /** Tool calls running as tasks on the server (the tasks extension): created, not yet over. */
  tasks: number;
  /** Spawn or first request → handshake done and tools listed. */
  connectMs?: number;
  /** Why the server is `failed` (or was lost), with its last stderr lines when it is a process. */
  error?: string;
  /** The error code of why the server failed, when it is a known kind (`AUTH_REQUIRED`, …). */
  errorCode?: ErrorCode;
  /** `serverInfo` from the handshake. */
  serverInfo?: { name: string; version: string };
  /** The server's process id (stdio and launched HTTP servers). */
  pid?: number;
  /** Times the server was restarted (or reconnected) after it was lost. */
  restarts: number;
  health: Health;
}

export interface ConnectionHooks {
  logger: Logger;
  wire?: WireSink;
  /** The server's tool list changed (after `notifications/tools/list_changed`, or a restart). */
  onToolsChanged?: (server: string, tools: Tool[]) => void;
  /**
   * The server's status changed. `recovered` is true when it became ready again after it was lost or
   * failed (a restart or a reconnect finished the handshake and listed its tools).
   */
  onStatus?: (server: string, status: ServerStatus, recovered: boolean) => void;
  /** The server's resources or resource templates changed (after `resources/list_changed`, or a restart). */
  onResourcesChanged?: (
    server: string,
    resources: Resource[],
    resourceTemplates: ResourceTemplateType[],
  ) => void;
  /** The server's prompts changed (after `prompts/list_changed`, or a restart). */
  onPromptsChanged?: (server: string, prompts: Prompt[]) => void;
  /** A resource the server was subscribed to changed (`notifications/resources/updated`). */
  onResourceUpdated?: (server: string, uri: string) => void;
  /** What the client answers when the server asks (elicitation, roots, sampling). */
  requests?: ClientRequests;
}

/** A progress notification of a call: how far it is, of how much, and what it is doing. */
export interface CallProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Each progress notification the server sends for the call. */
  onProgress?: (progress: CallProgress) => void;
  /**
   * Let progress notifications push the deadline back, each by `timeoutMs`, up to this total. Off
   * when absent.
   */
  maxTotalTimeoutMs?: number;
}

/** How a tool list's tools are called: tools that run as tasks; tools whose arguments go in headers. */
interface CallPlan {
  of: Tool[];
  taskOnly: ReadonlySet<string>;
  mirrored: ReadonlySet<string>;
}

/**
 * One configured server over its whole life: connects it, restarts it when it is lost (with backoff,
 * up to `restart.maxRestarts`; calls that arrive meanwhile wait), pings it when asked, and carries
 * its calls. Each life of the server is a {@link ServerSession}.
 */
export class ServerConnection {
  readonly config: ServerConfig;
  readonly #hooks: ConnectionHooks;
  readonly #log: Logger;
  #status: ServerStatus;
  #session: ServerSession | undefined;
  /** What the server negotiated in its last life: a restart opens with it and does not probe again. */
  #negotiated: SessionOptions["versionNegotiation"];
  #tools: Tool[] = [];
  /**
   * How each tool is called, worked out once per tool list (`#tools` is replaced, never changed): the
   * tools that must run as tasks, and those whose input schema declares `x-mcp-header`.
   */
  #callPlan: CallPlan | undefined;
  #resources: Resource[] = [];
  #resourceTemplates: ResourceTemplateType[] = [];
  #prompts: Prompt[] = [];
  /** Resources subscribed to (`resources/subscribe`): a restart subscribes to them again. */
  readonly #subscribed = new Set<string>();
  /** On the 2026-07-28 revision, the `subscriptions/listen` stream that carries those subscriptions. */
  #listening: McpSubscription | undefined;
  #connectMs: number | undefined;
  #error: string | undefined;
  #errorCode: ErrorCode | undefined;
  /** The last connect attempt failed for want of an OAuth login. */
  #needsAuth = false;
  /** Counts the server's lives: failures within one life share an incident. */
  #generation = 0;
  #noiseReported = false;
  #closing: Promise<void> | undefined;
  #restarts = 0;
  #restartsInRow = 0;
  #upSince = 0;
  #health: Health = "unknown";
  #healthTimer: NodeJS.Timeout | undefined;
  /** Resolves when a restart is over, one way or the other; calls that arrive meanwhile wait on it. */
  #restartOver: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Aborted on close: ends restart backoffs early. */
  readonly #lifetime = new AbortController();
  /** A lazy server's catalog from its last life, while it is not started. */
  #cached: CachedServerCatalog | undefined;
  /** A lazy server starting: every call that needs it waits on this one start. */
  #starting: Promise<void> | undefined;

  constructor(config: ServerConfig, hooks: ConnectionHooks) {
    this.config = config;
    this.#hooks = hooks;
    this.#log = hooks.logger.child({ server: config.name });
    this.#status = config.disabled ? "disabled" : "connecting";
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

  /** The resources the server listed, all pages (none when it does not offer resources). */
  get resources(): readonly Resource[] {
    return this.#resources;
  }

  get resourceTemplates(): readonly ResourceTemplateType[] {
    return this.#resourceTemplates;
  }

  /** The prompts the server listed, all pages (none when it does not offer prompts). */
  get prompts(): readonly Prompt[] {
    return this.#prompts;
  }

  /** Whether the server offers `resources/subscribe` (its capabilities say `resources.subscribe`). */
  get offersSubscriptions(): boolean {
    const client = this.#session?.client;
    if (!client) return this.#cached?.subscriptions === true;
    return client.getServerCapabilities()?.resources?.subscribe === true;
  }

  /** The server's `instructions` from the handshake, if any (a lazy server's: from its cache). */
  get instructions(): string | undefined {
    const client = this.#session?.client;
    return client ? client.getInstructions() : this.#cached?.instructions;
  }

  state(): ServerState {
    const client = this.#session?.client;
    const state: ServerState = {
      name: this.name,
      status: this.#status,
      transport: this.#session?.transportKind ?? this.config.transport,
      tools: this.#tools.length,
      resources: this.#resources.length,
      prompts: this.#prompts.length,
      tasks: this.#session?.tasks.inFlight ?? 0,
      restarts: this.#restarts,
      health: this.#health,
    };
    const protocolVersion = client?.getNegotiatedProtocolVersion();
    const serverInfo = client?.getServerVersion() ?? (client ? undefined : this.#cached?.serverInfo);
    const pid = this.#session?.process?.pid;
    if (protocolVersion) state.protocolVersion = protocolVersion;
    if (this.#connectMs !== undefined) state.connectMs = this.#connectMs;
    if (this.#error !== undefined) state.error = this.#error;
    if (this.#errorCode !== undefined) state.errorCode = this.#errorCode;
    if (serverInfo) state.serverInfo = { name: serverInfo.name, version: serverInfo.version };
    if (pid !== undefined) state.pid = pid;
    return state;
  }

  /**
   * Start the server (or reach it), run the handshake and list its tools, within `connectTimeoutMs`.
   * Never throws: a failure leaves the connection `failed` with a reason.
   */
  async connect(signal?: AbortSignal): Promise<void> {
    if (this.#status !== "connecting") return;
    if (this.config.lazy) {
      const cached = readServerCatalog(this.config);
      if (cached) {
        this.#cached = cached;
        this.#tools = cached.tools;
        this.#resources = cached.resources;
        this.#resourceTemplates = cached.resourceTemplates;
        this.#prompts = cached.prompts;
        this.#setStatus("lazy");
        this.#log.info({ tools: cached.tools.length }, "lazy: listed from its cache, not started");
        return;
      }
    }
    const failure = await this.#open(signal);
    if (this.#status !== "connecting") return;
    if (failure) {
      this.#fail(failure, `failed to connect: ${failure}`);
      return;
    }
    this.#becomeReady();
    this.#log.info({ ms: this.#connectMs, tools: this.#tools.length }, "connected");
    this.#startHealthChecks();
    if (this.config.lazy) this.#remember();
  }

  /**
   * Start a lazy server now, once for every call that waits on it: it is `ready` (its own lists
   * replace the cached ones, and the cache is written again) or `failed`. Never throws.
   */
  #start(): Promise<void> {
    this.#starting ??= (async () => {
      const failure = await this.#open();
      if (this.#status !== "lazy") {
        await this.#session?.close(); // closed meanwhile
        return;
      }
      this.#cached = undefined;
      if (failure) {
        this.#fail(failure, `failed to start: ${failure}`);
        return;
      }
      this.#becomeReady();
      this.#log.info({ ms: this.#connectMs, tools: this.#tools.length }, "started on first use");
      this.#startHealthChecks();
      this.#remember();
      this.#listsChanged(); // what it lists now may differ from the cache
    })().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /** Keep what a lazy server lists for its next connect (a cache that cannot be written: no matter). */
  #remember(): void {
    const client = this.#session?.client;
    const serverInfo = client?.getServerVersion();
    const protocolVersion = client?.getNegotiatedProtocolVersion();
    const instructions = client?.getInstructions();
    writeServerCatalog(this.config, {
      tools: this.#tools,
      resources: this.#resources,
      resourceTemplates: this.#resourceTemplates,
      prompts: this.#prompts,
      subscriptions: this.offersSubscriptions,
      ...(instructions !== undefined ? { instructions } : {}),
      ...(serverInfo ? { serverInfo: { name: serverInfo.name, version: serverInfo.version } } : {}),
      ...(protocolVersion ? { protocolVersion } : {}),
    });
  }

  /**
   * Wait until the server can take a call: at once when ready; through a restart when one is under
   * way; never for a failed, disabled or closed server.
   * @throws SwitchyardError `SERVER_UNAVAILABLE`, or the signal's reason when it aborts first.
   */
  async #ready(tool: string, signal?: AbortSignal): Promise<void> {
    if (this.#status === "lazy") {
      signal?.throwIfAborted();
      const started = this.#start();
      await (signal
        ? new Promise<void>((resolve, reject) => {
            const onAbort = () => reject(signal.reason);
            signal.addEventListener("abort", onAbort, { once: true });
            void started.then(() => {
              signal.removeEventListener("abort", onAbort);
              resolve();
            });
          })
        : started);
    }
    const restart = this.#restartOver;
    if (this.#status === "restarting" && restart) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal!.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        void restart.promise.then(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
    if (this.#status !== "ready" || !this.#session?.client) {
      throw new SwitchyardError(
        "SERVER_UNAVAILABLE",
        `server ${this.name} is ${this.#status}${this.#error ? `: ${this.#error}` : ""}; ${tool} cannot be called`,
        { server: this.name, tool, delivery: "final", serverFault: false },
      );
    }
  }

  /**
   * Call one tool by the server's own name: exactly one attempt, after waiting through a restart if
   * one is under way. Retries, deadlines and the breaker belong to the caller (`calls/`); every failure
   * comes back classified (`delivery`, `serverFault`, `incident`).
   * @throws SwitchyardError `SERVER_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`, `INVALID_ARGUMENTS`,
   *   `INVALID_RESULT`, `CAPABILITY_MISSING`, `AUTH_REQUIRED`, `RESULT_TOO_LARGE` or `SERVER_ERROR`.
   */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    // The server request's span (MCP client span): one per attempt, a child of the call's span.
    const span = startSpan(`tools/call ${tool}`, {
      kind: SpanKind.CLIENT,
      attributes: () => ({
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool,
        "switchyard.server": this.name,
      }),
    });
    try {
      const result = await inSpan(span, () => this.#callTool(tool, args, options, span));
      if (result.isError) failSpan(span, "the tool answered with an error", "tool_error");
      span.end();
      return result;
    } catch (error) {
      endSpan(span, error, () => {
        const rpcCode = (error as { rpcCode?: unknown }).rpcCode;
        return typeof rpcCode === "number" ? { "rpc.response.status_code": String(rpcCode) } : {};
      });
      throw error;
    }
  }

  #plan(): CallPlan {
    if (this.#callPlan?.of !== this.#tools) {
      const names = (keep: (tool: Tool) => boolean) =>
        new Set(this.#tools.filter(keep).map((listed) => listed.name));
      this.#callPlan = {
        of: this.#tools,
        taskOnly: names((listed) => listed.execution?.taskSupport === "required"),
        mirrored: names(declaresHeaders),
      };
    }
    return this.#callPlan;
  }

  async #callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
    span: Span,
  ): Promise<CallToolResult> {
    await this.#ready(tool, options.signal);
    const session = this.#session!;
    const client = session.client!;
    if (span.isRecording()) {
      const sessionId = (client.transport as { sessionId?: unknown } | undefined)?.sessionId;
      const version = client.getNegotiatedProtocolVersion();
      span.setAttributes({
        "network.transport": session.transportKind === "stdio" ? "pipe" : "tcp",
        ...(version ? { "mcp.protocol.version": version } : {}),
        ...(typeof sessionId === "string" ? { "mcp.session.id": sessionId } : {}),
      });
    }
    // The 2026-07-28 revision carries W3C trace context in the request's `_meta` (SEP-414).
    const traceMeta = client.getDiscoverResult() !== undefined ? traceContextMeta() : undefined;
    const incident = this.#incident();
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    const extend = options.maxTotalTimeoutMs !== undefined && options.maxTotalTimeoutMs > timeoutMs;
    try {
      // A tool that must run as a task (execution.taskSupport "required") is followed to its result.
      // "optional" ones are called plainly: the server then runs them to the end within the call.
      const plan = this.#plan();
      if (plan.taskOnly.has(tool)) {
        return await session.tasks.call(session.client!, tool, args, { ...options, timeoutMs });
      }
      const params = { name: tool, arguments: args, ...(traceMeta ? { _meta: traceMeta } : {}) };
      const onprogress = options.onProgress
        ? forwardProgress(options.onProgress)
        : extend
          ? ignoreProgress
          : undefined;
      const requestOptions: RequestOptions = {
        timeout: timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        // Progress is asked for (a progress token goes with the call) when something hears it: the
        // caller's onProgress or an observer of call_progress events, or maxTotalTimeoutMs, which it
        // pushes back. Asked for with nobody listening, it costs the server work for nothing.
        ...(onprogress ? { onprogress } : {}),
        ...(extend ? { resetTimeoutOnProgress: true, maxTotalTimeout: options.maxTotalTimeoutMs! } : {}),
      };
      // The SDK's callTool is needed only to mirror arguments into headers (SEP-2243, 2026-07-28 over
      // HTTP). Everywhere else the request goes out as it would, its result checked once by
      // CALL_TOOL_RESULT and the output schema by the pipeline: the SDK's zod parse, response-cache
      // lookups and output validator were a quarter of the client's CPU per call.
      const mirrored = traceMeta !== undefined && session.transportKind === "http" && plan.mirrored.has(tool);
      if (!mirrored) {
        return await client.request({ method: "tools/call", params }, CALL_TOOL_RESULT, requestOptions);
      }
      return (await client.callTool(params, requestOptions)) as CallToolResult;
    } catch (error) {
      // An expired Streamable HTTP session: the request never ran. A new session starts now, and the
      // caller's retry (the request was not sent) waits for it.
      if (session.transportKind === "http" && httpStatusOf(error) === 404 && this.#status === "ready") {
        this.#log.info({}, "the server no longer knows the session (HTTP 404); starting a new one");
        this.#lost(session);
        throw new SwitchyardError(
          "SERVER_UNAVAILABLE",
          `server ${this.name} no longer knows its session; a new one is being started for ${tool}`,
          { server: this.name, tool, cause: error, delivery: "not_sent", serverFault: false, incident },
        );
      }
      throw this.#callError(error, tool, timeoutMs, options.signal, incident);
    }
  }

  /**
   * Read one resource (`resources/read`): exactly one attempt, after waiting through a restart if one
   * is under way; failures come back classified, as for tool calls.
   * @throws SwitchyardError `SERVER_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`, `SERVER_ERROR`, …
   */
  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.#request(`resources/read ${uri}`, (client, o) => client.readResource({ uri }, o), options);
  }

  /** Get one prompt's messages (`prompts/get`) by the server's own name: exactly one attempt. */
  getPrompt(name: string, args: Record<string, string>, options: CallOptions = {}): Promise<GetPromptResult> {
    return this.#request(
      `prompts/get ${name}`,
      (client, o) => client.getPrompt({ name, arguments: args }, o),
      options,
    );
  }

  /**
   * Subscribe to a resource's updates (`resources/subscribe`); they come through `onResourceUpdated`.
   * A restart subscribes again.
   * @throws SwitchyardError `CAPABILITY_MISSING` (`capability: "resources.subscribe"`) when the server
   *   does not offer subscriptions; else as {@link readResource}.
   */
  async subscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    await this.#request(
      `resources/subscribe ${uri}`,
      async (client, o) => {
        if (client.getServerCapabilities()?.resources?.subscribe !== true) {
          throw new SwitchyardError(
            "CAPABILITY_MISSING",
            `server ${this.name} does not offer resource subscriptions (resources.subscribe); ${uri} cannot be watched`,
            { server: this.name, capability: "resources.subscribe", delivery: "final", serverFault: false },
          );
        }
        if (client.getDiscoverResult() !== undefined)
          return this.#listen(client, [...this.#subscribed, uri], o);
        return client.subscribeResource({ uri }, o);
      },
      options,
    );
    this.#subscribed.add(uri);
  }

  /**
   * The 2026-07-28 revision has no `resources/subscribe`: one `subscriptions/listen` stream carries
   * every subscribed URI. It is opened anew for a new set, then the old one is closed.
   */
  async #listen(client: Client, uris: string[], options: RequestOptions = {}): Promise<void> {
    const previous = this.#listening;
    this.#listening = uris.length ? await client.listen({ resourceSubscriptions: uris }, options) : undefined;
    await previous?.close().catch(() => {});
  }

  /** Stop a resource's updates (`resources/unsubscribe`). */
  async unsubscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    if (!this.#subscribed.delete(uri)) return;
    if (this.#status !== "ready") return; // nothing to tell a server that is not there
    await this.#request(
      `resources/unsubscribe ${uri}`,
      async (client, o) => {
        if (client.getDiscoverResult() !== undefined) return this.#listen(client, [...this.#subscribed], o);
        return client.unsubscribeResource({ uri }, o);
      },
      options,
    );
  }

  /** One request other than a tool call: one attempt, classified failures without a `tool`. */
  async #request<T>(
    request: string,
    run: (client: Client, options: RequestOptions) => Promise<T>,
    options: CallOptions,
  ): Promise<T> {
    // Its span (MCP client span): `resources/read`, `prompts/get <prompt>`, … with the URI or prompt.
    const space = request.indexOf(" ");
    const method = space < 0 ? request : request.slice(0, space);
    const target = space < 0 ? undefined : request.slice(space + 1);
    const span = startSpan(method === "prompts/get" ? request : method, {
      kind: SpanKind.CLIENT,
      attributes: () => ({
        "mcp.method.name": method,
        ...(target && method.startsWith("resources/") ? { "mcp.resource.uri": target } : {}),
        ...(target && method === "prompts/get" ? { "gen_ai.prompt.name": target } : {}),
        "switchyard.server": this.name,
      }),
    });
    try {
      const result = await inSpan(span, () => this.#requestOnce(request, run, options));
      span.end();
      return result;
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  }

  async #requestOnce<T>(
    request: string,
    run: (client: Client, options: RequestOptions) => Promise<T>,
    options: CallOptions,
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    let incident = this.#incident();
    try {
      await this.#ready(request, options.signal);
      const session = this.#session!;
      incident = this.#incident();
      return await run(session.client!, {
        timeout: timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      const failure = toRequestError(error, {
        server: this.name,
        request,
        timeoutMs,
        signal: options.signal,
        incident,
        unavailable: () => (this.#status !== "ready" ? this.#error : undefined),
      });
      if (failure.code === "SERVER_UNAVAILABLE" && this.#session && isRefused(error))
        this.#lost(this.#session);
      throw failure;
    }
  }

  /** Subscribe again, after a restart or reconnect, to what was subscribed to before. */
  #resubscribe(): void {
    const client = this.#session?.client;
    this.#listening = undefined; // it went with the old session
    if (!client || !this.offersSubscriptions || this.#subscribed.size === 0) return;
    if (client.getDiscoverResult() !== undefined) {
      this.#listen(client, [...this.#subscribed]).catch((error: unknown) =>
        this.#log.warn({}, `could not subscribe again: ${messageOf(error)}`),
      );
      return;
    }
    for (const uri of this.#subscribed) {
      client
        .subscribeResource({ uri })
        .catch((error: unknown) => this.#log.warn({ uri }, `could not subscribe again: ${messageOf(error)}`));
    }
  }

  /** Tell the hooks of every list the server has, after a restart or a reconnect. */
  #listsChanged(): void {
    this.#hooks.onToolsChanged?.(this.name, this.#tools);
    this.#hooks.onResourcesChanged?.(this.name, this.#resources, this.#resourceTemplates);
    this.#hooks.onPromptsChanged?.(this.name, this.#prompts);
    this.#resubscribe();
  }

  /**
   * Ask the server whether it is alive: a `ping`, or `server/discover` on the 2026-07-28 revision
   * (which has no `ping`).
   * @throws SwitchyardError `SERVER_UNAVAILABLE` or `TIMEOUT`.
   */
  async ping(timeoutMs = this.config.health.timeoutMs): Promise<void> {
    await this.#ready("ping");
    const incident = this.#incident();
    const client = this.#session!.client!;
    try {
      // The 2026-07-28 revision has no `ping`: there `server/discover` is the harmless question.
      if (client.getDiscoverResult() !== undefined) await client.discover({ timeout: timeoutMs });
      else await client.ping({ timeout: timeoutMs });
    } catch (error) {
      throw this.#callError(error, "ping", timeoutMs, undefined, incident);
    }
  }

  /**
   * Connect again from scratch: a server that failed (at startup, or after its restarts ran out) — or,
   * with `failedOnly: false`, a ready one too — gets a new process or session, a handshake and its tool
   * list. Never throws; disabled and closed servers are left alone.
   */
  async reconnect(options: { failedOnly?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    const failedOnly = options.failedOnly ?? true;
    if (this.#closing || this.#status === "disabled") return;
    const settledDown = this.#status === "failed" || this.#status === "needs-auth";
    if (!settledDown && (failedOnly || this.#status !== "ready")) return;
    const wasReady = this.#status === "ready";
    this.#setStatus("connecting");
    await this.#session?.close();
    this.#restartsInRow = 0;
    this.#error = undefined;
    this.#errorCode = undefined;
    this.#negotiated = undefined; // from scratch: the server may have been upgraded meanwhile
    const failure = await this.#open(options.signal);
    if ((this.#status as ServerStatus) !== "connecting") return;
    if (failure) {
      this.#fail(failure, `failed to reconnect: ${failure}`);
      return;
    }
    this.#becomeReady(true);
    this.#log.info({ ms: this.#connectMs, tools: this.#tools.length, wasReady }, "reconnected");
    this.#listsChanged();
    this.#startHealthChecks();
  }

  /** Stop the server (stdio: stdin, SIGTERM, SIGKILL) and release everything. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#status !== "disabled") this.#setStatus("closed");
      clearInterval(this.#healthTimer);
      this.#lifetime.abort();
      this.#restartDone();
      await this.#session?.close();
    })();
    return this.#closing;
  }

  async #open(signal?: AbortSignal): Promise<string | undefined> {
    const session = new ServerSession(
      this.config,
      {
        logger: this.#log,
        ...(this.#hooks.wire ? { wire: this.#hooks.wire } : {}),
        onNoise: (line) => this.#noise(line),
        onToolsChanged: (error, tools) => this.#toolsChanged(session, error, tools),
        onLost: () => this.#lost(session),
        onResourcesChanged: (error, lists) => this.#resourcesChanged(session, error, lists),
        onPromptsChanged: (error, prompts) => this.#promptsChanged(session, error, prompts),
        onResourceUpdated: (uri) => {
          if (session === this.#session) this.#hooks.onResourceUpdated?.(this.name, uri);
        },
        ...(this.#hooks.requests ? { requests: this.#hooks.requests } : {}),
      },
      this.#negotiated !== undefined ? { versionNegotiation: this.#negotiated } : {},
    );
    this.#session = session;
    this.#generation += 1;
    try {
      await session.open(signal);
      this.#tools = session.tools;
      this.#resources = session.resources;
      this.#resourceTemplates = session.resourceTemplates;
      this.#prompts = session.prompts;
      this.#connectMs = session.connectMs;
      this.#negotiated = negotiationFor(session.client?.getNegotiatedProtocolVersion());
      this.#needsAuth = false;
      return undefined;
    } catch (error) {
      this.#errorCode = isSwitchyardError(error) ? error.code : undefined;
      this.#needsAuth = session.needsLogin;
      return messageOf(error);
    }
  }

  /** The incident a failure in the server's current life belongs to. */
  #incident(): string {
    return `${this.name}#${this.#generation}`;
  }

  #callError(
    error: unknown,
    tool: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    incident: string,
  ): SwitchyardError {
    const failure = toCallError(error, {
      server: this.name,
      tool,
      timeoutMs,
      signal,
      incident,
      unavailable: () => (this.#status !== "ready" ? this.#error : undefined),
    });
    // A remote HTTP server has no process to watch: a server that refuses connections is lost.
    if (failure.code === "SERVER_UNAVAILABLE" && this.#session && isRefused(error)) this.#lost(this.#session);
    return failure;
  }

  /** The server was lost: restart it within the limits, or give up and mark it failed. */
  #lost(session: ServerSession): void {
    if (this.#status !== "ready" || session !== this.#session) return;
    const reason = session.describeExit("the connection closed");
    if (Date.now() - this.#upSince > DEFAULT_RESTART_STABLE_AFTER_MS) this.#restartsInRow = 0;
    if (this.#restartsInRow >= this.config.restart.maxRestarts) {
      const gaveUp =
        this.config.restart.maxRestarts > 0 ? `; gave up after ${this.#restartsInRow} restart(s)` : "";
      void session.close();
      this.#fail(`${reason}${gaveUp}`, `server lost: ${reason}${gaveUp}`);
      return;
    }
    this.#error = reason;
    this.#restartOver ??= deferred();
    this.#setStatus("restarting");
    this.#log.warn({}, `server lost (${reason}); restarting`);
    void this.#restart();
  }

  /** Bring a lost server back with the same config; the wait doubles each time, up to `maxRestarts`. */
  async #restart(): Promise<void> {
    const { maxRestarts, backoffMs } = this.config.restart;
    while (this.#status === "restarting") {
      if (this.#restartsInRow >= maxRestarts) {
        this.#fail(`${this.#error}; gave up after ${maxRestarts} restart(s)`, "restarts exhausted");
        return;
      }
      await this.#session?.close();
      // Not unref'd: callers may be waiting for this restart, and nothing else may keep the process up.
      await delay(backoffMs * 2 ** this.#restartsInRow, undefined, { signal: this.#lifetime.signal }).catch(
        () => {},
      );
      this.#restartsInRow += 1;
      this.#restarts += 1;
      if (this.#status !== "restarting") return;
      const failure = await this.#open();
      if ((this.#status as ServerStatus) !== "restarting") {
        await this.#session?.close();
        return;
      }
      if (!failure) {
        this.#error = undefined;
        this.#errorCode = undefined;
        this.#becomeReady(true);
        this.#log.info({ restarts: this.#restarts }, "restarted");
        this.#listsChanged();
        return;
      }
      this.#error = failure;
      this.#log.warn({}, `restart ${this.#restartsInRow} failed: ${failure}`);
    }
  }

  #becomeReady(recovered = false): void {
    this.#upSince = Date.now();
    this.#setStatus("ready", recovered);
    this.#restartDone();
  }

  #fail(reason: string, logLine: string): void {
    this.#error = reason;
    this.#setStatus(this.#needsAuth ? "needs-auth" : "failed");
    this.#log.warn({}, logLine);
    this.#restartDone();
  }

  #setStatus(status: ServerStatus, recovered = false): void {
    if (this.#status === status) return;
    this.#status = status;
    this.#hooks.onStatus?.(this.name, status, recovered);
  }

  /** Wake the calls waiting for a restart: it is over, one way or the other. */
  #restartDone(): void {
    this.#restartOver?.resolve();
    this.#restartOver = undefined;
  }

  #startHealthChecks(): void {
    const { intervalMs } = this.config.health;
    clearInterval(this.#healthTimer);
    if (!intervalMs) return;
    this.#healthTimer = setInterval(() => {
      if (this.#status !== "ready") return;
      this.ping().then(
        () => {
          this.#health = "ok";
        },
        (error: unknown) => {
          if (this.#health !== "failing") this.#log.warn({}, `health ping failed: ${messageOf(error)}`);
          this.#health = "failing";
        },
      );
    }, intervalMs);
    this.#healthTimer.unref();
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

  #toolsChanged(session: ServerSession, error: Error | null, tools: Tool[] | null): void {
    if (this.#status !== "ready" || session !== this.#session) return;
    if (error || !tools) {
      this.#log.warn({}, `could not refresh tools after list_changed: ${error ? error.message : "no tools"}`);
      return;
    }
    this.#tools = tools;
    this.#log.info({ tools: tools.length }, "tool list changed");
    this.#hooks.onToolsChanged?.(this.name, tools);
  }

  #resourcesChanged(
    session: ServerSession,
    error: Error | null,
    lists: { resources: Resource[]; resourceTemplates: ResourceTemplateType[] } | null,
  ): void {
    if (this.#status !== "ready" || session !== this.#session) return;
    if (error || !lists) {
      this.#log.warn({}, `could not refresh resources after list_changed: ${error ? error.message : "none"}`);
      return;
    }
    this.#resources = lists.resources;
    this.#resourceTemplates = lists.resourceTemplates;
    this.#log.info({ resources: lists.resources.length }, "resource list changed");
    this.#hooks.onResourcesChanged?.(this.name, lists.resources, lists.resourceTemplates);
  }

  #promptsChanged(session: ServerSession, error: Error | null, prompts: Prompt[] | null): void {
    if (this.#status !== "ready" || session !== this.#session) return;
    if (error || !prompts) {
      this.#log.warn({}, `could not refresh prompts after list_changed: ${error ? error.message : "none"}`);
      return;
    }
    this.#prompts = prompts;
    this.#log.info({ prompts: prompts.length }, "prompt list changed");
    this.#hooks.onPromptsChanged?.(this.name, prompts);
  }
}

/** Progress nobody asked to see (the token still goes out, so servers may report it). */
function ignoreProgress(): void {}

function forwardProgress(onProgress: (progress: CallProgress) => void) {
  return ({
    progress,
    total,
    message,
  }: {
    progress: number;
    total?: number | undefined;
    message?: string | undefined;
  }) =>
    onProgress({
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    });
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
