// Plans (src/plan): a plan's own `timeoutMs` and `concurrency` override these; no config key sets them.

/** How long a whole plan may run when it sets no `timeoutMs`. */
export const DEFAULT_PLAN_TIMEOUT_MS = 120_000;
/**
 * Steps of one plan that may run at once when it sets no `concurrency` (ready steps beyond it wait their
 * turn): as many as a server's bulkhead admits (`DEFAULT_MAX_CONCURRENCY`), so a plan alone never
 * queues there.
 */
export const DEFAULT_PLAN_CONCURRENCY = 8;
