// The `gateway` section (`switchyard serve`) and `gateway.auth` (who may use it; src/gateway/auth.ts): the
// defaults of their keys, the gateway's own numbers that no key sets, and their schemas.

import { z } from "zod";
import { positiveInt, stringArray, stringMap } from "./fields.js";

/** What the gateway offers: `all` (every tool the client may call) or `search` (`search_tools` + `call_tool`). */
export const DEFAULT_GATEWAY_MODE: "all" | "search" = "all";
/** The address `switchyard serve --http` listens on: loopback, so nothing off the machine reaches it. */
export const DEFAULT_GATEWAY_HOST = "127.0.0.1";
/** The path the gateway's Streamable HTTP endpoint answers on. */
export const DEFAULT_GATEWAY_PATH = "/mcp";
/** Largest HTTP request body the gateway reads; a larger one is answered 413. */
export const DEFAULT_GATEWAY_MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * How long a 2026-07-28 call that asked its client for input (elicitation, sampling) is kept after it
 * ended unanswered, for the client's retry to collect its result (the call itself is bounded by its
 * deadline).
 */
export const DEFAULT_GATEWAY_PENDING_KEEP_MS = 60_000;
/**
 * How long a task the gateway passed through to a host (the tasks extension, 2026-07-28) is kept from its
 * creation: its status and result can be fetched until then; a task still running then is cancelled
 * (its server's task too) and dropped, so tasks a host never comes back for do not pile up (fixed).
 */
export const DEFAULT_GATEWAY_TASK_TTL_MS = 60 * 60_000;
/**
 * Tasks one gateway holds for its hosts at most, all identities together: past it the oldest ended one
 * is dropped; when none has ended, the call is bridged (a plain `tools/call`) instead (fixed).
 */
export const DEFAULT_GATEWAY_MAX_TASKS = 1_000;
/**
 * Of those, the tasks one identity holds at most, so that one user's long tasks cannot take every place:
 * past it that user's oldest ended task is dropped; when none has ended, the call is bridged (fixed).
 */
export const DEFAULT_GATEWAY_MAX_TASKS_PER_USER = 100;
/**
 * 2025-11-25 HTTP sessions one gateway keeps at most: a client that never ends its session (no DELETE)
 * must not grow the process without bound; past it the session unused longest is ended (its client gets
 * 404 and starts another). A session costs a server instance and its transport.
 */
export const DEFAULT_GATEWAY_MAX_SESSIONS = 1_000;
/**
 * A 2025-11-25 HTTP session (held here or kept in the store, which `switchyard serve` passes) lives until
 * it has gone unused this long; then its id is answered 404 (the client starts another) and its row is
 * deleted (`gateway.limits.sessionIdleMs`).
 */
export const DEFAULT_GATEWAY_SESSION_IDLE_MS = 24 * 60 * 60_000;
/**
 * How long a sealed 2025-11-25 session id (`gateway.sessionKey`) is accepted after the `initialize` that
 * began it: the id cannot change once the client has it, so a replica that never held the session can
 * tell its age but not its last use; past it the id is 404 and the client starts another
 * (`gateway.limits.sessionMaxAgeMs`).
 */
export const DEFAULT_GATEWAY_SESSION_MAX_AGE_MS = 24 * 60 * 60_000;
/**
 * The shortest `gateway.sessionKey` (and previous key) accepted: the key every replica seals sessions
 * with; `openssl rand -base64 32` makes a good one (fixed).
 */
export const DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS = 32;
/** How often, at most, a session's last use is written to the store (a write per request would cost each call). */
export const DEFAULT_GATEWAY_SESSION_TOUCH_MS = 60_000;
/**
 * How often, at most, the sessions unused past their idle limit are ended and their rows deleted: when a
 * gateway starts, then at the first request after each such interval (fixed).
 */
export const DEFAULT_GATEWAY_SESSION_SWEEP_MS = 10 * 60_000;
/**
 * 2025-11-25 HTTP sessions one identity (a token's user) may have at once, in this process and in the
 * store: past it a new one is answered 429, so one token cannot fill the process or the store
 * (`gateway.limits.sessionsPerUser`).
 */
export const DEFAULT_GATEWAY_SESSIONS_PER_USER = 50;
/**
 * An identity at its session cap whose session unused longest has gone unused this long gets a new one
 * in its place (that one is ended): a client that never ends its sessions (no DELETE, as most do not)
 * does not lock its user out for the whole idle limit (fixed).
 */
