import { normalizeResult, type ToolResult } from "./calls/normalize.js";
import { type GuardState, ServerGuard } from "./calls/server-guard.js";
import { validateArguments } from "./calls/validate.js";
import { Catalog, type CatalogEntry } from "./catalog/catalog.js";
import { loadConfigFile, resolveConfig } from "./config/load.js";
import type { SwitchyardConfig } from "./config/schema.js";
import { SwitchyardError } from "./errors.js";
import type { ServerState } from "./fleet/connection.js";
import { Fleet } from "./fleet/fleet.js";
import { type Logger, silentLogger } from "./telemetry/logger.js";
import type { WireSink } from "./telemetry/wire-trace.js";

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
}

/** A tool as `tools()` lists it. */
export interface ToolInfo {
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: CatalogEntry["inputSchema"];
}

/** Options for one {@link Switchyard.callTool} call. */
export interface CallToolOptions {
  /** Deadline for this call; default: the server's `timeoutMs` (60 s). */
  timeoutMs?: number;
  /** Cancels the call: the server is sent `notifications/cancelled`, the call rejects with `CANCELLED`. */
  signal?: AbortSignal;
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
  readonly #guards: Map<string, ServerGuard>;
  #closed = false;

  private constructor(config: SwitchyardConfig, fleet: Fleet, catalog: Catalog) {
    this.config = config;
    this.#fleet = fleet;
    this.#catalog = catalog;
    this.#guards = new Map(
      fleet.connections().map((connection) => [connection.name, new ServerGuard(connection)]),
    );
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
    return Switchyard.#start(loadConfigFile(file), options);
  }

  static async #start(config: SwitchyardConfig, options: SwitchyardOptions): Promise<Switchyard> {
    const logger = options.logger ?? silentLogger;
    for (const warning of config.warnings) logger.warn({}, `config: ${warning}`);
    const catalog = new Catalog(config.servers);
    const fleet = new Fleet(config.servers, {
      logger,
      ...(options.wireTrace ? { wire: options.wireTrace } : {}),
      ...(options.onServerSettled ? { onSettled: options.onServerSettled } : {}),
      onToolsChanged: (server, tools) => catalog.setServerTools(server, tools),
    });
    const yard = new Switchyard(config, fleet, catalog);
    try {
      await fleet.connectAll(options.signal);
    } catch (error) {
      await fleet.close();
      throw error;
    }
    catalog.load(new Map(fleet.connections().map((connection) => [connection.name, connection.tools])));
    return yard;
  }

  /**
   * Every configured server: status, transport, protocol version, tool count, connect time, restarts,
   * health, breaker state, and calls in flight and queued.
   */
  servers(): Array<ServerState & GuardState> {
    return this.#fleet.connections().map((connection) => ({
      ...connection.state(),
      ...this.#guards.get(connection.name)!.state(),
    }));
  }

  /** Every tool of every ready server, under its catalog name. */
  tools(): ToolInfo[] {
    return this.#catalog
      .entries()
      .filter((entry) => this.#fleet.get(entry.server)?.status === "ready")
      .map(({ name, server, tool, description, inputSchema }) => ({
        name,
        server,
        tool,
        description,
        inputSchema,
      }));
  }

  /**
   * A key that changes whenever `tools()` would answer differently (a server's tools changed, or a
   * server went down or came back): for caches built on the catalog, such as a router's index.
   */
  catalogKey(): string {
    const ready = this.#fleet.connections().filter((connection) => connection.status === "ready");
    return `${this.#catalog.version}:${ready.map((connection) => connection.name).join(",")}`;
  }

  /** What a server says about itself in its handshake: `instructions`, when it gives them. */
  serverInstructions(name: string): string | undefined {
    return this.#fleet.get(name)?.instructions;
  }

  /** The full catalog entry of a tool (schemas, annotations), by catalog name. */
  describeTool(name: string): CatalogEntry | undefined {
    return this.#catalog.get(name);
  }

  /**
   * Call a tool by its catalog name. Arguments are checked against the tool's input schema first
   * (after safe coercion such as `"7"` → `7`); nothing is sent when they do not fit.
   * Then the server's guard: circuit breaker, bulkhead, one deadline for the whole call (queueing and
   * waiting out a restart included), and retries where they are safe.
   * Resolves with the server's result, `isError: true` included.
   * @throws SwitchyardError `TOOL_NOT_FOUND`, `INVALID_ARGUMENTS`, `TIMEOUT`, `CANCELLED`,
   *   `SERVER_UNAVAILABLE`, `SERVER_ERROR`, `CIRCUIT_OPEN`, `QUEUE_FULL`, `RESULT_TOO_LARGE` or `CLOSED`;
   *   the message names the server and the tool.
   */
  async callTool(name: string, args: unknown = {}, options: CallToolOptions = {}): Promise<ToolResult> {
    if (this.#closed) throw new SwitchyardError("CLOSED", `cannot call ${name}: this Switchyard is closed`);
    const entry = this.#catalog.get(name);
    if (!entry) throw this.#notFound(name);
    const checked = validateArguments(entry.inputSchema, args ?? {});
    if (!checked.ok) {
      throw new SwitchyardError(
        "INVALID_ARGUMENTS",
        `invalid arguments for ${name} (tool ${entry.tool} on server ${entry.server}): ${checked.problems.join("; ")}. Expected: ${JSON.stringify(entry.inputSchema)}`,
        { server: entry.server, tool: entry.tool },
      );
    }
    return normalizeResult(await this.#guards.get(entry.server)!.call(entry, checked.value, options));
  }

  /** Close every connection and stop every server process. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#fleet.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #notFound(name: string): SwitchyardError {
    const suggestions = this.#catalog.suggest(name);
    const hint = suggestions.length
      ? `did you mean ${suggestions.join(", ")}?`
      : "run `switchyard tools` to list the tools";
    return new SwitchyardError("TOOL_NOT_FOUND", `no tool named ${name} in the catalog; ${hint}`, {
      tool: name,
    });
  }
}

function isResolved(config: unknown): config is SwitchyardConfig {
  return (
    typeof config === "object" &&
    config !== null &&
    Array.isArray((config as SwitchyardConfig).servers) &&
    typeof (config as SwitchyardConfig).baseDir === "string"
  );
}
