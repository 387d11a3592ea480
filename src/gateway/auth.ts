// Who is calling the gateway: a bearer token from the config's list (compared in constant time), or an
// OAuth 2.1 access token (a JWT checked against the issuer's JWKS: signature, `iss`, `aud` = the
// gateway's resource URL, expiry) — turned into the Identity the policy decides for. The token is
// read here and nowhere else: nothing in the request's headers reaches an upstream server.
import { createHash, timingSafeEqual } from "node:crypto";
import type { createRemoteJWKSet, JWTPayload } from "jose";
import {
  DEFAULT_GATEWAY_CLOCK_SKEW_MS,
  DEFAULT_GATEWAY_JWKS_TIMEOUT_MS,
  DEFAULT_GATEWAY_ROLES_CLAIM,
  DEFAULT_GATEWAY_USER_CLAIM,
} from "../config/defaults.js";
import type { GatewayAuthSection } from "../config/schema.js";
import { messageOf } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";

/** `jose`, loaded with the first JWT to check: a gateway without OAuth never loads it. */
let joseModule: Promise<typeof import("jose")> | undefined;
const loadJose = () => {
  joseModule ??= import("jose");
  return joseModule;
};

/** The path of the gateway's OAuth protected resource metadata (RFC 9728). */
export const PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** Claims that say what the token is, not who holds it: never copied into the identity's attributes. */
const REGISTERED_CLAIMS = new Set(["iss", "sub", "aud", "exp", "nbf", "iat", "jti", "azp", "client_id"]);

export interface GatewayAuthOptions {
  /**
   * The gateway's own URL as clients reach it (`http://127.0.0.1:8080/mcp`): the audience a token must
   * name, unless `oauth.audience` says otherwise, and the `resource` of its metadata (`oauth.resource`
   * wins over it). A function is asked at each request (the port is known once listening).
   */
  resourceUrl: string | (() => string);
}

/** What the gateway's HTTP side asks before serving a request. */
export interface GatewayAuth {
  /** The caller's identity, or the response to send instead (401 with `WWW-Authenticate`, 403, 503). */
  authenticate(request: Request): Promise<Identity | Response>;
  /**
   * The protected resource metadata when the request asks for it (`GET
   * /.well-known/oauth-protected-resource[/<path>]`, OAuth mode), else undefined.
   */
  metadata(request: Request): Response | undefined;
}

/**
 * The gateway's authentication for a `gateway.auth` section: `tokens` (static bearer tokens, each with
 * its user, roles and attributes), `oauth` (resource-server mode), or both (a static token is tried
 * first). The JWKS is fetched on the first token and kept by `jose` (refetched when a token names a key
 * it does not have, at most every 30 s).
 */
export function createGatewayAuth(section: GatewayAuthSection, options: GatewayAuthOptions): GatewayAuth {
  const tokens = (section.tokens ?? []).map((entry) => ({
    digest: digestOf(entry.token),
    identity: {
      user: entry.user,
      roles: entry.roles ?? [],
      ...(entry.attributes ? { attributes: entry.attributes } : {}),
    } satisfies Identity,
  }));
  const oauth = section.oauth;
  const resourceOf = () =>
    oauth?.resource ??
    (typeof options.resourceUrl === "function" ? options.resourceUrl() : options.resourceUrl);
  const pathOf = () => new URL(resourceOf()).pathname.replace(/\/$/, "");
  // At the resource's own origin, never one taken from the request's Host header.
  const metadataUrl = () => `${new URL(resourceOf()).origin}${PROTECTED_RESOURCE_METADATA_PATH}${pathOf()}`;
  const keys = oauth ? lazyJwks(oauth) : undefined;

  const challenge = (status: 401 | 403, error?: string, description?: string) => {
    const params = [
      ...(oauth ? [`resource_metadata="${metadataUrl()}"`] : ['realm="switchyard"']),
      ...(error ? [`error="${error}"`] : []),
      ...(description ? [`error_description="${description.replaceAll('"', "'")}"`] : []),
      ...(oauth?.scopes?.length ? [`scope="${oauth.scopes.join(" ")}"`] : []),
    ];
    return Response.json(
      { error: error ?? "invalid_request", error_description: description ?? "a bearer token is required" },
      { status, headers: { "WWW-Authenticate": `Bearer ${params.join(", ")}` } },
    );
  };

  return {
    metadata(request) {
      if (!oauth || request.method !== "GET") return undefined;
      const path = new URL(request.url).pathname;
      if (
        path !== PROTECTED_RESOURCE_METADATA_PATH &&
        path !== `${PROTECTED_RESOURCE_METADATA_PATH}${pathOf()}`
      )
        return undefined;
      return Response.json({
        resource: resourceOf(),
        authorization_servers: [oauth.issuer],
        bearer_methods_supported: ["header"],
        ...(oauth.scopes?.length ? { scopes_supported: oauth.scopes } : {}),
        resource_name: "Switchyard gateway",
      });
    },

    async authenticate(request) {
      const header = request.headers.get("authorization");
      if (!header) return challenge(401);
      const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
      if (!match) return challenge(401, "invalid_request", "expected Authorization: Bearer <token>");
      const token = match[1]!;
      if (tokens.length > 0) {
        const digest = digestOf(token);
        // Every entry is compared, whatever matched, so the time taken says nothing about which one did.
        let found: Identity | undefined;
        for (const entry of tokens) if (timingSafeEqual(entry.digest, digest)) found ??= entry.identity;
        if (found) return found;
      }
      if (!oauth || !keys)
        return challenge(401, "invalid_token", "the token is not one this gateway accepts");
      let claims: JWTPayload;
      const jose = await loadJose();
      try {
        ({ payload: claims } = await jose.jwtVerify(token, await keys(), {
          issuer: oauth.issuer,
          audience: oauth.audience ?? resourceOf(),
          requiredClaims: ["exp"],
          clockTolerance: DEFAULT_GATEWAY_CLOCK_SKEW_MS / 1_000,
          ...(oauth.algorithms ? { algorithms: oauth.algorithms } : {}),
        }));
      } catch (error) {
        if (isIssuerUnreachable(error, jose.errors))
          return Response.json(
            {
              error: "temporarily_unavailable",
              error_description: `cannot check the token: the issuer's keys (${oauth.jwksUri ?? oauth.issuer}) could not be read: ${messageOf(error)}`,
            },
            { status: 503 },
          );
        return challenge(401, "invalid_token", tokenProblem(error, jose.errors));
      }
      const granted = typeof claims.scope === "string" ? claims.scope.split(" ") : [];
      const missing = (oauth.scopes ?? []).filter((scope) => !granted.includes(scope));
      if (missing.length > 0)
        return challenge(403, "insufficient_scope", `the token lacks the scope ${missing.join(" ")}`);
      const user = claimAt(claims, oauth.userClaim ?? DEFAULT_GATEWAY_USER_CLAIM);
      if (typeof user !== "string" || user === "")
        return challenge(
          401,
          "invalid_token",
          `the token has no ${oauth.userClaim ?? DEFAULT_GATEWAY_USER_CLAIM} claim naming its user`,
        );
      return {
        user,
        roles: rolesOf(claimAt(claims, oauth.rolesClaim ?? DEFAULT_GATEWAY_ROLES_CLAIM)),
        attributes: attributesOf(claims, oauth.attributeClaims),
      };
    },
  };
}

