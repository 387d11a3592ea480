import { isSwitchyardError } from "../internal.js";

/** Exit codes of the CLI (CONTRACT.md). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** The `--json` error code of a usage mistake the CLI finds itself (commander's, or a flag it checks). */
export const USAGE_ERROR = "USAGE";
/** The `--json` error code of any other failure that is not a `SwitchyardError`. */
export const FAILED_ERROR = "FAILED";

/** A failure the CLI reports in one line and exits with `exitCode`. */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT_FAILED) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Usage mistakes exit 2; everything else that went wrong exits 1. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (isSwitchyardError(error)) {
    return [
      "CONFIG_INVALID",
      "TOOL_NOT_FOUND",
      "INVALID_ARGUMENTS",
      "MODEL_NOT_CONFIGURED",
      "RESOURCE_NOT_FOUND",
      "RESOURCE_AMBIGUOUS",
      "PROMPT_NOT_FOUND",
    ].includes(error.code)
      ? EXIT_USAGE
      : EXIT_FAILED;
  }
  return EXIT_FAILED;
}

/**
 * The `code` a failure is printed with under `--json` (docs/contract.md): the `SwitchyardError`'s own,
 * else {@link USAGE_ERROR} for what exits 2 and {@link FAILED_ERROR} for the rest.
 */
export function errorCodeOf(error: unknown): string {
  if (isSwitchyardError(error)) return error.code;
  return exitCodeOf(error) === EXIT_USAGE ? USAGE_ERROR : FAILED_ERROR;
}
