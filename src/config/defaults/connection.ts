// How a connection to a server is opened, polled and closed: the fleet's fixed numbers, which no config key
// sets (a server entry's own defaults are in ../sections/server.ts).

/**
 * How long a stdio server may leave the `server/discover` probe unanswered (never longer than
 * `connectTimeoutMs`) before its process is stopped and a fresh one is started with a plain
 * `initialize`, with a `connectTimeoutMs` of its own: a server slow to start would otherwise read the
 * probe late, as a request before `initialize`, which many servers do not survive. So the number
 * decides time and revision, never whether a server connects:
 * - a server that ignores the probe pays it once, plus its stop and a second start (restarts reuse the
 *   negotiated version and do not probe);
 * - a server slower than it pays it, its stop (up to {@link DEFAULT_SHUTDOWN_GRACE_MS} more while it
 *   does not read its stdin yet) and a second start; a 2026-07-28 server then gets 2025-11-25 (SDK v2
 *   servers speak both) until a reconnect probes it again; one that speaks only 2026-07-28 needs
 *   `{ pin }`.
 *
 * 2 s is enough for SDK v2 servers started together (nine at once on two cores were ready within
 * 1.5–1.9 s) and keeps what an ignoring server costs low. A pinned revision, and any probe over HTTP,
 * has no fallback: there the probe may take the whole `connectTimeoutMs`.
 */
export const DEFAULT_STDIO_PROBE_WAIT_MS = 2_000;
/**
 * Streamable HTTP: how long connecting waits for the server-to-client stream (the standalone GET, or
 * `subscriptions/listen`) to be answered before the server is ready, so that what a server sends while
 * the first call runs finds the stream open.
 */
export const DEFAULT_STREAM_OPEN_WAIT_MS = 1_000;

/** How long a stdio server gets to exit after its stdin is closed, then again after SIGTERM. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 1_000;
/**
 * Linux: how often the parent links below each running server are looked at (/proc), so that a
 * descendant that left the server's process group is still known once its parent is gone.
 */
export const DEFAULT_DESCENDANT_POLL_MS = 2_000;
/**
 * A tool call run as a task (the tasks extension): how often its status is asked for (`tasks/get`) when
 * the server's task names no `pollInterval`; a status notification from the server wakes it sooner.
 */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1_000;
/** The shortest wait between two `tasks/get` of one task, whatever `pollInterval` the server names. */
export const DEFAULT_TASK_MIN_POLL_INTERVAL_MS = 20;
/** How long the `tasks/cancel` sent for a cancelled or timed-out task call may take. */
export const DEFAULT_TASK_CANCEL_TIMEOUT_MS = 5_000;
/**
 * How often the gateway's task bridge tells a host that cannot follow tasks that a call run as a task
 * still runs (a progress notification on its plain `tools/call`), when nothing else was told meanwhile.
 */
export const DEFAULT_TASK_BRIDGE_PROGRESS_MS = 10_000;
/**
 * How many requests (elicitation, sampling, roots) a server may send the client for each of the
 * client's requests in flight to it; the rest are refused with a JSON-RPC error before any handler
 * sees them, so that one call cannot ask the user, or spend the model, without end.
 */
export const DEFAULT_MAX_SERVER_REQUESTS_PER_CALL = 100;
/**
 * How many `roots/list` requests a server may send in a minute while none of the client's requests is
 * in flight (servers ask for the roots as they start, or when told they changed). Elicitation and
 * sampling with no request in flight are always refused: nothing invited them.
 */
export const DEFAULT_UNINVITED_ROOTS_PER_MINUTE = 10;
