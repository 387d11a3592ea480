import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  GetPromptResult,
  ReadResourceResult,
} from "@modelcontextprotocol/client";
import { type ApprovalHandler, policyStep } from "./calls/approval.js";
import type { ToolResult } from "./calls/normalize.js";
import { type CallInterceptor, CallPipeline, type CallToolOptions } from "./calls/pipeline.js";
import {
  checkIdentity,
  compilePolicy,
  osIdentity,
  type PolicyEngine,
  type PolicyOptions,
} from "./calls/policy.js";
import { ManagedServer, type ServerInfo } from "./calls/server.js";
import { Catalog, type CatalogChange, type CatalogEntry } from "./catalog/catalog.js";
import { baseToolName } from "./catalog/naming.js";
import {
  type ListChange,
  type PromptEntry,
  ResourceCatalog,
  type ResourceEntry,
  type ResourceTemplateEntry,
} from "./catalog/resources.js";
import { clientAnswers, type ElicitationHandler, type SamplingApproval } from "./client-answers.js";
import { DEFAULT_CALL_TIMEOUT_MS } from "./config/defaults.js";
import { loadConfigFile, resolveConfig } from "./config/load.js";
import type { SwitchyardConfig } from "./config/schema.js";
import { closestNames, isSwitchyardError, SwitchyardError } from "./errors.js";
import type { ClientRequests } from "./fleet/client-requests.js";
import type { ServerState } from "./fleet/connection.js";
import { Fleet } from "./fleet/fleet.js";
import { matchesUriTemplate } from "./fleet/uri-templates.js";
import type { ModelProvider } from "./models/model.js";
import { resolveModel } from "./models/resolve.js";
import { StoreRecorder } from "./store/recorder.js";
import type { Store } from "./store/store.js";
import type { AuditSink, Identity } from "./telemetry/audit.js";
import { type Observer, Observers, type SwitchyardEvent } from "./telemetry/events.js";
import { type Logger, silentLogger } from "./telemetry/logger.js";
import {
  Redactor,
  redactingAuditSink,
  redactingLogger,
  redactingObserver,
  redactingWireSink,
} from "./telemetry/redact.js";
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
  /**
   * Answers every `sampling/createMessage` request itself, in place of `onSampling` and a model (the
   * gateway forwards them to its own client). Given, `sampling` is declared.
   */
  onSamplingRequest?: SamplingForwarder;
  /**
   * Record every run, step and call into this store as it happens (`openStore(config)`), and keep the
   * audit log there unless `audit` says otherwise. `close()` waits for the last writes; the store stays
   * open (its owner closes it). Default: nothing is recorded.
   */
  store?: Store;
  /**
   * Who calls and listings are for when they do not say (`callTool(…, { identity })`, `tools({ identity })`);
   * default: the config's `identity`, else the OS user with no roles.
   */
  identity?: Identity;
  /**
   * Policy rules in code, checked before the config's `policy.rules` (and a `decide` hook before both).
   * With neither this nor a config `policy` section, every call is allowed.
   */
  policy?: PolicyOptions;
  /**
   * Decides calls whose policy decision is `approve`, within the call's deadline (past it: `TIMEOUT`).
   * Without it such calls fail with `POLICY_DENIED` (approval required, no one to give it).
   */
  onApproval?: ApprovalHandler;
  /** Receives an audit entry for every policy decision, approval and call let through. */
  audit?: AuditSink;
  /** Applied to the arguments before they go to the audit log; default: the redactor's `value`. */
  redact?: (value: unknown) => unknown;
  /**
   * Replaces secrets in every log line, wire record, event (and so run record) and audit entry; default
   * `Redactor.fromConfig(config)`: the default keys, the config's `redact` section, its secret values
   * and the environment's, and common token patterns. Results handed to the caller are not redacted.
   */
  redactor?: Redactor;
}

