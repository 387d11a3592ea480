// What a session says when its server would not start or connect, or went away: the reason, with the
// process's exit and last lines of output when it has a process.
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config/schema.js";
import { readableFailure } from "../errors.js";
import { isConnectionLoss } from "./call-errors.js";
import { isPythonCommand, PYTHON_TIMEOUT_HINT } from "./python-server.js";
import type { ServerProcess } from "./server-process.js";

/** "what (exit code 3); stderr: last | lines", from what the process (if any) left behind. */
export function describeExit(process: ServerProcess | undefined, what: string): string {
  const exit = process?.describeExit();
  const tail = process?.outputTail.slice(-5) ?? [];
  return `${what}${exit ? ` (${exit})` : ""}${tail.length ? `; stderr: ${tail.join(" | ")}` : ""}`;
}

/**
 * Why a connect attempt failed, for its error message: no answer within `connectTimeoutMs`, an exit
 * during the handshake, or the failure's own reason (with where an HTTP server is, when it does not
 * say) — each with what the process left behind.
 */
export function describeOpenFailure(
  error: unknown,
  { config, process }: { config: ServerConfig; process: ServerProcess | undefined },
): string {
  const timedOut =
    (error instanceof Error && error.name === "TimeoutError") ||
    (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout);
  if (timedOut) {
    const said = describeExit(
      process,
      `no answer to initialize within ${config.connectTimeoutMs} ms (connectTimeoutMs)`,
    );
    const python = config.transport === "stdio" && isPythonCommand(config.command ?? "");
    return python ? `${said}; ${PYTHON_TIMEOUT_HINT}` : said;
  }
  if (process?.exitInfo && isLost(error))
    return describeExit(process, "the server exited during the handshake");
  const reason = readableFailure(error);
  if (config.transport === "stdio" || reason.includes("://")) return describeExit(process, reason);
  const url = URL.canParse(config.url ?? "") ? new URL(config.url!) : undefined;
  return describeExit(process, url ? `${url.origin}${url.pathname}: ${reason}` : reason);
}

/** The connection went away, as the SDK says it or as our own transport does before it knows. */
function isLost(error: unknown): boolean {
  return isConnectionLoss(error) || (error instanceof Error && /not running|closed/i.test(error.message));
}
