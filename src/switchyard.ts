import { optionsObject } from "./calls/check-input.js";
import { checkIdentity } from "./calls/identity.js";
import type { ToolResult } from "./calls/normalize.js";
import type { PolicyEngine } from "./calls/policy.js";
import type {
  CallToolOptions,
  CompletionReference,
  CompletionResult,
  PromptResult,
  RequestInput,
  RequestInterceptor,
  RequestKind,
  RequestOptions,
  RequestOutcome,
  RequestResults,
  ResourceContents,
} from "./calls/request.js";
import { ResourceListeners, type ResourceUpdate } from "./calls/resource-listeners.js";
import type { ServerInfo } from "./calls/server.js";
import type { CatalogChange, CatalogEntry } from "./catalog/catalog.js";
import type { ListChange, PromptEntry, ResourceEntry, ResourceTemplateEntry } from "./catalog/resources.js";
import { isResolvedConfig, loadConfigFile, resolveConfig } from "./config/load.js";
import type { SwitchyardConfig } from "./config/schema.js";
import { SwitchyardError } from "./errors.js";
import { buildFleet, type FleetParts } from "./switchyard-fleet.js";
import { FacadeListings } from "./switchyard-listings.js";
import {
  type ListOptions,
  type ResourceOptions,
  type SwitchyardOptions,
  type ToolInfo,
  type ToolsOptions,
  withRedaction,
} from "./switchyard-options.js";
import { buildPipeline, type FacadePipeline } from "./switchyard-pipeline.js";
import {
  FacadeSkills,
  type LoadedSkill,
  type SkillEntry,
  type SkillListing,
  type SkillOptions,
} from "./switchyard-skills.js";
import { instructionsFor, type ServerInstructions, storedPins, trustTools } from "./switchyard-trust.js";
import type { Identity } from "./telemetry/audit.js";
import type { Observer, SwitchyardEvent } from "./telemetry/events.js";
import type { Finding } from "./telemetry/findings.js";
import { silentLogger } from "./telemetry/logger.js";
import type { Redactor } from "./telemetry/redact.js";
import { redactSpans } from "./telemetry/tracer.js";
import type { ToolPin } from "./trust/pins.js";

/**
 * One agent's view of many MCP servers: a fleet of connections and one catalog of their tools,
 * resources and prompts. Every request any of them is asked goes through one pipeline ({@link request}).
 *
 * ```ts
 * await using yard = await Switchyard.fromFile("switchyard.config.json");
 * const result = await yard.callTool("orders_query_recent_orders", { customer_id: "C10001" });
 * ```
 */
export class Switchyard implements AsyncDisposable {
  readonly config: SwitchyardConfig;
  /**
   * What every log line, wire record, event, record, audit entry, span and request failure is redacted
   * with (`redactor`); the gateway and the CLI redact what they answer and print with it too.
   */
  readonly redactor: Redactor;
  /** The one engine that decides what every listing shows and every request may do; none: all allowed. */
  readonly policy: PolicyEngine | undefined;
  /** Who requests and listings are for when they do not say. */
  readonly identity: Identity;
  /** The fleet and its catalogs, and the trust gate they ask. */
  readonly #parts: FleetParts;
  /** The one pipeline, each server's guard, the observers. */
  readonly #requests: FacadePipeline;
  readonly #listings: FacadeListings;
  readonly #listeners: ResourceListeners;
  readonly #skills: FacadeSkills;
  #closed = false;
  /** Stops redacting spans with this Switchyard's secrets (at `close`). */
  readonly #unredactSpans: () => void;

