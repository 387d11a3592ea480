import path from "node:path";
import {
  compilePolicy,
  createLogger,
  DEFAULT_CONFIG_FILES,
  findConfigFile,
  type Identity,
  LOG_LEVELS,
  type Logger,
  type LogLevel,
  loadConfigFile,
  openStore,
  openWireTrace,
  osIdentity,
  type PolicyEngine,
  pendingConfigInputs,
  Redactor,
  type ServerState,
  type Store,
  Switchyard,
  type SwitchyardConfig,
  type WireTraceWriter,
} from "../internal.js";
import { approveCall, approveSampling, askUser } from "./ask-user.js";
import { CliError, EXIT_USAGE } from "./exit-codes.js";
import { createOutput, type Output } from "./output.js";
import { promptSync } from "./prompt.js";

/** Flags every command accepts. */
export interface GlobalOptions {
  config?: string;
  json?: boolean;
  traceWire?: string;
  logLevel?: string;
  logFormat?: string;
  /** `--user <id>`: who the command's listings and calls are for. */
  user?: string;
  /** `--role <role>`, repeatable: the roles of that user. */
  role?: string[];
}

/** What {@link CommandContext.connect} starts, and who says which servers failed. */
export interface ConnectOptions {
  /** Another config file than the command's (the demo's fleets). */
  configFile?: string;
  /** Only these servers of the config. */
  only?: readonly string[];
  /**
   * Whether each server that failed (or needs a login) is noted on stderr; default true. False for a
   * command that shows them itself (`servers`' table, `call`'s error), so that each is said once.
   */
  noteFailures?: boolean;
  /**
   * List servers from the catalog cache when it is good, without starting them (each is `lazy`: the
   * first request starts it); a server with no good cache is started, and its catalog cached.
   */
  fromCache?: boolean;
}

/** What a command runs with: output, logger, and resources closed when the command ends. */
export class CommandContext {
  readonly out: Output;
  readonly logger: Logger;
  readonly #options: GlobalOptions;
  #wire: WireTraceWriter | undefined;
  #config: SwitchyardConfig | undefined;
  #configFile: string | undefined;
  #yards: Switchyard[] = [];
  /** Configs whose warnings a Switchyard already logged: a command that connects twice says them once. */
  readonly #warned = new WeakSet<SwitchyardConfig>();
  /** Aborted when the CLI is interrupted (a signal): commands pass it as their run's `signal`. */
  readonly #interrupt = new AbortController();
  #onInterrupt: ((signal: NodeJS.Signals) => boolean) | undefined;
  #runsTakeSignal = false;
  #closing: Promise<unknown> = Promise.resolve();
  /** The store runs are recorded in, opened on first use; undefined inside: recording is off. */
  #store: Promise<Store | undefined> | undefined;
  /** What {@link redact} uses, and the config it was made for (none: the environment's secrets only). */
  #redactor: { redactor: Redactor; config: SwitchyardConfig | undefined } | undefined;

  constructor(options: GlobalOptions) {
    this.#options = options;
    this.out = createOutput(options.json === true, this.redact);
    this.logger = createLogger({
      level: parseLogLevel(options.logLevel),
      format: options.logFormat === "json" ? "json" : "pretty",
    });
    if (options.traceWire !== undefined) this.#wire = openTrace(options.traceWire, options.json === true);
  }