export const DEFAULT_GATEWAY_SESSION_RECLAIM_MS = 10 * 60_000;
/**
 * HTTP requests one identity may have open at once — GET streams and requests not yet answered in full
 * (a call's SSE stream): each holds a socket, and one token must not take the process's file descriptors
 * from everyone else; past it a request is answered 429 (`gateway.limits.streamsPerUser`).
 */
export const DEFAULT_GATEWAY_STREAMS_PER_USER = 100;
/** The `Retry-After` of a request refused for its identity's open streams: when a call may have ended (fixed). */
export const DEFAULT_GATEWAY_STREAM_RETRY_AFTER_MS = 5_000;
/**
 * The buckets (seconds) of the gateway's `/metrics` duration histograms: the ones the MCP semantic
 * conventions advise for `mcp.client.operation.duration` and `mcp.server.operation.duration`, from a
 * 10 ms read to a five-minute tool call (fixed).
 */
export const DEFAULT_GATEWAY_DURATION_BUCKETS_S: readonly number[] = Object.freeze([
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
]);

// --- The gateway's authentication (`gateway.auth`) ----------------------------------------------

/** The claim of an OAuth access token that names its user (`gateway.auth.oauth.userClaim`). */
export const DEFAULT_GATEWAY_USER_CLAIM = "sub";
/**
 * The claim of an OAuth access token that lists its user's roles (`gateway.auth.oauth.rolesClaim`; a
 * dotted path reaches into an object, as Keycloak's `realm_access.roles`).
 */
export const DEFAULT_GATEWAY_ROLES_CLAIM = "roles";
/**
 * How far the gateway's clock and the issuer's may disagree when a token's `exp` and `nbf` are checked:
 * enough for machines kept by NTP, small beside the minutes an access token lives.
 */
export const DEFAULT_GATEWAY_CLOCK_SKEW_MS = 30_000;
/** How long reading the issuer's metadata or its JWKS may take before a token is answered 503 (fixed). */
export const DEFAULT_GATEWAY_JWKS_TIMEOUT_MS = 5_000;
/**
 * The shortest bearer token `gateway.auth.tokens` accepts: a token is a password every client holds, and
 * a short one can be guessed; `openssl rand -hex 32` makes a good one (fixed).
 */
export const DEFAULT_GATEWAY_TOKEN_MIN_CHARS = 16;

// --- gateway.auth: who may use the gateway (src/gateway/auth.ts) -------------------------------

const httpUrl = (what: string) =>
  z
    .string({ error: `expected ${what} (an http(s) URL)` })
    .refine((url) => /^https?:\/\//i.test(url) && URL.canParse(url), {
      error: `expected ${what} (an http(s) URL)`,
    });
const gatewayTokenSchema = z.strictObject(
  {
    token: z
      .string({ error: "expected the token (a string, best read from an environment variable)" })
      .min(
        DEFAULT_GATEWAY_TOKEN_MIN_CHARS,
        `expected a token of at least ${DEFAULT_GATEWAY_TOKEN_MIN_CHARS} characters (make one with: openssl rand -hex 32)`,
      )
      .regex(
        /^[A-Za-z0-9\-._~+/]+=*$/,
        "expected a token of letters, digits and -._~+/ (a bearer token's characters)",
      ),
    user: z.string({ error: "expected the user's id (a string)" }).min(1, "expected a non-empty user id"),
    roles: stringArray.optional(),
    attributes: stringMap.optional(),
  },
  { error: 'expected { "token": secret, "user": id, "roles"?: [names], "attributes"?: { key: value } }' },
);
/** The gateway's OAuth 2.1 resource-server mode: access tokens are JWTs of `issuer`, checked against its JWKS. */
const gatewayOAuthSchema = z.strictObject(
  {
    issuer: httpUrl("the authorization server's issuer"),
    jwksUri: httpUrl("the issuer's JWKS URL").optional(),
    resource: httpUrl("the gateway's URL as clients reach it").optional(),
    audience: z.string({ error: "expected the audience tokens must name (a string)" }).min(1).optional(),
    scopes: stringArray.optional(),
    userClaim: z.string({ error: "expected a claim name" }).min(1).optional(),
    rolesClaim: z
      .string({ error: "expected a claim name (a dotted path reaches into an object)" })
      .min(1)
      .optional(),
    attributeClaims: stringArray.optional(),
    algorithms: stringArray.optional(),
  },
  { error: 'expected { "issuer": URL, "jwksUri"?, "resource"?, "audience"?, "scopes"?, "rolesClaim"?, … }' },
);
export const gatewayAuthSchema = z
  .strictObject(
    {
      tokens: z.array(gatewayTokenSchema, { error: "expected a list of tokens" }).optional(),
      oauth: gatewayOAuthSchema.optional(),
    },
    { error: 'expected { "tokens": [ { "token", "user", "roles" } ] } or { "oauth": { "issuer", … } }' },
  )
  .refine((auth) => auth.tokens !== undefined || auth.oauth !== undefined, {
    error: 'expected "tokens" (bearer tokens) or "oauth" (an issuer\'s access tokens)',
  })
  .refine((auth) => new Set(auth.tokens?.map((entry) => entry.token)).size === (auth.tokens?.length ?? 0), {
    error: "expected each token once: two entries have the same token",
  });
