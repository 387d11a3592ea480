import { z } from "zod";
import { DEFAULT_GATEWAY_TOKEN_MIN_CHARS } from "./defaults.js";
import {
  OAUTH_GRANTS,
  type OAuthGrant,
  quotedList,
  ROUTING_MODES,
  STRATEGY_NAMES,
  TRANSPORT_KINDS,
  TRANSPORT_TYPES,
  type TransportKind,
  VERSION_NEGOTIATION_MODES,
} from "./vocabulary.js";

// The defaults once lived here; they are in defaults.ts now, re-exported for the old import path.
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENCY,
} from "./defaults.js";
export type { TransportKind } from "./vocabulary.js";

const stringArray = z.custom<string[]>(
  (value) => Array.isArray(value) && value.every((item) => typeof item === "string"),
  { error: "expected an array of strings" },
);
const stringMap = z.custom<Record<string, string>>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === "string"),
  { error: "expected an object of string values" },
);
const positiveInt = z
  .number({ error: "expected a number" })
  .int("expected a whole number")
  .positive("expected a number above 0");
/** A share of the model's context window: above 0, at most 1. */
const windowShare = z
  .number({ error: "expected a share of the window, such as 0.8" })
  .gt(0, "expected a share of the window above 0, such as 0.8")
  .max(1, "expected a share of the window of at most 1, such as 0.8");
const nonNegativeInt = z
  .number({ error: "expected a number" })
  .int("expected a whole number")
  .min(0, "expected 0 or more");

/** Whether a string compiles as a regular expression. */
function isRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, "iu");
    return true;
  } catch {
    return false;
  }
}

/** A list of regular expressions (compiled case-insensitive, Unicode); the error names the bad ones. */
const regExpList = stringArray.refine((list) => list.every(isRegExp), {
  error: (issue) =>
    `expected regular expressions; not valid: ${(issue.input as string[])
      .filter((pattern) => !isRegExp(pattern))
      .map((pattern) => JSON.stringify(pattern))
      .join(", ")}`,
});

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
  oauth: z
    .strictObject(
      {
        grant: z.enum(OAUTH_GRANTS, { error: `expected ${quotedList(OAUTH_GRANTS)}` }).optional(),
        clientId: z.string().min(1).optional(),
        clientSecret: z.string().min(1).optional(),
        scopes: stringArray.optional(),
        redirectPort: z.number().int().min(1).max(65535).optional(),
        issuer: z.string().url().optional(),
        clientMetadataUrl: z
          .string()
          .url()
          .refine((url) => /^https:\/\/[^/]+\/./i.test(url), {
            error: "expected the https URL of a client ID metadata document (with a path)",
          })
          .optional(),
        privateKey: z.string({ error: "expected a PEM private key (a string)" }).min(1).optional(),
        signingAlgorithm: z
          .string({ error: 'expected a JWS algorithm, such as "RS256" or "ES256"' })
          .optional(),
        idp: z
          .strictObject(
            {
              tokenEndpoint: z.string().url(),
              clientId: z.string().min(1),
              clientSecret: z.string().min(1).optional(),
              idToken: z.string().min(1),
            },
            {
              error:
                'expected { "tokenEndpoint": URL, "clientId", "clientSecret"?, "idToken" } (the enterprise identity provider)',
            },
          )
          .optional(),
      },
      {
        error:
          'expected { "clientId"?, "clientSecret"?, "scopes"?: [strings], "redirectPort"?: port, "issuer"?: URL, "grant"?: "authorization_code" | "client_credentials" | "cross_app_access", "clientMetadataUrl"?, "privateKey"?, "signingAlgorithm"?, "idp"? }',
      },
    )
    .optional(),
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
  health: z
    .strictObject({ intervalMs: nonNegativeInt.optional(), timeoutMs: positiveInt.optional() })
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
});

export type ServerEntry = z.infer<typeof serverEntrySchema>;

export const modelSchema = z.strictObject({
  baseURL: z.string().optional(),
  apiKey: z.string().optional(),
  name: z.string().optional(),
  /** Sampling temperature sent with each request; absent: the server's default. */
  temperature: z.number({ error: "expected a number" }).min(0).max(2).optional(),
  /** How long one model request may take, retries excluded. */
  timeoutMs: positiveInt.optional(),
  /** Retries after a 429, a 5xx or a dropped connection. */
  maxRetries: nonNegativeInt.optional(),
  /** The model's context window in tokens; absent: known for common model names (context/tokens.ts). */
  contextWindow: positiveInt.optional(),
});

