import type { ToolResult } from "./calls/normalize.js";
import { type CallInterceptor, CallPipeline, type CallToolOptions } from "./calls/pipeline.js";
import { ManagedServer, type ServerInfo } from "./calls/server.js";
import { Catalog, type CatalogChange, type CatalogEntry } from "./catalog/catalog.js";
import { baseToolName } from "./catalog/naming.js";
import { clientAnswers, type ElicitationHandler, type SamplingApproval } from "./client-answers.js";
import { loadConfigFile, resolveConfig } from "./config/load.js";
import type { SwitchyardConfig } from "./config/schema.js";
import { SwitchyardError } from "./errors.js";
import type { ServerState } from "./fleet/connection.js";
import { Fleet } from "./fleet/fleet.js";
import type { ModelProvider } from "./models/model.js";
import { resolveModel } from "./models/resolve.js";
import { type Observer, Observers, type SwitchyardEvent } from "./telemetry/events.js";
import { type Logger, silentLogger } from "./telemetry/logger.js";
import type { WireSink } from "./telemetry/wire-trace.js";

export type { CallToolOptions } from "./calls/pipeline.js";

/** Options for {@link Switchyard.connect} and {@link Switchyard.fromFile}. */
export interface SwitchyardOptions {
  /** Structured logger; default: silent. */
  logger?: Logger;
  /** Receives every raw JSON-RPC message of every server, both ways. */
  wireTrace?: WireSink;
  /** Called as each server finishes connecting (ready or failed), for progress displays. */
  onServerSettled?: (state: ServerState, settled: number, total: number) => void;
  /** Abandons connecting; servers not yet connected end up `failed`. */
  signal?: AbortSignal;
  /** For a config object: the folder relative paths resolve against; default: the working directory. */
  baseDir?: string;
  /** Receives every event: calls, and the runs of agents and plans that use this Switchyard. */
  observer?: Observer;
  /** Steps every call goes through (policy, audit, …), in order; more can be added with `use`. */
  interceptors?: CallInterceptor[];
  /**
   * Answers servers that ask the user something (`elicitation/create`, pushed by 2025 servers or
   * embedded in a 2026-07-28 `input_required` result). Given, the `elicitation` capability is declared
   * (form mode; URL mode too with `elicitationUrl`); absent, nothing is declared and such tools fail
   * with `CAPABILITY_MISSING`. Accepted content gets the schema's defaults and is validated against it.
   */
  onElicitation?: ElicitationHandler;
  /** `onElicitation` can send the user to a URL: declare URL mode as well; default false. */
  elicitationUrl?: boolean;
  /**
   * Approves each `sampling/createMessage` request before the model answers it. Sampling is declared
   * only with this hook and a model (`samplingModel`, else the config's `model` section or environment).
   */
  onSampling?: SamplingApproval;
  /** The model that answers sampling requests; default: the configured model, when there is one. */
  samplingModel?: ModelProvider;
}

/** A tool as `tools()` lists it. */
export interface ToolInfo {
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: CatalogEntry["inputSchema"];
  /** Why the tool cannot be called from here (it requires task augmentation); it is never offered to a model. */
  unsupported?: string;
}

/**
 * One agent's view of many MCP servers: a fleet of connections and one catalog of their tools.
 *
 * ```ts
 * await using yard = await Switchyard.fromFile("switchyard.config.json");
 * const result = await yard.callTool("orders_query_recent_orders", { customer_id: "C10001" });
 * ```
 */
export class Switchyard implements AsyncDisposable {
  readonly config: SwitchyardConfig;
  readonly #fleet: Fleet;
  readonly #catalog: Catalog;
  readonly #servers: Map<string, ManagedServer>;
  readonly #observers = new Observers();
  readonly #pipeline: CallPipeline;
  #closed = false;

