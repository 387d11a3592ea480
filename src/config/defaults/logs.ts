// Logs: the level and format of `createLogger` and of the CLI; no config key sets them.

import type { LogFormat, LogLevel } from "../vocabulary.js";

/** Log level of `createLogger` and of the CLI (`--log-level`). */
export const DEFAULT_LOG_LEVEL: LogLevel = "warn";
/** Log format of `createLogger` and of the CLI (`--log-format`). */
export const DEFAULT_LOG_FORMAT: LogFormat = "pretty";