export const agentSchema = z.strictObject({
  /** The agent's system prompt; absent: the built-in one. */
  systemPrompt: z.string({ error: "expected the system prompt as a string" }).optional(),
  maxSteps: positiveInt.optional(),
  maxIdenticalCalls: positiveInt.optional(),
  parallelToolCalls: z.boolean().optional(),
  /** The fallback nudge: `false` turns it off; an object tunes it (agent/nudge.ts). */
  nudge: z
    .union(
      [
        z.boolean(),
        z.strictObject({
          minScore: z.number({ error: "expected a number" }).positive("expected a number above 0").optional(),
          /** Regular expressions (case-insensitive) of questions that need a tool, e.g. "天气|weather". */
          patterns: regExpList.optional(),
          message: z.string({ error: "expected the reminder as a string" }).optional(),
        }),
      ],
      { error: 'expected true, false or { "minScore", "patterns", "message" }' },
    )
    .optional(),
  /** How each request is kept within the model's window (context/active.ts); defaults in defaults.ts. */
  context: z
    .strictObject(
      {
        compactAt: windowShare.optional(),
        compactTo: windowShare.optional(),
        keepRounds: positiveInt.optional(),
        handles: z.boolean({ error: "expected true or false" }).optional(),
        collapseRepeats: z.boolean({ error: "expected true or false" }).optional(),
        summarizer: z.enum(["extractive", "model"], { error: 'expected "extractive" or "model"' }).optional(),
      },
      {
        error:
          'expected { "compactAt"?, "compactTo"?: shares of the window, "keepRounds"?, "handles"?, "collapseRepeats"?, "summarizer"?: "extractive" | "model" }',
      },
    )
    .optional(),
});

export const routingSchema = z.strictObject({
  mode: z.enum(ROUTING_MODES, { error: `expected ${quotedList(ROUTING_MODES)}` }).optional(),
  searchAbove: nonNegativeInt.optional(),
  searchResults: positiveInt.optional(),
  topK: positiveInt.optional(),
  offerAllUpTo: nonNegativeInt.optional(),
  pinned: stringArray.optional(),
  strategy: z.enum(STRATEGY_NAMES, { error: `expected ${quotedList(STRATEGY_NAMES)}` }).optional(),
  embeddings: z
    .strictObject({
      baseURL: z.string({ error: "expected the API root URL, e.g. http://127.0.0.1:11434/v1" }),
      model: z.string({ error: "expected the embedding model's name" }),
      apiKey: z.string().optional(),
    })
    .optional(),
});

/**
 * Where run records, sessions and the audit log are kept: `{ path }` a SQLite file, `{ url }` a
 * PostgreSQL database (`postgres://…`); `false`: the CLI records nothing.
 */
export const storeSchema = z.union(
  [
    z.literal(false),
    z.strictObject({
      path: z
        .string({ error: "expected the SQLite file's path" })
        .min(1, "expected a non-empty path")
        .optional(),
      url: z
        .string({ error: 'expected a PostgreSQL URL, such as "postgres://user@host/db"' })
        .refine((url) => /^postgres(ql)?:\/\//i.test(url) && URL.canParse(url), {
          error: 'expected a PostgreSQL URL, such as "postgres://user@host/db"',
        })
        .optional(),
    }),
  ],
  {
    error:
      'expected { "path": file } (SQLite), { "url": "postgres://…" } (PostgreSQL) or false (record nothing)',
  },
);

/** A resolved `store` section: a path made absolute, or a URL; `false` turns recording off. */
export type StoreSection = { path?: string | undefined; url?: string | undefined } | false;

/** Who the CLI and a Switchyard's calls are for when nobody says (`identity`; see calls/policy.ts). */
export const identitySchema = z.strictObject(
  {
    user: z.string({ error: "expected the user's id (a string)" }).min(1, "expected a non-empty user id"),
    roles: stringArray.optional(),
    attributes: stringMap.optional(),
  },
  { error: 'expected { "user": id, "roles"?: [names], "attributes"?: { key: value } }' },
);