  /** Load the config (flag, env, or default file); the same object on every call. */
  loadConfig(configFile?: string): SwitchyardConfig {
    if (!this.#config || configFile) {
      const file = configFile ?? findConfigFile(this.#options.config);
      this.#config = loadConfigFile(file, undefined, { inputs: askForInputs(file) });
      this.#configFile = file;
    }
    return this.#config;
  }

  /**
   * A text as the CLI may write it on stderr (errors, notes): the secrets of the config loaded (as a
   * Switchyard of it redacts its records) and of the environment replaced.
   */
  readonly redact = (text: string): string => this.redactor().text(text);

  /** The redactor of {@link redact}: the config's once it is loaded, else the environment's. */
  redactor(): Redactor {
    const config = this.#config;
    if (!this.#redactor || this.#redactor.config !== config)
      this.#redactor = { redactor: config ? Redactor.fromConfig(config) : new Redactor(), config };
    return this.#redactor.redactor;
  }

  /**
   * Who the command lists and calls for: `--user` and `--role`, else the config's `identity`, else the
   * OS user with no roles. `--user` alone has no roles (the config's are another user's); `--role`
   * alone keeps the config's (or the OS) user.
   */
  identity(): Identity {
    const section = this.loadConfig().identity;
    const { user, role } = this.#options;
    if (user === undefined && role === undefined && section) {
      return {
        user: section.user,
        roles: section.roles ?? [],
        ...(section.attributes ? { attributes: section.attributes } : {}),
      };
    }
    const sameUser = user === undefined || user === section?.user;
    return {
      user: user ?? section?.user ?? osIdentity().user,
      roles: role ?? (sameUser ? (section?.roles ?? []) : []),
      ...(sameUser && section?.attributes ? { attributes: section.attributes } : {}),
    };
  }

  /** The config's policy, compiled (for listings made without connecting: the cached catalog). */
  policy(): PolicyEngine | undefined {
    const config = this.loadConfig();
    return compilePolicy(config.policy, { servers: config.servers });
  }

  /**
   * The config file a command that edits it works on (`add`, `remove`), without loading it: the one
   * `--config` or `$SWITCHYARD_CONFIG` names (it may not exist yet), else the one found in the working
   * directory, else a new `switchyard.config.json` there.
   */
  editableConfigFile(): string {
    const named = this.#options.config ?? process.env.SWITCHYARD_CONFIG;
    if (named) return path.resolve(named);
    try {
      return findConfigFile(undefined);
    } catch {
      return path.resolve(DEFAULT_CONFIG_FILES[0]!);
    }
  }

  /** The path of the config file {@link loadConfig} read (loading it if it was not yet). */
  configFile(): string {
    this.loadConfig();
    return this.#configFile!;
  }

  /**
   * Connect to the config's servers — all of them, or only those named in `only` (their tools keep
   * the names they have in the whole fleet when `namesStandAlone` in connect-for.ts says so), from
   * the catalog cache with `fromCache` — showing progress on a TTY, then noting each server that
   * failed, once (the library's log line for it is lowered to `info`).
   */
  async connect(options: ConnectOptions = {}): Promise<Switchyard> {
    const { configFile, only } = options;
    const loaded = this.loadConfig(configFile);
    const servers = only ? loaded.servers.filter((server) => only.includes(server.name)) : loaded.servers;
    const config = {
      ...loaded,
      servers: options.fromCache ? servers.map((server) => ({ ...server, lazy: true })) : servers,
      warnings: this.#warned.has(loaded) ? [] : loaded.warnings,
    };
    this.#warned.add(loaded);
    const store = await this.#recordingStore();
    const progress = process.stderr.isTTY ? new ConnectProgress() : undefined;
    const yard = await Switchyard.connect(config, {
      logger: this.logger,
      serverFailureLogLevel: "info",
      // Every server's catalog is kept, for the commands that list from the cache (`fromCache`).
      cacheCatalogs: true,
      // Servers that ask the user are answered on the terminal (declined without one).
      onElicitation: askUser,
      elicitationUrl: true,
      onSampling: approveSampling,
      // Runs, calls and the audit log are recorded in the store (on by default; `store: false`: off).
      ...(store ? { store } : {}),
      // Calls the policy holds for approval are asked on the terminal (refused without one).
      onApproval: approveCall,
      identity: this.identity(),
      ...(this.#wire ? { wireTrace: this.#wire.sink } : {}),
      ...(progress
        ? { onServerSettled: (state, settled, total) => progress.update(state, settled, total) }
        : {}),
    });
    progress?.done();
    if (options.noteFailures !== false) {
      for (const state of yard.servers()) {
        if (state.status === "needs-auth")
          this.out.note(
            `warning: server ${state.name} needs a login and is left out: run \`switchyard login ${state.name}\``,
          );
        if (state.status === "failed")
          this.out.note(`warning: server ${state.name} failed and is left out: ${state.error}`);
      }
    }
    yard.observe((event) => {
      if (event.type === "call_progress") this.out.note(describeProgress(event));
    });
    this.#yards.push(yard);
    return yard;
  }

  /**
   * The store the config names (`store: { path }` or `{ url }`), else the embedded default file;
   * undefined when the config says `store: false`. Without a config file: the default file. Opened once.
   */
  store(): Promise<Store | undefined> {
    this.#store ??= (async () => {
      const section = this.#storeSection();
      if (section === false) return undefined;
      const key = this.auditSection().key;
      return openStore(section, key !== undefined ? { auditKey: key } : {});
    })();
    return this.#store;
  }

  /** The store, for commands that read it (`runs`, `audit`): recording off is a usage error. */
  async requireStore(): Promise<Store> {
    const store = await this.store();
    if (!store)
      throw new CliError(
        `nothing is recorded: ${this.configFile()} says store: false; remove it (or give store: { path } or { url }) to record runs and the audit log`,
        EXIT_USAGE,
      );
    return store;
  }

  /** The config's `audit` section (its key signs the log); none, or no config file at all: empty. */
  auditSection(): NonNullable<SwitchyardConfig["audit"]> {
    if (this.#options.config === undefined && process.env.SWITCHYARD_CONFIG === undefined) {
      try {
        findConfigFile(undefined);
      } catch {
        return {};
      }
    }
    return this.loadConfig().audit ?? {};
  }

  /** The config's `store` section; none, or no config file at all: the default. */
  #storeSection(): SwitchyardConfig["store"] {
    if (this.#options.config === undefined && process.env.SWITCHYARD_CONFIG === undefined) {
      try {
        findConfigFile(undefined);
      } catch {
        return {}; // no config here: the default file
      }
    }
    return this.loadConfig().store ?? {};
  }

