// One server entry (`mcpServers.<name>`): the defaults of its keys, the entry's schema as written, and
// `ServerConfig`, the entry resolved (resolve-server.ts fills it in). Its `oauth` key has a file of its
// own (oauth.ts); the numbers of a connection that no key sets are in ../defaults/connection.ts.

import { z } from "zod";
import {
  quotedList,
  TRANSPORT_KINDS,
  TRANSPORT_TYPES,
  type TransportKind,
  VERSION_NEGOTIATION_MODES,
  type VersionNegotiationMode,
} from "../vocabulary.js";
import { type ServerCacheConfig, serverCacheSchema } from "./cache.js";
import { nonNegativeInt, positiveInt, stringArray, stringMap } from "./fields.js";
import { type OAuthConfig, serverOAuthSchema } from "./oauth.js";
import { type ServerSource, serverSourceSchema } from "./registries.js";

/** Deadline of one tool call when a server sets no `timeoutMs`. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** How long a server may take from spawn/request to a finished handshake (`connectTimeoutMs`). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Calls in flight to one server (`maxConcurrency`); more wait in its queue. */
export const DEFAULT_MAX_CONCURRENCY = 8;
/** Calls waiting for a slot on one server (`maxQueue`) before more are refused with `QUEUE_FULL`. */
export const DEFAULT_MAX_QUEUE = 256;
/**
 * Whether connect leaves a server unstarted while its catalog is cached (`lazy`): off, every server
 * starts at connect.
 */
export const DEFAULT_LAZY_START = false;
/**
 * The most of a server's `instructions` the model is given (`instructions: { maxTokens }`): enough for
 * how its tools fit together, not a manual (the largest in the registry run to 68,669 characters).
 */
export const DEFAULT_INSTRUCTIONS_MAX_TOKENS = 1_000;

/**
 * The adaptive limit of calls in flight to one server, which applies unless `maxConcurrency` fixes a
 * number (`concurrency.min` … `concurrency.max`, starting at `concurrency.initial` =
 * {@link DEFAULT_MAX_CONCURRENCY}): it grows while the server's latency stays near its observed minimum
 * and shrinks when it rises (calls/adaptive-limit.ts).
 */
export const DEFAULT_CONCURRENCY_MIN_CALLS = 1;
/** The most calls in flight the adaptive limit may allow one server (`concurrency.max`). */
export const DEFAULT_CONCURRENCY_MAX_CALLS = 64;
/**
 * How far above a tool's lowest latency a call may take and still count as unloaded
 * (`concurrency.tolerance`, × the minimum): the knee of a server that slows down under load.
 */
export const DEFAULT_CONCURRENCY_TOLERANCE_RATIO = 1.25;
/**
 * Latency within this much of a tool's minimum counts as unloaded whatever the ratio
 * (`concurrency.slackMs`): below a few ms, the differences are the client's and the pipe's.
 */
export const DEFAULT_CONCURRENCY_SLACK_MS = 5;
/** The `concurrency` section when a server sets none (and no fixed `maxConcurrency`). */
export const DEFAULT_CONCURRENCY: Readonly<{
  min: number;
  max: number;
  initial: number;
  tolerance: number;
  slackMs: number;
}> = Object.freeze({
  min: DEFAULT_CONCURRENCY_MIN_CALLS,
  max: DEFAULT_CONCURRENCY_MAX_CALLS,
  initial: DEFAULT_MAX_CONCURRENCY,
  tolerance: DEFAULT_CONCURRENCY_TOLERANCE_RATIO,
  slackMs: DEFAULT_CONCURRENCY_SLACK_MS,
});
/**
 * Largest answer accepted from a server (`maxResultBytes`, in bytes), counted while it streams: one
 * stdout line (stdio); one HTTP body, or the whole SSE answer to one request; one event of a lasting
 * SSE stream. A larger one is cut and fails its call with `RESULT_TOO_LARGE`.
 */
export const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;