const scalar = z.union([z.string(), z.number(), z.boolean()]);
/** A condition on one argument of a call: all the keys given must hold (`not: true` turns it round). */
const argumentConstraintSchema = z.strictObject(
  {
    under: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
    in: z.array(scalar, { error: "expected a list of strings, numbers or booleans" }).optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    pattern: z.string().refine(isUnicodeRegExp, { error: "expected a regular expression" }).optional(),
    not: z.boolean().optional(),
  },
  {
    error:
      'expected { "under"?: folder(s), "in"?: [values], "min"?, "max"?: numbers, "pattern"?: regex, "not"?: true }',
  },
);
const EFFECTS = ["allow", "deny", "approve"] as const;
/** One policy rule: conditions (all given must hold) and what to do with the calls that meet them. */
export const policyRuleSchema = z.strictObject(
  {
    id: z.string().min(1).optional(),
    effect: z.enum(EFFECTS, { error: 'expected "allow", "deny" or "approve"' }),
    servers: stringArray.optional(),
    tools: stringArray.optional(),
    resources: stringArray.optional(),
    prompts: stringArray.optional(),
    tags: stringArray.optional(),
    users: stringArray.optional(),
    roles: stringArray.optional(),
    attributes: z.record(z.string(), z.union([z.string(), stringArray])).optional(),
    arguments: z.record(z.string(), argumentConstraintSchema).optional(),
    reason: z.string().optional(),
  },
  {
    error:
      'expected { "effect": "allow" | "deny" | "approve", "id"?, "servers"?, "tools"?, "resources"?, "prompts"?, "tags"?, "users"?, "roles"?, "attributes"?, "arguments"?, "reason"? }',
  },
);
export const policySchema = z.strictObject(
  {
    mode: z
      .enum(["first-match", "deny-overrides"], { error: 'expected "first-match" or "deny-overrides"' })
      .optional(),
    default: z.enum(EFFECTS, { error: 'expected "allow", "deny" or "approve"' }).optional(),
    rules: z.array(policyRuleSchema, { error: "expected a list of rules" }).optional(),
  },
  { error: 'expected { "mode"?, "default"?, "rules": [ … ] }' },
);
export type PolicySection = z.infer<typeof policySchema>;
export type PolicyRuleConfig = z.infer<typeof policyRuleSchema>;
export type IdentitySection = z.infer<typeof identitySchema>;

function isUnicodeRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** What is redacted besides the defaults (telemetry/redact.ts): more key names and regular expressions. */
export const redactSchema = z.strictObject(
  {
    keys: stringArray.optional(),
    patterns: regExpList.optional(),
  },
  { error: 'expected { "keys"?: [names], "patterns"?: [regular expressions] }' },
);

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

/** The `gateway` section: how `switchyard serve` serves the fleet. */
export const gatewaySchema = z.strictObject(
  {
    mode: z.enum(["all", "search"], { error: 'expected "all" or "search"' }).optional(),
    host: z.string({ error: "expected the address to listen on" }).min(1, "expected an address").optional(),
    auth: gatewayAuthSchema.optional(),
    allowedHosts: stringArray.optional(),
    allowedOrigins: stringArray.optional(),
  },
  { error: 'expected { "mode"?, "host"?, "auth"?, "allowedHosts"?, "allowedOrigins"? }' },
);
export type GatewaySection = z.infer<typeof gatewaySchema>;

/** The top level of a config file, before server entries are checked one by one. */
/** VS Code's `inputs`: values the config asks the user for, used as `${input:id}`. */
export const inputsSchema = z.array(
  z.object({
    id: z.string({ error: "expected the input's id (a string)" }).min(1, "expected a non-empty id"),
    type: z.string().optional(),
    description: z.string().optional(),
    password: z.boolean({ error: "expected true or false" }).optional(),
    default: z.string({ error: "expected a string" }).optional(),
  }),
  { error: 'expected a list of { "id", "type": "promptString", "description" } inputs' },
);

