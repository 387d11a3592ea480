import { DEFAULT_LOG_FORMAT, DEFAULT_LOG_LEVEL } from "../config/defaults.js";
import type { LogFormat, LogLevel } from "../config/vocabulary.js";
import { lazyRequire } from "../lazy-require.js";
import { callScope } from "./call-scope.js";
import { traceFields } from "./tracer.js";

export { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from "../config/vocabulary.js";

const loadPino = lazyRequire<typeof import("pino")>("pino");

type LogFn = (fields: Record<string, unknown>, message: string) => void;

/** The structured logger Switchyard writes to: a subset of pino's, so a pino logger can be passed in. */
export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
  /** Whether entries at `level` are written (pino has it): callers skip building entries nobody reads. */
  isLevelEnabled?(level: string): boolean;
}

const noop: LogFn = () => {};

/** A logger that drops everything: the library's default, so importing Switchyard prints nothing. */
export const silentLogger: Logger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
  isLevelEnabled: () => false,
};

export interface LoggerOptions {
  /** Default {@link DEFAULT_LOG_LEVEL} (`warn`). */
  level?: LogLevel;
  /** `pretty`: one readable line per entry; `json`: pino's JSON lines. Default {@link DEFAULT_LOG_FORMAT}. */
  format?: LogFormat;
  /** Where lines go; default stderr. */
  write?: (line: string) => void;
}

/**
 * A pino logger writing synchronously (nothing is lost when the process exits), as JSON lines or as
 * `warn  [server] message key=value` lines for people.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const format = options.format ?? DEFAULT_LOG_FORMAT;
  const stream = { write: format === "json" ? write : (line: string) => write(prettyLine(line)) };
  // `base: null`: no pid or hostname on every line.
  return loadPino().pino(
    {
      level: options.level ?? DEFAULT_LOG_LEVEL,
      base: null,
      timestamp: format === "json",
      mixin: correlation,
    },
    stream,
  );
}

/**
 * What joins a log line to the rest: the active span's `trace_id`/`span_id` (when an OpenTelemetry SDK
 * traces) and the call's `runId`/`callId` (when a call scope is entered), unless the line has its own.
 */
function correlation(): Record<string, unknown> {
  const scope = callScope.getStore();
  const fields = traceFields();
  if (!scope) return fields;
  return { ...fields, callId: scope.callId, ...(scope.runId !== undefined ? { runId: scope.runId } : {}) };
}

const LEVEL_NAMES: Record<number, string> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warn",
  50: "error",
  60: "fatal",
};

function prettyLine(json: string): string {
  const { level, msg, server, ...rest } = JSON.parse(json) as Record<string, unknown>;
  const extras = Object.entries(rest)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  const name = (LEVEL_NAMES[level as number] ?? "log").padEnd(5);
  return `${name} ${server ? `[${String(server)}] ` : ""}${String(msg ?? "")}${extras ? ` ${extras}` : ""}\n`;
}