  private constructor(config: SwitchyardConfig, fleet: Fleet, catalog: Catalog, options: SwitchyardOptions) {
    this.config = config;
    this.#fleet = fleet;
    this.#catalog = catalog;
    this.#servers = new Map(
      fleet.connections().map((connection) => [connection.name, new ManagedServer(connection)]),
    );
    if (options.observer) this.#observers.add(options.observer);
    this.#pipeline = new CallPipeline({
      catalog,
      server: (name) => this.#servers.get(name),
      observer: this.#observers,
      logger: options.logger ?? silentLogger,
      isClosed: () => this.#closed,
      downServerFor: (name) => this.#downServerFor(name),
      scopeCalls: options.wireTrace !== undefined,
    });
    for (const interceptor of options.interceptors ?? []) this.#pipeline.use(interceptor);
  }

  /**
   * Connect to every server of a config (the config file's shape, or an already resolved config), in
   * parallel. Resolves once each server is ready or failed: a failed server never fails the whole.
   * @throws SwitchyardError `CONFIG_INVALID` when the config is malformed.
   */
  static async connect(config: unknown, options: SwitchyardOptions = {}): Promise<Switchyard> {
    const resolved = isResolved(config)
      ? config
      : resolveConfig(config, options.baseDir ? { baseDir: options.baseDir } : {});
    return Switchyard.#start(resolved, options);
  }

  /**
   * Load a config file (JSON or YAML) and connect to its servers.
   * @throws SwitchyardError `CONFIG_INVALID` when the file is missing or malformed.
   */
  static async fromFile(file: string, options: SwitchyardOptions = {}): Promise<Switchyard> {
    if (typeof file !== "string" || file === "")
      throw new SwitchyardError(
        "INVALID_INPUT",
        "fromFile needs the path of a config file (a non-empty string)",
      );
    return Switchyard.#start(loadConfigFile(file), options);
  }

  static async #start(config: SwitchyardConfig, options: SwitchyardOptions): Promise<Switchyard> {
    const logger = options.logger ?? silentLogger;
    for (const warning of config.warnings) logger.warn({}, `config: ${warning}`);
    const catalog = new Catalog(config.servers, (message) => logger.warn({}, message));
    let servers: Map<string, ManagedServer> | undefined;
    const fleet = new Fleet(config.servers, {
      logger,
      ...(options.wireTrace ? { wire: options.wireTrace } : {}),
      ...(options.onServerSettled ? { onSettled: options.onServerSettled } : {}),
      onToolsChanged: (server, tools) => catalog.setServerTools(server, tools),
      requests: clientAnswers({
        logger,
        roots: config.roots ?? [config.baseDir],
        ...(options.onElicitation ? { onElicitation: options.onElicitation } : {}),
        ...(options.elicitationUrl !== undefined ? { elicitationUrl: options.elicitationUrl } : {}),
        ...(options.onSampling ? { onSampling: options.onSampling } : {}),
        ...samplingModel(config, options),
      }),
      onStatus: (server, status, recovered) => {
        if (!servers) return; // the first connect: the catalog is loaded in one go, in order, after it
        if (recovered) servers.get(server)?.recovered();
        catalog.setServerListed(server, status === "ready" || status === "restarting");
      },
    });
    const created = new Switchyard(config, fleet, catalog, options);
    try {
      await fleet.connectAll(options.signal);
    } catch (error) {
      await fleet.close();
      throw error;
    }
    const ready = fleet
      .connections()
      .filter((connection) => connection.status === "ready" || connection.status === "restarting");
    catalog.load(new Map(ready.map((connection) => [connection.name, connection.tools])));
    servers = created.#servers;
    return created;
  }

  /**
   * Every configured server: status, transport, protocol version, tool count, connect time, restarts,
   * health, breaker state, and calls in flight and queued.
   */
  servers(): ServerInfo[] {
    return [...this.#servers.values()].map((server) => server.info());
  }

  /** Every tool of every server that can take calls (ready, or restarting), under its catalog name. */
  tools(): ToolInfo[] {
    return this.#catalog.entries().map(({ name, server, tool, description, inputSchema, unsupported }) => ({
      name,
      server,
      tool,
      description,
      inputSchema,
      ...(unsupported !== undefined ? { unsupported } : {}),
    }));
  }

  /** Goes up with every change of what `tools()` lists. */
  get catalogVersion(): number {
    return this.#catalog.version;
  }

  /**
   * A key that changes whenever `tools()` would answer differently (a server's tools changed, or a
   * server went down or came back): for caches built on the catalog, such as a router's index.
   */
  catalogKey(): string {
    return String(this.#catalog.version);
  }

  /**
   * Be told of every change of the catalog as it happens: tools added, removed or changed, a server
   * going down (all its tools removed) or coming back. Returns the function that stops it.
   */
  onCatalogChange(listener: (change: CatalogChange) => void): () => void {
    return this.#catalog.onChange(listener);
  }

  /** Receive every event (calls, runs); returns the function that stops it. */
  observe(observer: Observer | ((event: SwitchyardEvent) => void)): () => void {
    return this.#observers.add(typeof observer === "function" ? { onEvent: observer } : observer);
  }

  /** Report an event to this Switchyard's observers (agents and plans that run over it do). */
  emit(event: SwitchyardEvent): void {
    this.#observers.onEvent(event);
  }

  /** Add a step to every call (policy, audit, rewriting); returns the function that removes it. */
  use(interceptor: CallInterceptor): () => void {
    return this.#pipeline.use(interceptor);
  }

  /** What a server says about itself in its handshake: `instructions`, when it gives them. */
  serverInstructions(name: string): string | undefined {
    return this.#fleet.get(name)?.instructions;
  }

  /** The full catalog entry of a tool (schemas, annotations), by catalog name. */
  describeTool(name: string): CatalogEntry | undefined {
    return typeof name === "string" ? this.#catalog.get(name) : undefined;
  }

  /** Catalog names closest to `name` (a misspelt or outdated one), for "did you mean" help; at most 3. */
  suggestTools(name: string): string[] {
    return typeof name === "string" ? this.#catalog.suggest(name) : [];
  }

  /**
   * Call a tool by its catalog name, through the call pipeline: arguments checked against the tool's
   * input schema (after safe coercion such as `"7"` → `7`; nothing is sent when they do not fit), the
   * interceptors, then the server's guard (circuit breaker, bulkhead, one deadline for the whole call,
   * retries where they are safe). Resolves with the server's result, `isError: true` included.
   * @throws SwitchyardError `TOOL_NOT_FOUND`, `INVALID_ARGUMENTS`, `INVALID_INPUT`, `TIMEOUT`,
   *   `CANCELLED`, `SERVER_UNAVAILABLE`, `SERVER_ERROR`, `CIRCUIT_OPEN`, `QUEUE_FULL`,
   *   `RESULT_TOO_LARGE`, `INVALID_RESULT`, `CAPABILITY_MISSING`, `AUTH_REQUIRED`, `POLICY_DENIED` or
   *   `CLOSED`; the message names the server and the tool.
   */
  callTool(name: string, args: unknown = {}, options: CallToolOptions = {}): Promise<ToolResult> {
    return this.#pipeline.call(name, args, options);
  }

  /**
   * Connect again to servers that failed (at startup, or after their restarts ran out) — or, with
   * `failedOnly: false`, to every enabled server — without a new Switchyard. Resolves when each is
   * ready or failed again; their tools come back into the catalog.
   */
  async reconnect(options: { failedOnly?: boolean; signal?: AbortSignal } = {}): Promise<ServerInfo[]> {
    if (this.#closed) throw new SwitchyardError("CLOSED", "cannot reconnect: this Switchyard is closed");
    await Promise.all(this.#fleet.connections().map((connection) => connection.reconnect(options)));
    return this.servers();
  }

  /** Close every connection and stop every server process. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#fleet.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #downServerFor(name: string): { server: string; status: string; error?: string } | undefined {
    let best: { server: string; prefix: number } | undefined;
    for (const server of this.config.servers) {
      if (server.namespace === false || this.#catalog.isListed(server.name)) continue;
      const prefix = baseToolName(server.namespace, "");
      if (name.startsWith(prefix) && prefix.length > (best?.prefix ?? 0))
        best = { server: server.name, prefix: prefix.length };
    }
    if (!best) return undefined;
    const state = this.#fleet.get(best.server)!.state();
    return {
      server: best.server,
      status: state.status,
      ...(state.error !== undefined ? { error: state.error } : {}),
    };
  }
}

export type { ServerInfo } from "./calls/server.js";
export type { CatalogChange } from "./catalog/catalog.js";
export type { ServerState };

function isResolved(config: unknown): config is SwitchyardConfig {
  return (
    typeof config === "object" &&
    config !== null &&
    Array.isArray((config as SwitchyardConfig).servers) &&
    typeof (config as SwitchyardConfig).baseDir === "string"
  );
}

/** The model for sampling requests: only when sampling is asked for and a model can be had. */
function samplingModel(config: SwitchyardConfig, options: SwitchyardOptions): { model?: ModelProvider } {
  if (!options.onSampling) return {};
  if (options.samplingModel) return { model: options.samplingModel };
  try {
    return { model: resolveModel(config.model ? { section: config.model } : {}) };
  } catch {
    return {}; // no model configured: sampling is not offered
  }
}