  /**
   * The store a connected fleet records into: the config's; the default one unless the config turns
   * recording off. Only the default may fail to open: then a warning, and nothing is recorded.
   */
  async #recordingStore(): Promise<Store | undefined> {
    const explicit = this.loadConfig().store !== undefined;
    try {
      return await this.store();
    } catch (error) {
      if (explicit) throw error;
      this.out.note(`warning: runs are not recorded: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** Close one Switchyard this command opened, before the command ends. */
  async disconnect(yard: Switchyard): Promise<void> {
    this.#yards = this.#yards.filter((open) => open !== yard);
    await yard.close();
  }

  /** Aborts when the CLI is interrupted. */
  get signal(): AbortSignal {
    return this.#interrupt.signal;
  }

  /**
   * The signal for the command's runs (`agent.run`, `runPlan`, `callTool`): taking it tells the CLI
   * that, after a signal, the command's work stops by itself and is worth waiting for before closing.
   */
  runSignal(): AbortSignal {
    this.#runsTakeSignal = true;
    return this.#interrupt.signal;
  }

  /** After a signal: whether to wait for the command to stop — it took {@link runSignal} and is connected. */
  get waitsForCancel(): boolean {
    return this.#runsTakeSignal && this.#yards.length > 0;
  }

  /**
   * Let the command take signals itself: `handler` returns true when it did (chat: Ctrl-C cancels the
   * question running), and the CLI then goes on.
   */
  handleInterrupts(handler: (signal: NodeJS.Signals) => boolean): void {
    this.#onInterrupt = handler;
  }

  /**
   * A signal arrived. The command may take it ({@link handleInterrupts}): true. Otherwise
   * {@link signal} aborts — the command's run is cancelled — and the CLI is to close: false.
   */
  interrupt(signal: NodeJS.Signals): boolean {
    if (!this.#interrupt.signal.aborted && this.#onInterrupt?.(signal)) return true;
    this.#interrupt.abort(new DOMException(`interrupted (${signal})`, "AbortError"));
    return false;
  }

  /** Close every Switchyard this command opened and the wire trace. Idempotent; a second call waits for the first. */
  async close(): Promise<void> {
    const yards = this.#yards;
    this.#yards = [];
    this.#closing = Promise.all([this.#closing, ...yards.map((yard) => yard.close())]);
    await this.#closing;
    this.#wire?.close();
    // After the fleet: its recorder has written its last events.
    const store = await this.#store?.catch(() => undefined);
    await store?.close();
  }
}

/** "  orders_export: 2/5 (40%) writing rows" — a server's progress report on a call, for stderr. */
function describeProgress(event: {
  name: string;
  progress: number;
  total?: number;
  message?: string;
}): string {
  const { name, progress, total, message } = event;
  const share = total ? ` (${Math.round((100 * progress) / total)}%)` : "";
  return `  ${name}: ${progress}${total !== undefined ? `/${total}` : ""}${share}${message ? ` ${message}` : ""}`;
}

/** On a terminal, ask for the config's `${input:…}` values nothing else answers (as VS Code does). */
function askForInputs(file: string): Record<string, string> {
  const answers: Record<string, string> = {};
  if (!process.stdin.isTTY) return answers; // loading then says which variable to set
  for (const input of pendingConfigInputs(file)) {
    const answer = promptSync(`${input.description ?? input.id}: `, { password: input.password === true });
    if (answer !== undefined) answers[input.id] = answer;
  }
  return answers;
}

/**
 * Open the `--trace-wire` target before anything runs, so that a path that cannot be written is a
 * usage error naming the flag, not a failure halfway through. `-` (stdout) and `--json` both write to
 * stdout, so they are refused together.
 */
function openTrace(target: string, json: boolean): WireTraceWriter {
  if (target === "-" && json) {
    throw new CliError(
      "--trace-wire - cannot be used with --json: both write to stdout; give the trace a file, e.g. --trace-wire trace.jsonl",
      EXIT_USAGE,
    );
  }
  if (target === "") throw new CliError("--trace-wire needs a file, or - for stdout", EXIT_USAGE);
  try {
    return openWireTrace(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const why: Record<string, string> = {
      ENOENT: `the folder ${path.dirname(path.resolve(target))} does not exist`,
      ENOTDIR: `a part of the path is not a folder`,
      EISDIR: "it is a folder",
      EACCES: "permission denied",
      EPERM: "permission denied",
      EROFS: "read-only file system",
    };
    throw new CliError(
      `--trace-wire ${target}: cannot write: ${code || (error as Error).message}${why[code] ? ` (${why[code]})` : ""}; give a writable file, or - for stdout`,
      EXIT_USAGE,
    );
  }
}

function parseLogLevel(level: string | undefined): LogLevel {
  if (level === undefined) return "warn";
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  throw new CliError(`--log-level must be one of ${LOG_LEVELS.join(", ")} (got "${level}")`, EXIT_USAGE);
}

/** "connecting 3/5 servers… orders ready" on one rewritten stderr line. */
class ConnectProgress {
  update(state: ServerState, settled: number, total: number): void {
    process.stderr.write(`\r\x1b[2Kconnecting ${settled}/${total} servers… ${state.name} ${state.status}`);
  }

  done(): void {
    process.stderr.write("\r\x1b[2K");
  }
}
