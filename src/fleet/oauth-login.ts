// Logging in to a `url` server and out of it: `authorizeServer` (behind `switchyard login`) runs the
// SDK's authorization-code flow with a loopback redirect listener and saves the tokens in the server's
// token file; `forgetAuthorization` deletes that file.
import { auth, computeScopeUnion, extractWWWAuthenticateParams } from "@modelcontextprotocol/client";
import { DEFAULT_LOGIN_TIMEOUT_MS, DEFAULT_OAUTH_PROBE_TIMEOUT_MS } from "../config/defaults.js";
import type { ServerConfig } from "../config/schema.js";
import { SwitchyardError } from "../errors.js";
import { FileOAuthProvider } from "./oauth-provider.js";
import { listenForRedirect, redirectUrlFor } from "./oauth-redirect.js";
import { oauthStorePath, TokenFile } from "./oauth-token-file.js";

export interface AuthorizeOptions {
  /** Called with the authorization URL the user must open (print it, open a browser). */
  onAuthorizationUrl: (url: URL) => void | Promise<void>;
  /** How long to wait for the redirect with the code; default `DEFAULT_LOGIN_TIMEOUT_MS`. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What `authorizeServer` did: `AUTHORIZED` at once (valid or refreshed tokens), or after the redirect. */
export interface AuthorizeResult {
  server: string;
  /** The token file. */
  store: string;
  /** True when the user went through the authorization URL. */
  redirected: boolean;
}

/**
 * Log in to one `url` server: the SDK's authorization-code flow (discovery, registration, PKCE) with
 * a loopback listener on 127.0.0.1 (`oauth.redirectPort` or a free port) for the redirect; the code
 * is exchanged and the tokens saved in the server's token file.
 * @throws SwitchyardError `INVALID_INPUT` (not a `url` server), `TIMEOUT` (no redirect in time),
 *   `AUTH_REQUIRED` (the authorization server refused).
 */
export async function authorizeServer(
  config: ServerConfig,
  options: AuthorizeOptions,
): Promise<AuthorizeResult> {
  const serverUrl = config.url;
  if (!serverUrl || config.command) {
    throw new SwitchyardError(
      "INVALID_INPUT",
      `server ${config.name} is not a remote (url) server: no login`,
      {
        server: config.name,
      },
    );
  }
  const store = oauthStorePath(serverUrl);
  const listener = await listenForRedirect(config.oauth?.redirectPort ?? 0);
  try {
    const provider = new FileOAuthProvider(config, store, {
      redirectUrl: redirectUrlFor(listener.port),
      onAuthorizationUrl: options.onAuthorizationUrl,
    });
    // What the server asks for now (with the saved token, if any): the scope to request (the spec's
    // scope selection: the challenge's, with the configured ones), where its resource metadata lives,
    // and whether this is a step-up (403 insufficient_scope), which a refresh cannot widen.
    const challenge = await readChallenge(config, serverUrl, provider.tokens()?.access_token);
    const noted = provider.requiredScope();
    const stepUp = challenge.stepUp || noted !== undefined;
    const scope = computeScopeUnion(
      config.oauth?.scopes.length ? config.oauth.scopes.join(" ") : undefined,
      challenge.scope,
      noted,
      stepUp ? provider.tokens()?.scope : undefined,
    );
    const base = {
      serverUrl,
      ...(scope ? { scope } : {}),
      ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
    };
    // A login discovers afresh (protected-resource, then authorization-server metadata): the server
    // may have moved to another authorization server since the last one, and the SDK, given the saved
    // discovery, would go back to the old one. At the new one, the SDK sees the saved registration is
    // another issuer's and registers anew (SEP-2352).
    provider.invalidateCredentials("discovery");
    const first = await auth(provider, { ...base, forceReauthorization: stepUp }).catch((error: unknown) => {
      throw refused(config.name, error);
    });
    if (first === "AUTHORIZED") return { server: config.name, store, redirected: false };
    const timeoutMs = options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS;
    const params = await listener.callback(timeoutMs, options.signal);
    const error = params.get("error");
    if (error) {
      throw new SwitchyardError(
        "AUTH_REQUIRED",
        `server ${config.name}: the authorization server refused: ${error}${params.get("error_description") ? ` (${params.get("error_description")})` : ""}`,
        { server: config.name },
      );
    }
    const code = params.get("code");
    if (!code)
      throw new SwitchyardError("AUTH_REQUIRED", `server ${config.name}: the redirect carried no code`);
    const iss = params.get("iss");
    await auth(provider, { ...base, authorizationCode: code, ...(iss ? { iss } : {}) }).catch(
      (failure: unknown) => {
        throw refused(config.name, failure);
      },
    );
    return { server: config.name, store, redirected: true };
  } finally {
    await listener.close();
  }
}

/** Log out of one `url` server: its token file is deleted. Resolves with whether there was one. */
export function forgetAuthorization(config: ServerConfig): boolean {
  if (!config.url) return false;
  return new TokenFile(oauthStorePath(config.url)).remove();
}

/** What a server's `WWW-Authenticate` challenge asks of this client. */
interface Challenge {
  scope?: string;
  resourceMetadataUrl?: URL;
  /** A 403 `insufficient_scope`: the token is valid but too narrow. */
  stepUp: boolean;
}

/**
 * Ask the server once (a JSON-RPC `ping`, with the saved access token when there is one) and read its
 * challenge. Any failure to ask is no challenge: the flow then discovers from the well-known URLs.
 */
async function readChallenge(
  config: ServerConfig,
  serverUrl: string,
  accessToken: string | undefined,
): Promise<Challenge> {
  try {
    const response = await fetch(serverUrl, {
      method: "POST",
      headers: {
        ...config.headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: "switchyard-login-probe", method: "ping" }),
      signal: AbortSignal.timeout(DEFAULT_OAUTH_PROBE_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.status !== 401 && response.status !== 403) return { stepUp: false };
    const { scope, resourceMetadataUrl, error } = extractWWWAuthenticateParams(response);
    return {
      ...(scope ? { scope } : {}),
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
      stepUp: response.status === 403 && error === "insufficient_scope",
    };
  } catch {
    return { stepUp: false };
  }
}

function refused(server: string, error: unknown): SwitchyardError {
  if (error instanceof SwitchyardError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SwitchyardError("AUTH_REQUIRED", `server ${server}: authorization failed: ${message}`, {
    server,
    cause: error,
  });
}