/** The issuer's key set, found on first use: `jwksUri`, else the `jwks_uri` of the issuer's metadata. */
function lazyJwks(oauth: NonNullable<GatewayAuthSection["oauth"]>) {
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  return () => {
    keys ??= (async () => {
      const uri = oauth.jwksUri ?? (await discoverJwksUri(oauth.issuer));
      const { createRemoteJWKSet } = await loadJose();
      return createRemoteJWKSet(new URL(uri), { timeoutDuration: DEFAULT_GATEWAY_JWKS_TIMEOUT_MS });
    })();
    // A failed discovery is tried again on the next token, not remembered.
    keys.catch(() => {
      keys = undefined;
    });
    return keys;
  };
}

/** RFC 8414 metadata, then OpenID Connect discovery, each at the issuer's path-aware well-known URL. */
async function discoverJwksUri(issuer: string): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, "");
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
  const problems: string[] = [];
  for (const candidate of candidates) {
    try {
      const response = await fetch(candidate, {
        signal: AbortSignal.timeout(DEFAULT_GATEWAY_JWKS_TIMEOUT_MS),
      });
      if (!response.ok) {
        problems.push(`${candidate}: HTTP ${response.status}`);
        continue;
      }
      const metadata = (await response.json()) as { jwks_uri?: unknown };
      if (typeof metadata.jwks_uri === "string") return metadata.jwks_uri;
      problems.push(`${candidate}: no jwks_uri`);
    } catch (error) {
      problems.push(`${candidate}: ${messageOf(error)}`);
    }
  }
  throw new JwksDiscoveryError(
    `no JWKS found for the issuer ${issuer} (${problems.join("; ")}); set gateway.auth.oauth.jwksUri`,
  );
}

class JwksDiscoveryError extends Error {}

type JoseErrors = typeof import("jose").errors;

function isIssuerUnreachable(error: unknown, joseErrors: JoseErrors): boolean {
  return (
    error instanceof JwksDiscoveryError ||
    error instanceof joseErrors.JWKSTimeout ||
    error instanceof joseErrors.JWKSInvalid ||
    (error instanceof TypeError && /fetch/i.test(error.message))
  );
}

/** What is wrong with a token, in words a client's developer can act on. */
function tokenProblem(error: unknown, joseErrors: JoseErrors): string {
  if (error instanceof joseErrors.JWTExpired) return "the token has expired";
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return "the token is not for this gateway (its aud claim does not name it)";
    if (error.claim === "iss") return "the token was not issued by the gateway's issuer";
    return `the token's ${error.claim} claim is not valid: ${error.reason}`;
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return "the token is signed with a key the issuer does not publish";
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "the token's signature is not valid";
  if (error instanceof joseErrors.JOSEError) return `the token is not a valid JWT (${error.code})`;
  return `the token could not be checked: ${messageOf(error)}`;
}

function digestOf(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** A claim by name, or by a dotted path into nested objects (`realm_access.roles`). */
function claimAt(claims: JWTPayload, path: string): unknown {
  if (path in claims) return claims[path];
  let value: unknown = claims;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Roles from a list of strings or a space-separated string (as `scope` is written). */
function rolesOf(value: unknown): string[] {
  if (typeof value === "string") return value.split(" ").filter(Boolean);
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return [];
}

/** The token's other facts (strings, numbers, booleans), or only the claims `names` lists. */
function attributesOf(claims: JWTPayload, names: readonly string[] | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  const wanted = names ?? Object.keys(claims).filter((name) => !REGISTERED_CLAIMS.has(name));
  for (const name of wanted) {
    const value = claimAt(claims, name);
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      attributes[name] = String(value);
  }
  return attributes;
}