/** Retries of one call after a failure that is safe to retry (`retry.maxRetries`). */
export const DEFAULT_MAX_RETRIES = 2;
/** First retry delay (`retry.backoffMs`); it doubles each time, with full jitter. */
export const DEFAULT_RETRY_BACKOFF_MS = 100;
/** The `retry` section when a server sets none. */
export const DEFAULT_RETRY: Readonly<{ maxRetries: number; backoffMs: number }> = Object.freeze({
  maxRetries: DEFAULT_MAX_RETRIES,
  backoffMs: DEFAULT_RETRY_BACKOFF_MS,
});
/** Longest wait between two tries of one call, whatever the backoff. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 2_000;

/** How often a server is pinged (`health.intervalMs`); 0: never. */
export const DEFAULT_HEALTH_INTERVAL_MS = 0;
/** How long a health ping, or the circuit breaker's probe ping, may take (`health.timeoutMs`). */
export const DEFAULT_PING_TIMEOUT_MS = 5_000;
/**
 * Pings in a row (health checks and the circuit breaker's probes) that a server with a process leaves
 * unanswered before it is restarted like a crashed one (`health.maxFailures`); 0: never.
 */
export const DEFAULT_HEALTH_MAX_FAILURES = 3;
/** The `health` section when a server sets none. */
export const DEFAULT_HEALTH: Readonly<{ intervalMs: number; timeoutMs: number; maxFailures: number }> =
  Object.freeze({
    intervalMs: DEFAULT_HEALTH_INTERVAL_MS,
    timeoutMs: DEFAULT_PING_TIMEOUT_MS,
    maxFailures: DEFAULT_HEALTH_MAX_FAILURES,
  });

/** Restarts in a row of a server that was lost (`restart.maxRestarts`) before it is left `failed`. */
export const DEFAULT_MAX_RESTARTS = 3;
/** Wait before the first restart (`restart.backoffMs`); it doubles with each restart in a row. */
export const DEFAULT_RESTART_BACKOFF_MS = 500;
/** The `restart` section when a server sets none. */
export const DEFAULT_RESTART: Readonly<{ maxRestarts: number; backoffMs: number }> = Object.freeze({
  maxRestarts: DEFAULT_MAX_RESTARTS,
  backoffMs: DEFAULT_RESTART_BACKOFF_MS,
});
/** A server that stayed up this long after a restart starts its count of restarts in a row again. */
export const DEFAULT_RESTART_STABLE_AFTER_MS = 60_000;

/** Failures in a row of a server (`circuitBreaker.failureThreshold`) that open its circuit breaker. */
export const DEFAULT_BREAKER_FAILURE_THRESHOLD = 5;
/** How long an open breaker refuses calls (`circuitBreaker.cooldownMs`) before a probe ping. */
export const DEFAULT_BREAKER_COOLDOWN_MS = 30_000;
/** The `circuitBreaker` section when a server sets none. */
export const DEFAULT_CIRCUIT_BREAKER: Readonly<{ failureThreshold: number; cooldownMs: number }> =
  Object.freeze({
    failureThreshold: DEFAULT_BREAKER_FAILURE_THRESHOLD,
    cooldownMs: DEFAULT_BREAKER_COOLDOWN_MS,
  });

/**
 * `versionNegotiation`: probe for the 2026-07-28 revision with `server/discover`, falling back to
 * `initialize`. Measured on stdio and HTTP servers old and new: no connect-time cost we could see (the
 * probe runs in place, no extra process, for a server that answers it within
 * {@link DEFAULT_STDIO_PROBE_WAIT_MS}), and SDK v2 servers get the stateless revision.
 */
export const DEFAULT_VERSION_NEGOTIATION: VersionNegotiationMode = "auto";

const versionNegotiation = z.union(
  [
    z.enum(VERSION_NEGOTIATION_MODES),
    z.strictObject({ pin: z.string({ error: "expected a protocol version string" }) }),
  ],
  {
    error: `expected ${VERSION_NEGOTIATION_MODES.map((mode) => `"${mode}"`).join(", ")} or { "pin": "<protocol version>" }`,
  },
);

