// The command line's own numbers (signals, `chat`, `route eval`, `runs`, `audit`): set by its flags or
// fixed, never by a config key.

/** After a signal, how long the CLI's closing may take before it exits anyway (servers die with it). */
export const DEFAULT_CLI_SHUTDOWN_LIMIT_MS = 3_000;
/**
 * After a signal, how long the CLI waits for the command's run to stop (its model request aborted, its
 * calls cancelled) before it closes the servers anyway; within {@link DEFAULT_CLI_SHUTDOWN_LIMIT_MS}.
 */
export const DEFAULT_CLI_CANCEL_WAIT_MS = 1_000;
/** Lines a terminal `chat` keeps in its history (the arrow keys' lines, and its history file). */
export const DEFAULT_CHAT_HISTORY_LINES = 1_000;
/** Tool ids per query written by `route eval --rankings`. */
export const DEFAULT_RANKINGS_LENGTH = 10;

/** Runs (and sessions) `switchyard runs` lists. */
export const DEFAULT_RUNS_LISTED = 20;
/** Audit rows `switchyard audit tail` prints before it follows. */
export const DEFAULT_AUDIT_TAIL_ROWS = 20;
/**
 * The latest audit rows `switchyard runs show` reads for the run's own (decisions, approvals, calls):
 * enough for a run among many recent ones without reading a long log whole.
 */
export const DEFAULT_RUN_AUDIT_SCAN_ROWS = 10_000;
/** How often `switchyard audit tail --follow` looks for new rows. */
export const DEFAULT_AUDIT_FOLLOW_INTERVAL_MS = 500;
