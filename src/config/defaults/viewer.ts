// The trace viewer (`switchyard ui`, src/viewer): set by its flags or fixed, never by a config key.

/** The address `switchyard ui` listens on (loopback only, unless `--host` says otherwise). */
export const DEFAULT_VIEWER_HOST = "127.0.0.1";
/** The port `switchyard ui` listens on: 0, any free port (`--port`). */
export const DEFAULT_VIEWER_PORT = 0;
/** How often the viewer's server looks at the store for new runs, steps, calls and audit rows, while a page listens. */
export const DEFAULT_VIEWER_POLL_INTERVAL_MS = 500;
/** Runs the viewer reads for its list, its filters and its servers view (the newest). */
export const DEFAULT_VIEWER_RUNS_SCANNED = 200;
/** Audit rows the viewer's audit view shows (the newest), and reads to tell whose each run was. */
export const DEFAULT_VIEWER_AUDIT_ROWS = 2_000;