/** Options of `readResource` and `subscribeResource`. */
export interface ResourceOptions {
  /** The server to ask: needed when several servers list the URI. */
  server?: string;
  /** The request's deadline, queueing included; default: the server's `timeoutMs`. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What `readResource` resolves with: the server's contents (text, or base64 `blob`), and which server. */
export interface ResourceContents {
  server: string;
  uri: string;
  contents: ReadResourceResult["contents"];
}

/** What `getPrompt` resolves with: the prompt's messages, and where it came from. */
export interface PromptResult {
  name: string;
  server: string;
  prompt: string;
  description?: string;
  messages: GetPromptResult["messages"];
}

/** An update of a subscribed resource (`notifications/resources/updated`). */
export interface ResourceUpdate {
  server: string;
  uri: string;
}

/** Options of {@link Switchyard.tools}. */
export interface ToolsOptions {
  /** List what this identity may call; default: the Switchyard's identity. */
  identity?: Identity;
  /** `false`: the whole catalog, whoever may call what (for caches and administration); default true. */
  policy?: boolean;
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
  readonly #lists: ResourceCatalog;
  /** `server\0uri` → the listeners of a subscribed resource, and the subscription's request. */
  readonly #subscriptions = new Map<
    string,
    { listeners: Set<(update: ResourceUpdate) => void>; subscribed: Promise<void> }
  >();
  readonly #servers: Map<string, ManagedServer>;
  readonly #observers = new Observers();
  /** What every log line, wire record, event, record and audit entry is redacted with (`redactor`). */
  readonly redactor: Redactor;
  readonly #pipeline: CallPipeline;
  #recorder: StoreRecorder | undefined;
  /** The one engine that decides both what `tools()` lists and what `callTool` admits; none: all allowed. */
  readonly policy: PolicyEngine | undefined;
  /** Who calls and listings are for when they do not say. */
  readonly identity: Identity;
  #closed = false;