/** The keys Switchyard understands on one server entry; anything else is warned about and ignored. */
export const serverEntrySchema = z.object({
  command: z
    .string({ error: "expected a string (the executable to start)" })
    .min(1, "expected a non-empty command")
    .optional(),
  args: stringArray.optional(),
  env: stringMap.optional(),
  cwd: z.string({ error: "expected a string (a folder)" }).optional(),
  url: z
    .string({ error: "expected an http(s) URL" })
    .refine((url) => /^https?:\/\//i.test(url) && URL.canParse(url.replaceAll("{{port}}", "1")), {
      error: "expected an http(s) URL",
    })
    .optional(),
  headers: stringMap.optional(),
  oauth: serverOAuthSchema.optional(),
  transport: z.enum(TRANSPORT_KINDS, { error: `expected ${quotedList(TRANSPORT_KINDS)}` }).optional(),
  type: z.enum(TRANSPORT_TYPES, { error: `expected ${quotedList(TRANSPORT_KINDS)}` }).optional(),
  namespace: z
    .union([z.string().min(1), z.literal(false)], {
      error: "expected a non-empty string, or false for no prefix",
    })
    .optional(),
  tools: z
    .strictObject(
      { allow: stringArray.optional(), deny: stringArray.optional() },
      { error: 'expected { "allow"?: [globs], "deny"?: [globs] }' },
    )
    .optional(),
  descriptions: stringMap.optional(),
  /**
   * The server's tools (own names or globs) that keep their catalog name when another server's tool
   * would get the same one (`namespace: false`, a shared namespace); without it such a name goes to no one.
   */
  owns: stringArray.optional(),
  /** Tags for policy rules (`policy.rules[n].tags`): for all the server's tools, or by tool glob. */
  tags: z
    .union([stringArray, z.record(z.string(), stringArray)], {
      error: 'expected a list of tags, or { "<tool glob>": [tags] }',
    })
    .optional(),
  timeoutMs: positiveInt.optional(),
  connectTimeoutMs: positiveInt.optional(),
  maxConcurrency: z
    .union([positiveInt, z.literal("auto")], {
      error: 'expected a whole number above 0 (a fixed limit) or "auto" (the adaptive limit)',
    })
    .optional(),
  /** The adaptive limit's bounds and tuning (calls/adaptive-limit.ts); only without a fixed `maxConcurrency`. */
  concurrency: z
    .strictObject(
      {
        min: positiveInt.optional(),
        max: positiveInt.optional(),
        initial: positiveInt.optional(),
        tolerance: z
          .number({ error: "expected a number" })
          .min(1, "expected a ratio of 1 or more, such as 1.5")
          .optional(),
        slackMs: z.number({ error: "expected a number" }).min(0, "expected 0 or more").optional(),
      },
      {
        error:
          'expected { "min"?: calls, "max"?: calls, "initial"?: calls, "tolerance"?: ratio, "slackMs"?: ms }',
      },
    )
    .optional(),
  maxQueue: nonNegativeInt.optional(),
  maxTotalTimeoutMs: positiveInt.optional(),
  maxResultBytes: positiveInt.optional(),
  retry: z
    .strictObject({ maxRetries: nonNegativeInt.optional(), backoffMs: nonNegativeInt.optional() })
    .optional(),
  /** A client-side limit of requests sent to the server: a token bucket per rate, `burst` deep. */
  rateLimit: z
    .strictObject(
      {
        perSecond: z.number({ error: "expected a number" }).positive("expected more than 0").optional(),
        perMinute: z.number({ error: "expected a number" }).positive("expected more than 0").optional(),
        burst: positiveInt.optional(),
      },
      { error: 'expected { "perSecond"?: n, "perMinute"?: n, "burst"?: requests }' },
    )
    .refine((limit) => limit.perSecond !== undefined || limit.perMinute !== undefined, {
      error: 'expected "perSecond" or "perMinute" (or both)',
    })
    .optional(),
  health: z
    .strictObject({
      intervalMs: nonNegativeInt.optional(),
      timeoutMs: positiveInt.optional(),
      maxFailures: nonNegativeInt.optional(),
    })
    .optional(),
  restart: z
    .strictObject({ maxRestarts: nonNegativeInt.optional(), backoffMs: nonNegativeInt.optional() })
    .optional(),
  circuitBreaker: z
    .strictObject({ failureThreshold: positiveInt.optional(), cooldownMs: nonNegativeInt.optional() })
    .optional(),
  versionNegotiation: versionNegotiation.optional(),
  disabled: z.boolean({ error: "expected true or false" }).optional(),
  /** Not started by connect when its catalog is cached: the first call that needs it starts it. */
  lazy: z.boolean({ error: "expected true or false" }).optional(),
  /** What of the server's `instructions` the model gets: `false`, none; `{ maxTokens }`, at most that. */
  instructions: z
    .union([z.literal(false), z.strictObject({ maxTokens: positiveInt })], {
      error: 'expected false or { "maxTokens": n }',
    })
    .optional(),
  /** Keep the results of its read-only tools for a while (calls/result-cache.ts); absent: no cache. */
  cache: serverCacheSchema.optional(),
  /** Servers whose tool of the same own name serves a call while this one is down (calls/fallback.ts). */
  fallback: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
      error: "expected a server's name or a list of them",
    })
    .optional(),
  /** Where `switchyard add` found the server: registry, name, version, package, the registry's metadata. */
  source: serverSourceSchema.optional(),
});

