// How big a server's text may be before the trust scans call it a flood (`oversized`), by severity. No
// config key sets them: they sit far above what honest servers send (the clean sets of bench/security
// stay below `low`), so a finding means someone is filling the model's context on purpose.

/** Thresholds of one measure, by severity: a value at or above `high` is a high finding, and so on. */
export interface SizeThresholds {
  low: number;
  medium: number;
  high: number;
}

/**
 * Characters of one text (a description, a server's `instructions`, a prompt) and of a tool's texts
 * together. The longest honest tool descriptions run to a few thousand characters; 48,000 (about 12,000
 * tokens, in every request that offers the tool) has no use but crowding out the rest of the context.
 */
export const DEFAULT_TRUST_TEXT_CHARS: Readonly<SizeThresholds> = Object.freeze({
  low: 8_000,
  medium: 20_000,
  high: 48_000,
});

/**
 * Values of one `enum` in a tool's schemas. Honest lists stay in the hundreds (countries ~250, time zones
 * ~600); thousands of values are a flood.
 */
export const DEFAULT_TRUST_ENUM_VALUES: Readonly<SizeThresholds> = Object.freeze({
  low: 1_000,
  medium: 2_000,
  high: 5_000,
});

/** Schema nodes (objects) in a tool's input and output schemas together. */
export const DEFAULT_TRUST_SCHEMA_NODES: Readonly<SizeThresholds> = Object.freeze({
  low: 1_000,
  medium: 5_000,
  high: 20_000,
});

/** Tools one server lists: a flood drowns the other servers' tools in the router and the catalog. */
export const DEFAULT_TRUST_SERVER_TOOLS: Readonly<SizeThresholds> = Object.freeze({
  low: 1_000,
  medium: 2_000,
  high: 10_000,
});

/**
 * Characters of one tool result before it is called oversized: results are never blocked, and the
 * context layer cuts them to the result budget, so a result is at most `medium` (`high` is never reached).
 */
export const DEFAULT_TRUST_RESULT_CHARS: Readonly<SizeThresholds> = Object.freeze({
  low: 200_000,
  medium: 1_000_000,
  high: Number.POSITIVE_INFINITY,
});

/** How deep the scans walk into a schema: deeper nodes are not read (and a schema that deep is a flood). */
export const DEFAULT_TRUST_SCHEMA_DEPTH = 32;
