import {
  createLogger,
  findConfigFile,
  LOG_LEVELS,
  type Logger,
  type LogLevel,
  loadConfigFile,
  openWireTrace,
  pendingConfigInputs,
  type ServerState,
  Switchyard,
  type SwitchyardConfig,
  type WireTraceWriter,
} from "../index.js";
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
}

/** What a command runs with: output, logger, and resources closed when the command ends. */
export class CommandContext {
  readonly out: Output;
  readonly logger: Logger;
  readonly #options: GlobalOptions;
  #wire: WireTraceWriter | undefined;
  #config: SwitchyardConfig | undefined;
  #yards: Switchyard[] = [];

  constructor(options: GlobalOptions) {
    this.#options = options;
    this.out = createOutput(options.json === true);
    this.logger = createLogger({
      level: parseLogLevel(options.logLevel),
      format: options.logFormat === "json" ? "json" : "pretty",
    });
  }

  /** Load the config (flag, env, or default file); the same object on every call. */
  loadConfig(configFile?: string): SwitchyardConfig {
    if (!this.#config || configFile) {
      const file = configFile ?? findConfigFile(this.#options.config);
      this.#config = loadConfigFile(file, undefined, { inputs: askForInputs(file) });
    }
    return this.#config;
  }

  /** Connect to the config's servers, showing progress on a TTY. */
  async connect(configFile?: string): Promise<Switchyard> {
    const config = this.loadConfig(configFile);
    if (this.#options.traceWire) this.#wire ??= openWireTrace(this.#options.traceWire);
    const progress = process.stderr.isTTY ? new ConnectProgress() : undefined;
    const yard = await Switchyard.connect(config, {
      logger: this.logger,
      ...(this.#wire ? { wireTrace: this.#wire.sink } : {}),
      ...(progress
        ? { onServerSettled: (state, settled, total) => progress.update(state, settled, total) }
        : {}),
    });
    progress?.done();
    this.#yards.push(yard);
    return yard;
  }

  /** Close every Switchyard this command opened and the wire trace. Idempotent. */
  async close(): Promise<void> {
    const yards = this.#yards;
    this.#yards = [];
    await Promise.all(yards.map((yard) => yard.close()));
    this.#wire?.close();
  }
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