  private constructor(config: SwitchyardConfig, parts: FleetParts, options: SwitchyardOptions) {
    this.config = config;
    this.redactor = options.redactor!;
    this.#unredactSpans = redactSpans(this.redactor.text);
    this.#parts = parts;
    this.#requests = buildPipeline(config, parts, options, {
      redactor: this.redactor,
      emit: (event) => this.emit(event),
      isClosed: () => this.#closed,
    });
    this.policy = this.#requests.policy;
    this.identity = this.#requests.identity;
    const { catalog, lists } = parts;
    this.#listings = new FacadeListings({ catalog, lists, policy: this.policy, identity: this.identity });
    this.#listeners = new ResourceListeners((input) => this.request(input));
    this.#skills = new FacadeSkills(
      (input) => this.#requests.pipeline.run(input),
      () => this.servers(),
    );
  }

  /**
   * Connect to every server of a config (the config file's shape, or an already resolved config), in
   * parallel. Resolves once each server is ready or failed: a failed server never fails the whole.
   * @throws SwitchyardError `CONFIG_INVALID` when the config is malformed.
   */
  static async connect(config: unknown, options: SwitchyardOptions = {}): Promise<Switchyard> {
    const resolved = isResolvedConfig(config)
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
    for (const warning of config.warnings) (options.logger ?? silentLogger).warn({}, `config: ${warning}`);
    let created: Switchyard | undefined;
    const pins = await storedPins(options.store, options.logger ?? silentLogger);
    const parts = buildFleet(config, options, pins, {
      emit: (event) => created?.emit(event),
      resourceUpdated: (server, uri) => {
        if (created) created.#listeners.updated(server, uri);
      },
      recovered: (server) => {
        if (created) created.#requests.servers.get(server)?.recovered();
      },
      toolsListed: (server) => {
        if (created) created.#requests.servers.get(server)?.cache?.clear();
      },
    });
    created = new Switchyard(config, parts, options);
    await parts.connect(options.signal);
    return created;
  }

  /**
   * Every configured server: status, transport, protocol version, tool count, connect time, restarts,
   * health, breaker state, and requests in flight and queued.
   */
  servers(): ServerInfo[] {
    // Why a server failed may quote what it printed (its stderr's last lines): shown redacted.
    return [...this.#requests.servers.values()].map((server) => {
      const info = server.info();
      return info.error === undefined ? info : { ...info, error: this.redactor.text(info.error) };
    });
  }

  /**
   * Every tool of every server that can take calls (ready, or restarting), under its catalog name, that
   * the identity may call: the policy that admits calls decides it (a tool whose admission depends on
   * the arguments is listed).
   */
  tools(options: ToolsOptions = {}): ToolInfo[] {
    return this.#listings.tools(options);
  }

  /** Every resource of every server that can take requests, as (server, uri), that the identity may read. */
  resources(options: ListOptions = {}): ResourceEntry[] {
    return this.#listings.resources(options);
  }

  /** Every resource template (RFC 6570) of every server that can take requests, that the identity may read from. */
  resourceTemplates(options: ListOptions = {}): ResourceTemplateEntry[] {
    return this.#listings.resourceTemplates(options);
  }

  /** Every prompt of every server that can take requests, under its catalog name, that the identity may get. */
  prompts(options: ListOptions = {}): PromptEntry[] {
    return this.#listings.prompts(options);
  }

  /** Goes up with every change of what `tools()` lists. */
  get catalogVersion(): number {
    return this.#parts.catalog.version;
  }

  /**
   * A key that changes whenever `tools()` would answer differently (a server's tools changed, or a
   * server went down or came back): for caches built on the catalog, such as a router's index.
   */
  catalogKey(): string {
    return String(this.#parts.catalog.version);
  }

  /**
   * Be told of every change of the catalog as it happens: tools added, removed or changed, a server
   * going down (all its tools removed) or coming back. Returns the function that stops it.
   */
  onCatalogChange(listener: (change: CatalogChange) => void): () => void {
    return this.#parts.catalog.onChange(listener);
  }

  /** Goes up with every change of what `resources()`, `resourceTemplates()` or `prompts()` list. */
  get listsVersion(): number {
    return this.#parts.lists.version;
  }

  /**
   * Be told of every change of the resources (and templates) or prompts: `{ kind: "resources" |
   * "prompts", version, server, added, removed, changed }` (URIs and templates, or prompt names). The
   * tools' changes stay with `onCatalogChange`. Returns the function that stops it.
   */
  onListChange(listener: (change: ListChange) => void): () => void {
    return this.#parts.lists.onChange(listener);
  }

  /** Receive every event (requests, runs); returns the function that stops it. */
  observe(observer: Observer | ((event: SwitchyardEvent) => void)): () => void {
    return this.#requests.observers.add(typeof observer === "function" ? { onEvent: observer } : observer);
  }

  /** Report an event of a run to this Switchyard's observers (agents and plans over it do). */
  emit(event: SwitchyardEvent): void {
    if (this.#requests.observers.size > 0) this.#requests.observers.onEvent(this.redactor.event(event));
  }

  /** Add a step to every request (audit, rewriting); returns the function that removes it. */
  use(interceptor: RequestInterceptor): () => void {
    return this.#requests.pipeline.use(interceptor);
  }

  /** What a server says about itself in its handshake: `instructions`, when it gives them. */
  serverInstructions(name: string): string | undefined {
    return this.#parts.fleet.get(name)?.instructions;
  }

  /**
   * The servers' instructions a model may be given, for the servers of the tools the identity may
   * call: hidden text removed, each with its cap; none where the config says `instructions: false` or
   * a scan found them poisoned.
   */
  instructions(options: ListOptions = {}): ServerInstructions[] {
    const servers = new Set(this.tools(options).map((tool) => tool.server));
    const { fleet, trust } = this.#parts;
    return instructionsFor({ config: this.config, fleet, gate: trust.gate }, servers);
  }

  /** The full catalog entry of a tool (schemas, annotations), by catalog name. */
  describeTool(name: string): CatalogEntry | undefined {
    return typeof name === "string" ? this.#parts.catalog.get(name) : undefined;
  }

  /** The listed prompt (its server, own name, arguments) of a catalog name, whoever may get it. */
  describePrompt(name: string): PromptEntry | undefined {
    return typeof name === "string" ? this.#parts.lists.getPrompt(name) : undefined;
  }

  /**
   * What the scans found in what the servers say (trust/): in their tools' texts, their names beside
   * other servers', and changes since a tool was pinned — `{ server, tool?, kind, severity, detail }`.
   * A high finding quarantines its tool (`security.onFinding`): not listed, calls `TOOL_QUARANTINED`.
   */
  findings(options: { server?: string } = {}): Finding[] {
    return this.#parts.trust.gate.findings(optionsObject(options, "findings").server);
  }

  /** The tools quarantined for high findings, with the findings that hold them. */
  quarantined(): CatalogEntry[] {
    return this.#parts.catalog.quarantined();
  }

  /**
   * Accept a server's tools as it lists them now — all, or one (`tool`: its own name on the server):
   * they are pinned again as trusted, so what drift or a scan held is listed again. Returns the pins.
   * @throws SwitchyardError `INVALID_INPUT` for a server or tool that is not there.
   */
  trust(server: string, tool?: string): ToolPin[] {
    const { fleet, catalog, trust } = this.#parts;
    const pins = trustTools({ fleet, gate: trust.gate, catalog }, server, tool);
    this.#requests.servers.get(server)?.cache?.clear(); // its pins changed: what was cached under the old ones goes
    return pins;
  }

  /** Catalog names closest to `name` (a misspelt or outdated one), for "did you mean" help; at most 3. */
  suggestTools(name: string): string[] {
    return typeof name === "string" ? this.#parts.catalog.suggest(name) : [];
  }

  /**
   * Send one request — a tool call, a resource read or subscription, a prompt, a completion — through
   * the pipeline, and get its outcome: the result and its record, or why not. Never rejects for the
   * request's own failure. The other request methods are this, with the outcome unwrapped.
   */
  request<K extends RequestKind>(
    input: Extract<RequestInput, { kind: K }>,
  ): Promise<RequestOutcome<RequestResults[K]>> {
    return this.#requests.pipeline.run(input);
  }

  /**
   * Call a tool by its catalog name: arguments checked against the tool's input schema (after safe
   * coercion such as `"7"` → `7`; nothing is sent when they do not fit), the policy, the interceptors,
   * then the server's guard (circuit breaker, bulkhead, one deadline for the whole call, retries where
   * they are safe). Resolves with the server's result, `isError: true` included.
   * @throws SwitchyardError `TOOL_NOT_FOUND`, `INVALID_ARGUMENTS`, `INVALID_INPUT`, `TIMEOUT`,
   *   `CANCELLED`, `SERVER_UNAVAILABLE`, `SERVER_ERROR`, `CIRCUIT_OPEN`, `QUEUE_FULL`,
   *   `RESULT_TOO_LARGE`, `INVALID_RESULT`, `CAPABILITY_MISSING`, `AUTH_REQUIRED`, `POLICY_DENIED` or
   *   `CLOSED`; the message names the server and the tool.
   */
  callTool(name: string, args: unknown = {}, options: CallToolOptions = {}): Promise<ToolResult> {
    return this.#unwrap(() => ({
      ...optionsObject(options, `call options for ${String(name)}`),
      kind: "tool",
      name,
      arguments: args,
    }));
  }

  /**
   * Read a resource by URI: from the server given, else the one server that lists it (or whose
   * template matches it), through the pipeline like a tool call (policy, interceptors, the server's
   * guard, one deadline, records).
   * @throws SwitchyardError `RESOURCE_NOT_FOUND` (with the closest URIs), `RESOURCE_AMBIGUOUS` (naming
   *   the servers), `POLICY_DENIED`, `INVALID_INPUT`, `SERVER_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`,
   *   `SERVER_ERROR`, `CIRCUIT_OPEN`, `QUEUE_FULL` or `CLOSED`.
   */
  readResource(uri: string, options: ResourceOptions = {}): Promise<ResourceContents> {
    return this.#unwrap(() => ({ ...optionsObject(options, "resource options"), kind: "resource", uri }));
  }

  /**
   * Get a prompt's messages by its catalog name. Arguments are strings (numbers and booleans are
   * turned into strings); a required one that is missing is refused before anything is sent.
   * @throws SwitchyardError `PROMPT_NOT_FOUND` (with suggestions), `INVALID_ARGUMENTS`, `POLICY_DENIED`,
   *   `INVALID_INPUT`, `SERVER_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`, `SERVER_ERROR`, `CIRCUIT_OPEN`,
   *   `QUEUE_FULL` or `CLOSED`.
   */
  getPrompt(
    name: string,
    args: Record<string, unknown> = {},
    options: RequestOptions = {},
  ): Promise<PromptResult> {
    return this.#unwrap(() => ({
      ...optionsObject(options, "prompt options"),
      kind: "prompt",
      name,
      arguments: args,
    }));
  }

  /**
   * Complete an argument (`completion/complete`): of a prompt (`{ type: "ref/prompt", name }`, its
   * catalog name) or of a resource template (`{ type: "ref/resource", uri }`, its URI template).
   * @throws SwitchyardError `PROMPT_NOT_FOUND`, `RESOURCE_NOT_FOUND`, `CAPABILITY_MISSING` (the server
   *   offers no completions), `POLICY_DENIED`, `INVALID_INPUT`, and what any request may fail with.
   */
  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    options: RequestOptions & { context?: { arguments?: Record<string, string> }; server?: string } = {},
  ): Promise<CompletionResult> {
    return this.#unwrap(() => ({
      ...optionsObject(options, "completion options"),
      kind: "complete",
      ref,
      argument,
    }));
  }

  /**
   * Subscribe to a resource's updates (`resources/subscribe`, on servers that offer it): `onUpdated`
   * is called on each `notifications/resources/updated` for it (read it again to see what changed). A
   * restart subscribes again. Resolves with the function that ends this subscription (the server is
   * unsubscribed when its last listener goes).
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
    return this.#listeners.subscribe(uri, onUpdated, optionsObject(options, "resource options"));
  }

  /**
   * The skills servers serve (the Skills extension, SEP-2640): every page of `skills/list` of each ready
   * server that declared it (or of `options.server`), each entry checked — a complete file list with
   * digests and sizes within 512 files and 16 MiB, a name its URI ends with — and held for loading.
   * Nothing of a skill is read here. An entry that fails its checks, or a server whose listing failed,
   * is in `refused`.
   */
  skills(options: SkillOptions = {}): Promise<SkillListing> {
    return this.#skills.list(optionsObject(options, "skill options"));
  }

  /**
   * One skill's entry, checked, from its `skills/get` now (a skill a listing left out is still served);
   * it becomes the entry the skill is loaded under. Nothing of it is read.
   * @throws SwitchyardError `SKILL_REFUSED`, or what any request may fail with.
   */
  skill(server: string, uri: string, options: RequestOptions = {}): Promise<SkillEntry> {
    return this.#skills.entry(server, uri, optionsObject(options, "skill options"));
  }

  /**
   * Check the contents a plain read of a skill's file gave against the entry held for its skill (size,
   * SHA-256): what the gateway does with reads of the skills it offers. A URI no held entry lists
   * passes unchecked.
   * @throws SwitchyardError `SKILL_REFUSED`.
   */
  checkSkillRead(server: string, uri: string, contents: ResourceContents["contents"]): void {
    this.#skills.checkRead(server, uri, contents as Array<{ uri: string; text?: string; blob?: string }>);
  }

  /**
   * Load a skill: its `SKILL.md` read from its server and verified against the entry held for it (its
   * `skills/get` when none is held): size, SHA-256 digest, and its YAML frontmatter field by field.
   * @throws SwitchyardError `SKILL_REFUSED` naming the server, the skill and what is wrong; else what
   *   any request may fail with.
   */
  loadSkill(server: string, uri: string, options: RequestOptions = {}): Promise<LoadedSkill> {
    return this.#skills.load(server, uri, optionsObject(options, "skill options"));
  }

  /**
   * Read one file of a skill (`references/FORMS.md`, relative to its `SKILL.md`, or its URI): only a
   * file the held entry lists is read, and it is verified against it.
   * @throws SwitchyardError `SKILL_REFUSED` for a file the entry does not list or one that does not match.
   */
  readSkillFile(server: string, uri: string, file: string, options: RequestOptions = {}): Promise<string> {
    return this.#skills.readFile(server, uri, file, optionsObject(options, "skill options"));
  }

  /** A request's result, or its error thrown: what the request methods give their callers. */
  async #unwrap<T>(input: () => RequestInput): Promise<T> {
    const outcome = await this.#requests.pipeline.run(input());
    if (!outcome.ok) throw outcome.error;
    return outcome.result as T;
  }

  /**
   * Connect again to servers that failed (at startup, or after their restarts ran out) — or, with
   * `failedOnly: false`, to every enabled server — without a new Switchyard. Resolves when each is
   * ready or failed again; their tools come back into the catalog.
   */
  async reconnect(options: { failedOnly?: boolean; signal?: AbortSignal } = {}): Promise<ServerInfo[]> {
    if (this.#closed) throw new SwitchyardError("CLOSED", "cannot reconnect: this Switchyard is closed");
    await Promise.all(this.#parts.fleet.connections().map((connection) => connection.reconnect(options)));
    return this.servers();
  }

  /** Close every connection and stop every server process. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#parts.fleet.close();
    await Promise.all([this.#requests.settle(), this.#parts.trust.flush()]);
    this.#unredactSpans();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

export type { ResourceUpdate } from "./calls/resource-listeners.js";
export type { ServerInfo } from "./calls/server.js";
export type { CatalogChange } from "./catalog/catalog.js";
export type { ListChange, PromptEntry, ResourceEntry, ResourceTemplateEntry } from "./catalog/resources.js";
export type { ServerLogMessage } from "./fleet/client-requests.js";
export type { RequestOrigin } from "./fleet/request-origin.js";
export type { ServerState } from "./fleet/server-state.js";
export type {
  ForwardedSamplingRequest,
  ListOptions,
  ResourceOptions,
  SamplingForwarder,
  SwitchyardOptions,
  ToolInfo,
  ToolsOptions,
} from "./switchyard-options.js";
export type { LoadedSkill, SkillEntry, SkillFile, SkillListing, SkillOptions } from "./switchyard-skills.js";