  private constructor(
    config: SwitchyardConfig,
    fleet: Fleet,
    catalog: Catalog,
    lists: ResourceCatalog,
    options: SwitchyardOptions,
  ) {
    this.config = config;
    this.redactor = options.redactor ?? Redactor.fromConfig(config);
    this.#fleet = fleet;
    this.#catalog = catalog;
    this.#lists = lists;
    this.#servers = new Map(
      fleet.connections().map((connection) => [connection.name, new ManagedServer(connection)]),
    );
    if (options.observer) this.#observers.add(options.observer);
    if (options.store) {
      const logger = options.logger ?? silentLogger;
      this.#recorder = new StoreRecorder(options.store, {
        onError: (error) => logger.warn({ err: error }, `store: a record was not written: ${String(error)}`),
      });
      this.#observers.add(this.#recorder);
    }
    this.#pipeline = new CallPipeline({
      catalog,
      server: (name) => this.#servers.get(name),
      observer: redactingObserver(this.#observers, this.redactor),
      logger: options.logger ?? silentLogger,
      isClosed: () => this.#closed,
      downServerFor: (name) => this.#downServerFor(name),
      scopeCalls: options.wireTrace !== undefined,
    });
    this.policy = compilePolicy(config.policy, {
      servers: config.servers,
      ...(options.policy ? { code: options.policy } : {}),
    });
    this.identity = options.identity ?? identityOf(config.identity) ?? osIdentity();
    if (this.policy || options.audit) {
      const timeouts = new Map(config.servers.map((server) => [server.name, server.timeoutMs]));
      this.#pipeline.use(
        policyStep({
          policy: this.policy,
          identity: this.identity,
          logger: options.logger ?? silentLogger,
          timeoutFor: (server) => timeouts.get(server) ?? DEFAULT_CALL_TIMEOUT_MS,
          ...(options.onApproval ? { onApproval: options.onApproval } : {}),
          ...(options.audit ? { audit: options.audit } : {}),
          ...(options.redact ? { redact: options.redact } : {}),
        }),
      );
    }
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

  static async #start(config: SwitchyardConfig, given: SwitchyardOptions): Promise<Switchyard> {
    if (given.identity !== undefined) checkIdentity(given.identity, "Switchyard options");
    const options = withRedaction(config, given);
    const logger = options.logger ?? silentLogger;
    for (const warning of config.warnings) logger.warn({}, `config: ${warning}`);
    const catalog = new Catalog(config.servers, (message) => logger.warn({}, message));
    const lists = new ResourceCatalog(config.servers);
    let servers: Map<string, ManagedServer> | undefined;
    const fleet = new Fleet(config.servers, {
      logger,
      ...(options.wireTrace ? { wire: options.wireTrace } : {}),
      ...(options.onServerSettled ? { onSettled: options.onServerSettled } : {}),
      onToolsChanged: (server, tools) => catalog.setServerTools(server, tools),
      onResourcesChanged: (server, resources, templates) =>
        lists.setServerResources(server, resources, templates),
      onPromptsChanged: (server, prompts) => lists.setServerPrompts(server, prompts),
      onResourceUpdated: (server, uri) => created.#resourceUpdated(server, uri),
      requests: withForwardedSampling(
        options,
        clientAnswers({
          logger,
          roots: config.roots ?? [config.baseDir],
          ...(options.onElicitation ? { onElicitation: options.onElicitation } : {}),
          ...(options.elicitationUrl !== undefined ? { elicitationUrl: options.elicitationUrl } : {}),
          ...(options.onSampling ? { onSampling: options.onSampling } : {}),
          ...samplingModel(config, options),
        }),
      ),
      onStatus: (server, status, recovered) => {
        if (!servers) return; // the first connect: the catalog is loaded in one go, in order, after it
        if (recovered) servers.get(server)?.recovered();
        // A lazy server lists its cached catalog until it starts.
        const listed = status === "ready" || status === "restarting" || status === "lazy";
        catalog.setServerListed(server, listed);
        lists.setServerListed(server, listed);
      },
    });
    const created = new Switchyard(config, fleet, catalog, lists, options);
    try {
      await fleet.connectAll(options.signal);
    } catch (error) {
      await fleet.close();
      throw error;
    }
    const ready = fleet
      .connections()
      .filter(
        (connection) =>
          connection.status === "ready" || connection.status === "restarting" || connection.status === "lazy",
      );
    catalog.load(new Map(ready.map((connection) => [connection.name, connection.tools])));
    for (const connection of [...ready].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      lists.setServerResources(connection.name, connection.resources, connection.resourceTemplates);
      lists.setServerPrompts(connection.name, connection.prompts);
      lists.setServerListed(connection.name, true);
    }
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

  /**
   * Every tool of every server that can take calls (ready, or restarting), under its catalog name, that
   * the identity may call: the policy that admits calls decides it (a tool whose admission depends on
   * the arguments is listed).
   */
  tools(options: ToolsOptions = {}): ToolInfo[] {
    const policy = this.policy;
    const identity = options.identity ?? this.identity;
    if (policy && options.identity !== undefined) checkIdentity(options.identity, "tools");
    const entries = this.#catalog.entries();
    const listed =
      policy && options.policy !== false ? entries.filter((entry) => policy.lists(identity, entry)) : entries;
    return listed.map(({ name, server, tool, description, inputSchema, unsupported }) => ({
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
    if (this.#observers.size > 0) this.#observers.onEvent(this.redactor.event(event));
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

  /** Every resource of every server that can take requests, as (server, uri), by URI. */
  resources(): ResourceEntry[] {
    return this.#lists.resources();
  }

  /** Every resource template (RFC 6570) of every server that can take requests. */
  resourceTemplates(): ResourceTemplateEntry[] {
    return this.#lists.resourceTemplates();
  }

  /** Every prompt of every server that can take requests, under its catalog name (`<namespace>_<prompt>`). */
  prompts(): PromptEntry[] {
    return this.#lists.prompts();
  }

  /** Goes up with every change of what `resources()`, `resourceTemplates()` or `prompts()` list. */
  get listsVersion(): number {
    return this.#lists.version;
  }

  /**
   * Be told of every change of the resources (and templates) or prompts: `{ kind: "resources" |
   * "prompts", version, server, added, removed, changed }` (URIs and templates, or prompt names). The
   * tools' changes stay with `onCatalogChange`. Returns the function that stops it.
   */
  onListChange(listener: (change: ListChange) => void): () => void {
    return this.#lists.onChange(listener);
  }

  /**
   * Read a resource by URI: from the server given, else the one server that lists it (or whose
   * template matches it), through the server's guard (breaker, bulkhead) within one deadline, one
   * attempt.
   * @throws SwitchyardError `RESOURCE_NOT_FOUND` (with the closest URIs), `RESOURCE_AMBIGUOUS` (naming
   *   the servers), `INVALID_INPUT`, `SERVER_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`, `SERVER_ERROR`,
   *   `CIRCUIT_OPEN`, `QUEUE_FULL` or `CLOSED`.
   */
  async readResource(uri: string, options: ResourceOptions = {}): Promise<ResourceContents> {
    const managed = this.#resourceServer(uri, options);
    try {
      const result = await managed.guard.request(
        `resources/read ${uri}`,
        (attempt) => managed.connection.readResource(uri, attempt),
        requestOptions(options),
      );
      return { server: managed.name, uri, contents: result.contents };
    } catch (error) {
      // The server's own "no such resource" (-32002, or -32602 as SDK servers say it): a URI it does
      // not know, like one no server lists.
      if (
        isSwitchyardError(error) &&
        error.rpcCode !== undefined &&
        RESOURCE_UNKNOWN_RPC.has(error.rpcCode)
      ) {
        const { cause: _cause, ...details } = error.details();
        throw new SwitchyardError(
          "RESOURCE_NOT_FOUND",
          `server ${managed.name} has no resource ${uri}: ${error.message.replace(/^.*?\(JSON-RPC -?\d+\): /, "")}`,
          { ...details, cause: error },
        );
      }
      throw error;
    }
  }

  /**
   * Get a prompt's messages by its catalog name. Arguments are strings (numbers and booleans are
   * turned into strings); a required one that is missing is refused before anything is sent.
   * @throws SwitchyardError `PROMPT_NOT_FOUND` (with suggestions), `INVALID_ARGUMENTS`, `INVALID_INPUT`,
   *   `SERVER_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`, `SERVER_ERROR`, `CIRCUIT_OPEN`, `QUEUE_FULL` or `CLOSED`.
   */
  async getPrompt(
    name: string,
    args: Record<string, unknown> = {},
    options: Omit<ResourceOptions, "server"> = {},
  ): Promise<PromptResult> {
    this.#checkOpen();
    if (typeof name !== "string" || name === "")
      throw new SwitchyardError("INVALID_INPUT", "getPrompt needs a prompt name (a non-empty string)");
    const entry = this.#lists.getPrompt(name);
    if (!entry) {
      const near = this.#lists.suggestPrompts(name);
      throw new SwitchyardError(
        "PROMPT_NOT_FOUND",
        `no prompt named ${name} in the catalog${near.length ? `; did you mean ${near.join(", ")}?` : ""}`,
      );
    }
    const strings = promptArguments(entry, args);
    const managed = this.#servers.get(entry.server)!;
    const result = await managed.guard.request(
      `prompts/get ${entry.prompt}`,
      (attempt) => managed.connection.getPrompt(entry.prompt, strings, attempt),
      requestOptions(options),
    );
    return {
      name: entry.name,
      server: entry.server,
      prompt: entry.prompt,
      ...(result.description !== undefined ? { description: result.description } : {}),
      messages: result.messages,
    };
  }

  /**
   * Subscribe to a resource's updates (`resources/subscribe`, on servers that offer it): `onUpdated`
   * is called on each `notifications/resources/updated` for it (read it again to see what changed).
   * A restart subscribes again. Resolves with the function that ends this subscription (the server
   * is unsubscribed when its last listener goes).
   * @throws SwitchyardError `CAPABILITY_MISSING` (`capability: "resources.subscribe"`) when the server
   *   does not offer subscriptions; else as {@link readResource}.
   */
  async subscribeResource(
    uri: string,
    onUpdated: (update: ResourceUpdate) => void,
    options: ResourceOptions = {},
  ): Promise<() => Promise<void>> {
    if (typeof onUpdated !== "function")
      throw new SwitchyardError("INVALID_INPUT", "subscribeResource needs a listener function");
    const managed = this.#resourceServer(uri, options);
    const key = `${managed.name}\0${uri}`;
    let subscription = this.#subscriptions.get(key);
    if (!subscription) {
      const subscribed = managed.guard.request(
        `resources/subscribe ${uri}`,
        (attempt) => managed.connection.subscribeResource(uri, attempt),
        requestOptions(options),
      );
      subscription = { listeners: new Set(), subscribed };
      this.#subscriptions.set(key, subscription);
      subscribed.catch(() => this.#subscriptions.delete(key));
    }
    await subscription.subscribed;
    const listener = (update: ResourceUpdate) => onUpdated(update);
    subscription.listeners.add(listener);
    const current = subscription;
    return async () => {
      if (!current.listeners.delete(listener) || current.listeners.size > 0) return;
      if (this.#subscriptions.get(key) === current) this.#subscriptions.delete(key);
      if (this.#closed) return;
      await managed.guard.request(
        `resources/unsubscribe ${uri}`,
        (attempt) => managed.connection.unsubscribeResource(uri, attempt),
        requestOptions(options),
      );
    };
  }

  #resourceUpdated(server: string, uri: string): void {
    for (const listener of this.#subscriptions.get(`${server}\0${uri}`)?.listeners ?? []) {
      try {
        listener({ server, uri });
      } catch {
        // a listener must not throw; one that does does not stop the others
      }
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw new SwitchyardError("CLOSED", "this Switchyard is closed");
  }

  /** The server to ask for `uri`: the one given, or the one that lists it (or a template matching it). */
  #resourceServer(uri: string, options: ResourceOptions): ManagedServer {
    this.#checkOpen();
    if (typeof uri !== "string" || uri === "")
      throw new SwitchyardError("INVALID_INPUT", "a resource URI must be a non-empty string");
    if (typeof options !== "object" || options === null)
      throw new SwitchyardError("INVALID_INPUT", "resource options must be an object");
    const { server } = options;
    if (server !== undefined && !this.#servers.has(server)) {
      const near = closestNames(String(server), this.#servers.keys());
      throw new SwitchyardError(
        "INVALID_INPUT",
        `no server named ${String(server)}${near.length ? ` (did you mean ${near.join(", ")}?)` : ""}`,
      );
    }
    const lookup = this.#lists.resolve(uri, server, matchesUriTemplate);
    if (lookup.found) return this.#servers.get(lookup.server)!;
    if (server !== undefined) {
      const state = this.#fleet.get(server)!.state();
      throw new SwitchyardError(
        "SERVER_UNAVAILABLE",
        `server ${server} is ${state.status}${state.error ? `: ${state.error}` : ""}; ${uri} cannot be read`,
        { server, delivery: "final", serverFault: false },
      );
    }
    if (lookup.servers.length > 1) {
      throw new SwitchyardError(
        "RESOURCE_AMBIGUOUS",
        `resource ${uri} is on servers ${lookup.servers.join(", ")}; say which one (server: "${lookup.servers[0]}", or --server)`,
      );
    }
    throw new SwitchyardError(
      "RESOURCE_NOT_FOUND",
      `no server lists resource ${uri} (or a template that matches it)${lookup.suggestions.length ? `; did you mean ${lookup.suggestions.join(", ")}?` : ""}`,
    );
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
    await this.#recorder?.flush();
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
export type {
  ListChange,
  PromptEntry,
  ResourceEntry,
  ResourceTemplateEntry,
} from "./catalog/resources.js";
export type { ServerState };

/** JSON-RPC codes a server answers `resources/read` with for a URI it does not know. */
const RESOURCE_UNKNOWN_RPC = new Set([-32002, -32602]);

/** The deadline and signal of a request, as the guard takes them. */
function requestOptions(options: { timeoutMs?: number; signal?: AbortSignal }): {
  timeoutMs?: number;
  signal?: AbortSignal;
} {
  if (options.timeoutMs !== undefined && !(typeof options.timeoutMs === "number" && options.timeoutMs > 0))
    throw new SwitchyardError("INVALID_INPUT", "timeoutMs must be a positive number");
  return {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/** A prompt's arguments as MCP wants them (strings), checked against what the prompt declares. */
function promptArguments(entry: PromptEntry, args: unknown): Record<string, string> {
  if (typeof args !== "object" || args === null || Array.isArray(args))
    throw new SwitchyardError("INVALID_INPUT", `the arguments of prompt ${entry.name} must be an object`);
  const strings: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      strings[key] = String(value);
    else
      throw new SwitchyardError(
        "INVALID_INPUT",
        `argument ${key} of prompt ${entry.name} must be a string (prompt arguments are strings)`,
      );
  }
  const missing = entry.arguments.filter((arg) => arg.required && strings[arg.name] === undefined);
  if (missing.length) {
    throw new SwitchyardError(
      "INVALID_ARGUMENTS",
      `prompt ${entry.name} (${entry.prompt} on server ${entry.server}) needs ${missing.map((arg) => arg.name).join(", ")}; it takes ${entry.arguments.map((arg) => `${arg.name}${arg.required ? " (required)" : ""}`).join(", ")}`,
      { server: entry.server },
    );
  }
  return strings;
}

/** The config's `identity` section as an identity. */
function identityOf(section: SwitchyardConfig["identity"]): Identity | undefined {
  if (!section) return undefined;
  return {
    user: section.user,
    roles: section.roles ?? [],
    ...(section.attributes ? { attributes: section.attributes } : {}),
  };
}

/** The options with the redactor in place: the logger, the wire trace and the audit log redacted. */
function withRedaction(config: SwitchyardConfig, options: SwitchyardOptions): SwitchyardOptions {
  const redactor = options.redactor ?? Redactor.fromConfig(config);
  return {
    ...options,
    redactor,
    redact: options.redact ?? redactor.value,
    ...(options.logger ? { logger: redactingLogger(options.logger, redactor) } : {}),
    ...(options.wireTrace ? { wireTrace: redactingWireSink(options.wireTrace, redactor) } : {}),
    // The audit log: the sink given, else the store (as `store` says).
    ...(options.audit || options.store
      ? { audit: redactingAuditSink((options.audit ?? options.store)!, redactor) }
      : {}),
  };
}

function isResolved(config: unknown): config is SwitchyardConfig {
  return (
    typeof config === "object" &&
    config !== null &&
    Array.isArray((config as SwitchyardConfig).servers) &&
    typeof (config as SwitchyardConfig).baseDir === "string"
  );
}

/** A sampling request as the gateway forwards it: the server that asks, its params, its signal. */
export interface ForwardedSamplingRequest {
  server: string;
  params: CreateMessageRequestParams;
  signal: AbortSignal;
}

/** Answers a sampling request in full (see `onSamplingRequest`). */
export type SamplingForwarder = (request: ForwardedSamplingRequest) => Promise<CreateMessageResult>;

/** The fleet's answers, with sampling answered by `onSamplingRequest` when it is given. */
function withForwardedSampling(options: SwitchyardOptions, requests: ClientRequests): ClientRequests {
  const forward = options.onSamplingRequest;
  if (!forward) return requests;
  return { ...requests, sample: (server, params, signal) => forward({ server, params, signal }) };
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