export const configFileSchema = z.object({
  inputs: inputsSchema.optional(),
  mcpServers: z.record(z.string(), z.unknown(), { error: "expected an object of server entries" }).optional(),
  servers: z.record(z.string(), z.unknown(), { error: "expected an object of server entries" }).optional(),
  model: modelSchema.optional(),
  agent: agentSchema.optional(),
  routing: routingSchema.optional(),
  redact: redactSchema.optional(),
  store: storeSchema.optional(),
  identity: identitySchema.optional(),
  policy: policySchema.optional(),
  gateway: gatewaySchema.optional(),
  roots: z
    .array(z.string().min(1, "expected a non-empty folder path"), {
      error: 'expected a list of folders, such as ["./data"]',
    })
    .optional(),
});

export type VersionNegotiation = z.infer<typeof versionNegotiation>;

/** A server's `oauth` section: no `clientId` means dynamic client registration. */
export interface OAuthConfig {
  grant: OAuthGrant;
  clientId?: string;
  clientSecret?: string;
  scopes: string[];
  redirectPort?: number;
  /** The authorization server's issuer: the client credentials are sent to it only. */
  issuer?: string;
  /** The https URL of this client's client ID metadata document, used where the server supports it. */
  clientMetadataUrl?: string;
  /** `client_credentials` with `private_key_jwt`: the PEM key that signs the client assertion. */
  privateKey?: string;
  /** The JWS algorithm of `privateKey` (`DEFAULT_OAUTH_SIGNING_ALGORITHM`). */
  signingAlgorithm?: string;
  /** `cross_app_access`: the enterprise identity provider whose ID token is exchanged for a grant. */
  idp?: { tokenEndpoint: string; clientId: string; clientSecret?: string; idToken: string };
}

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
  url?: string;
  headers: Record<string, string>;
  /** OAuth 2.1 for a `url` server (the `oauth` key); absent: no authorization flow. */
  oauth?: OAuthConfig;
  namespace: string | false;
  allow: string[];
  deny: string[];
  descriptions: Record<string, string>;
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
  /** Largest answer accepted from a stdio server; a larger one fails its call with `RESULT_TOO_LARGE`. */
  maxResultBytes: number;
  retry: { maxRetries: number; backoffMs: number };
  /** Periodic `ping`; `intervalMs` 0 turns it off. */
  health: { intervalMs: number; timeoutMs: number };
  restart: { maxRestarts: number; backoffMs: number };
  circuitBreaker: { failureThreshold: number; cooldownMs: number };
  versionNegotiation: VersionNegotiation;
  disabled: boolean;
  /** Not started by connect while its catalog is cached (fleet/catalog-cache.ts); the first use starts it. */
  lazy: boolean;
}

/** A value a config placeholder was filled with: the variable (`NAME`, or `input:id`) and the value. */
export interface Substitution {
  variable: string;
  value: string;
  /** An input declared `password: true`. */
  secret?: boolean;
}

/** A whole resolved config: servers in file order plus the optional sections. */
export interface SwitchyardConfig {
  servers: ServerConfig[];
  model?: z.infer<typeof modelSchema>;
  agent?: z.infer<typeof agentSchema>;
  routing?: z.infer<typeof routingSchema>;
  /** More to redact than the defaults: key names and regular expressions (`redact`). */
  redact?: z.infer<typeof redactSchema>;
  /**
   * What `${VAR}`, `${env:VAR}` and `${input:id}` placeholders were filled with (`secret`: an input
   * declared `password: true`), for the redactor to know the secrets among them; absent when none were.
   */
  substitutions?: Substitution[];
  /** Where runs, sessions and the audit log are kept (a `path` is absolute); absent: the default file. */
  store?: StoreSection;
  /** Who calls are for when nobody says (the CLI's `--user`/`--role` win over it). */
  identity?: IdentitySection;
  /** Who may call what (calls/policy.ts); absent: every call is allowed. */
  policy?: PolicySection;
  /** How `switchyard serve` serves the fleet: mode, who may use it (`auth`), accepted Host/Origin names. */
  gateway?: GatewaySection;
  /** Folder that relative paths were resolved against. */
  baseDir: string;
  /** Absolute folders offered to servers as roots (`roots/list`); absent: `baseDir` alone. */
  roots?: string[];
  /** Unknown keys that were ignored, as `path: message` lines. */
  warnings: string[];
}