export type ServerEntry = z.infer<typeof serverEntrySchema>;

export type VersionNegotiation = z.infer<typeof versionNegotiation>;

/** A server's limit of calls in flight: fixed, or adaptive within `min` … `max` (calls/adaptive-limit.ts). */
export type ConcurrencyConfig =
  | { mode: "fixed"; limit: number }
  | { mode: "adaptive"; min: number; max: number; initial: number; tolerance: number; slackMs: number };

/** One server, resolved: defaults filled, paths absolute, transport chosen. */
export interface ServerConfig {
  name: string;
  /** `http` falls back to `sse` unless the transport was forced. */
  transport: TransportKind;
  transportForced: boolean;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Whether the entry sets `cwd` (else it is the config's folder): only a given one resolves a policy's relative paths. */
  cwdGiven?: boolean;
  url?: string;
  headers: Record<string, string>;
  /** OAuth 2.1 for a `url` server (the `oauth` key); absent: no authorization flow. */
  oauth?: OAuthConfig;
  namespace: string | false;
  allow: string[];
  deny: string[];
  descriptions: Record<string, string>;
  /** Tool globs whose names this server keeps when another server's tools want them (`owns`). */
  owns: string[];
  /** Tags for policy rules, by tool glob (`"*"`: every tool of the server). */
  tags?: Record<string, string[]>;
  timeoutMs: number;
  connectTimeoutMs: number;
  /** The most calls in flight: the fixed limit, or the adaptive limit's `max`. */
  maxConcurrency: number;
  /** How the limit of calls in flight is set: a fixed number (`maxConcurrency: n`) or adaptive. */
  concurrency: ConcurrencyConfig;
  /** Calls waiting for a slot before more are refused with `QUEUE_FULL`. */
  maxQueue: number;
  /** With progress notifications, how far a call's deadline may be pushed back; absent: not at all. */
  maxTotalTimeoutMs?: number;
  /** Largest answer accepted from the server, on any transport; a larger one fails its call with `RESULT_TOO_LARGE`. */
  maxResultBytes: number;
  retry: { maxRetries: number; backoffMs: number };
  /** Requests sent at most `perSecond` / `perMinute`, `burst` at once (default 1); absent: no limit. */
  rateLimit?: { perSecond?: number | undefined; perMinute?: number | undefined; burst?: number | undefined };
  /**
   * Periodic `ping`; `intervalMs` 0 turns it off. `maxFailures` pings in a row left unanswered restart a
   * server with a process (0: never).
   */
  health: { intervalMs: number; timeoutMs: number; maxFailures: number };
  restart: { maxRestarts: number; backoffMs: number };
  circuitBreaker: { failureThreshold: number; cooldownMs: number };
  versionNegotiation: VersionNegotiation;
  disabled: boolean;
  /** Not started by connect while its catalog is cached (fleet/catalog-cache.ts); the first use starts it. */
  lazy: boolean;
  /** The most tokens of its `instructions` the model is given; 0: none (`instructions: false`). */
  instructionsMaxTokens: number;
  /** The result cache of its read-only tools (`cache`); absent: none, and no cost. */
  cache?: ServerCacheConfig;
  /** Servers (in order) that serve this one's tool calls while it is down; absent: none. */
  fallback?: string[];
  /** The registry entry `switchyard add` wrote it from (`source`); absent: written by hand. */
  source?: ServerSource;
}