/** A `gateway.auth` section: static bearer tokens, an OAuth issuer's access tokens, or both. */
export type GatewayAuthSection = z.infer<typeof gatewayAuthSchema>;

/** `gateway.limits`: what one gateway holds, and what one identity may take of it. */
export const gatewayLimitsSchema = z.strictObject(
  {
    maxSessions: positiveInt.optional(),
    sessionsPerUser: positiveInt.optional(),
    streamsPerUser: positiveInt.optional(),
    sessionIdleMs: positiveInt.optional(),
    sessionMaxAgeMs: positiveInt.optional(),
  },
  {
    error:
      'expected { "maxSessions"?, "sessionsPerUser"?, "streamsPerUser"?, "sessionIdleMs"?, "sessionMaxAgeMs"? }',
  },
);
export type GatewayLimitsSection = z.infer<typeof gatewayLimitsSchema>;

/** A key 2025-11-25 sessions are sealed with (best read from an environment variable). */
const sessionKey = z
  .string({ error: "expected the session key (a string, best read from an environment variable)" })
  .min(
    DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS,
    `expected a session key of at least ${DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS} characters (make one with: openssl rand -base64 32)`,
  );

/**
 * `gateway.operations`: `/healthz`, `/readyz` and `/metrics`. `open: true` answers them without
 * `gateway.auth`, for a scraper or a probe on the same machine: `switchyard serve` refuses it on an
 * address that is not loopback.
 */
export const gatewayOperationsSchema = z.strictObject(
  { open: z.boolean({ error: "expected true or false" }).optional() },
  { error: 'expected { "open"?: true | false }' },
);
export type GatewayOperationsSection = z.infer<typeof gatewayOperationsSchema>;

/** The `gateway` section: how `switchyard serve` serves the fleet. */
export const gatewaySchema = z
  .strictObject(
    {
      mode: z.enum(["all", "search"], { error: 'expected "all" or "search"' }).optional(),
      host: z.string({ error: "expected the address to listen on" }).min(1, "expected an address").optional(),
      auth: gatewayAuthSchema.optional(),
      allowedHosts: stringArray.optional(),
      allowedOrigins: stringArray.optional(),
      limits: gatewayLimitsSchema.optional(),
      sessionKey: sessionKey.optional(),
      previousSessionKeys: z.array(sessionKey, { error: "expected a list of session keys" }).optional(),
      operations: gatewayOperationsSchema.optional(),
    },
    {
      error:
        'expected { "mode"?, "host"?, "auth"?, "allowedHosts"?, "allowedOrigins"?, "limits"?, "sessionKey"?, "previousSessionKeys"?, "operations"? }',
    },
  )
  .refine((gateway) => gateway.previousSessionKeys === undefined || gateway.sessionKey !== undefined, {
    error:
      'expected "sessionKey" beside "previousSessionKeys" (previous keys only open sessions; new ones are sealed with sessionKey)',
    path: ["previousSessionKeys"],
  })
  .refine((gateway) => gateway.limits?.sessionMaxAgeMs === undefined || gateway.sessionKey !== undefined, {
    error:
      'expected "sessionKey" beside "limits.sessionMaxAgeMs" (it bounds sealed sessions only; sessions kept by one process end after limits.sessionIdleMs idle)',
    path: ["limits", "sessionMaxAgeMs"],
  });
export type GatewaySection = z.infer<typeof gatewaySchema>;
