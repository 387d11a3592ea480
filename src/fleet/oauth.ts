// OAuth 2.1 for `url` servers, on the SDK's auth support: our OAuthClientProvider keeps each server's
// client registration, tokens, PKCE verifier and discovery state in a file of its own (mode 0600); the
// SDK does discovery, dynamic client registration, PKCE, the code exchange and refreshes.
//
// A connect never opens a browser: when the flow needs the user, the provider only notes it, and the
// session reports the server as `needs-auth`. `authorizeServer` (behind `switchyard login`) runs the
// authorization-code flow with a loopback redirect listener.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import {
  auth,
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import {
  DEFAULT_LOGIN_TIMEOUT_MS,
  DEFAULT_OAUTH_CALLBACK_PATH,
  DEFAULT_OAUTH_PROBE_TIMEOUT_MS,
  DEFAULT_OAUTH_SIGNING_ALGORITHM,
} from "../config/defaults.js";
import type { ServerConfig } from "../config/schema.js";
import { SwitchyardError } from "../errors.js";

/** What one server's token file holds. */
interface StoredAuth {
  clientInformation?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  codeVerifier?: string;
  discoveryState?: OAuthDiscoveryState;
  /** The scope a 403 `insufficient_scope` asked for during a session: the next login asks for it too. */
  stepUpScope?: string;
}

/**
 * The folder of the token files: `$XDG_CONFIG_HOME/switchyard/auth`, else `~/.config/switchyard/auth`.
 */
export function oauthStoreFolder(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : path.join(os.homedir(), ".config");
  return path.join(base, "switchyard", "auth");
}

/** The token file of the server at `serverUrl`: `<folder>/<sha-256 of the URL, 32 hex digits>.json`. */
export function oauthStorePath(serverUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  const hash = createHash("sha256").update(serverUrl).digest("hex").slice(0, 32);
  return path.join(oauthStoreFolder(env), `${hash}.json`);
}

/** A file store of one server's OAuth state, written with mode 0600 in a 0700 folder. */
class TokenFile {
  readonly path: string;
  constructor(file: string) {
    this.path = file;
  }
  read(): StoredAuth {
    try {
      return JSON.parse(readFileSync(this.path, "utf8")) as StoredAuth;
    } catch {
      return {};
    }
  }
  update(change: (stored: StoredAuth) => void): void {
    const stored = this.read();
    change(stored);
    mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
    writeFileSync(this.path, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    chmodSync(this.path, 0o600);
  }
  exists(): boolean {
    return existsSync(this.path);
  }
  remove(): boolean {
    try {
      rmSync(this.path);
      return true;
    } catch {
      return false;
    }
  }
}

export interface FileOAuthProviderOptions {
  /** Where the user agent comes back; on a connect, the configured port's (or a placeholder). */
  redirectUrl: string;
  /**
   * Called with the authorization URL when the flow needs the user. Absent (a connect): nothing is
   * opened or registered, and the provider notes that a login is needed.
   */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
}

/** Our OAuthClientProvider: one server's OAuth state, in its token file. */
export class FileOAuthProvider implements OAuthClientProvider {
  readonly #config: ServerConfig;
  readonly #file: TokenFile;
  readonly #options: FileOAuthProviderOptions;
  /** Discovery made on a connect with no store yet: kept in memory, so a connect creates no file. */
  #discovery: OAuthDiscoveryState | undefined;
  /** True once the flow asked for the user (a connect that cannot go on without a login). */
  needsLogin = false;
  /** A client ID metadata document (`oauth.clientMetadataUrl`): the client_id where the server supports it. */
  readonly clientMetadataUrl?: string;

  constructor(config: ServerConfig, file: string, options: FileOAuthProviderOptions) {
    this.#config = config;
    this.#file = new TokenFile(file);
    this.#options = options;
    if (config.oauth?.clientMetadataUrl) this.clientMetadataUrl = config.oauth.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.#options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { clientSecret, scopes } = this.#config.oauth ?? { scopes: [] };
    return {
      client_name: "Switchyard",
      redirect_uris: [this.#options.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: clientSecret ? "client_secret_post" : "none",
      ...(scopes.length ? { scope: scopes.join(" ") } : {}),
    };
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    const { clientId, clientSecret } = this.#config.oauth ?? {};
    if (clientId) return { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) };
    const stored = this.#file.read().clientInformation;
    if (!this.#interactive) {
      // A connect never registers a client: with no registration, only a login can go on.
      if (stored) return stored;
      this.needsLogin = true;
      throw new Error("no client registration: a login is needed");
    }
    // A registration for another redirect URI (a login on another free port) cannot be used again.
    const uris = (stored as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    if (stored && Array.isArray(uris) && !uris.includes(this.#options.redirectUrl)) return undefined;
    return stored;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.#file.update((stored) => {
      stored.clientInformation = info;
    });
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#file.read().tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.#file.update((stored) => {
      stored.tokens = tokens;
      // A login (not a refresh, which cannot widen scope) has now asked for the step-up scope.
      if (this.#interactive) delete stored.stepUpScope;
    });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.needsLogin = true;
    await this.#options.onAuthorizationUrl?.(url);
  }

  saveCodeVerifier(verifier: string): void {
    if (!this.#interactive) return;
    this.#file.update((stored) => {
      stored.codeVerifier = verifier;
    });
  }

  codeVerifier(): string {
    const verifier = this.#file.read().codeVerifier;
    if (!verifier) throw new Error("no PKCE code verifier saved: start the login again");
    return verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
    if (!this.#interactive && !this.#file.exists()) return;
    this.#file.update((stored) => {
      stored.discoveryState = state;
    });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#file.read().discoveryState ?? this.#discovery;
  }

  /**
   * Note the scope a 403 `insufficient_scope` challenge asked for during a session (step-up): a
   * connect cannot ask the user, so the next login asks for it.
   */
  noteRequiredScope(scope: string): void {
    if (!this.#file.exists()) return;
    this.#file.update((stored) => {
      stored.stepUpScope = computeScopeUnion(stored.stepUpScope, scope) ?? scope;
    });
  }

  /** The scope noted by {@link noteRequiredScope}, if any. */
  requiredScope(): string | undefined {
    return this.#file.read().stepUpScope;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (!this.#file.exists()) return;
    this.#file.update((stored) => {
      if (scope === "all" || scope === "client") delete stored.clientInformation;
      if (scope === "all" || scope === "tokens") delete stored.tokens;
      if (scope === "all" || scope === "verifier") delete stored.codeVerifier;
      if (scope === "all" || scope === "discovery") delete stored.discoveryState;
    });
    if (scope === "all" || scope === "discovery") this.#discovery = undefined;
  }

  get #interactive(): boolean {
    return this.#options.onAuthorizationUrl !== undefined;
  }
}

/** The loopback redirect URI for `port`. */
function redirectUrlFor(port: number): string {
  return `http://127.0.0.1:${port}${DEFAULT_OAUTH_CALLBACK_PATH}`;
}

/** A provider of a machine grant: no user, no login, no token file. */
type MachineProvider = ClientCredentialsProvider | PrivateKeyJwtProvider | CrossAppAccessProvider;

/**
 * The provider a session hands its HTTP transport for `config`, or undefined when the server has no
 * `oauth` section: the SDK's machine-to-machine providers for `client_credentials` (a secret:
 * ClientCredentialsProvider; a private key: PrivateKeyJwtProvider) and `cross_app_access`
 * (CrossAppAccessProvider, the identity provider's ID token exchanged for a JWT authorization grant);
 * else ours, in connect mode (a flow that needs the user only marks the provider `needsLogin`).
 */
export function connectAuthProvider(
  config: ServerConfig,
  serverUrl: string,
): FileOAuthProvider | MachineProvider | undefined {
  const oauth = config.oauth;
  if (!oauth) return undefined;
  const common = {
    clientId: oauth.clientId!,
    clientName: "Switchyard",
    ...(oauth.issuer ? { expectedIssuer: oauth.issuer } : {}),
  };
  const scope = oauth.scopes.length ? { scope: oauth.scopes.join(" ") } : {};
  if (oauth.grant === "client_credentials") {
    return oauth.privateKey
      ? new PrivateKeyJwtProvider({
          ...common,
          ...scope,
          privateKey: oauth.privateKey,
          algorithm: oauth.signingAlgorithm ?? DEFAULT_OAUTH_SIGNING_ALGORITHM,
        })
      : new ClientCredentialsProvider({ ...common, ...scope, clientSecret: oauth.clientSecret! });
  }
  if (oauth.grant === "cross_app_access") {
    const idp = oauth.idp!;
    return new CrossAppAccessProvider({
      ...common,
      clientSecret: oauth.clientSecret!,
      assertion: async (target) => {
        const wanted = computeScopeUnion(target.scope, oauth.scopes.join(" ") || undefined);
        const grant = await requestJwtAuthorizationGrant({
          tokenEndpoint: idp.tokenEndpoint,
          audience: target.authorizationServerUrl,
          resource: target.resourceUrl,
          idToken: idp.idToken,
          clientId: idp.clientId,
          ...(idp.clientSecret ? { clientSecret: idp.clientSecret } : {}),
          ...(wanted ? { scope: wanted } : {}),
          fetchFn: target.fetchFn,
        });
        return grant.jwtAuthGrant;
      },
    });
  }
  // Without a configured port the redirect URI is only known at login; a placeholder serves here.
  return new FileOAuthProvider(config, oauthStorePath(serverUrl), {
    redirectUrl: redirectUrlFor(oauth.redirectPort ?? 0),
  });
}

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

/** A loopback listener that takes one redirect on the callback path. */
async function listenForRedirect(port: number) {
  let deliver: ((params: URLSearchParams) => void) | undefined;
  const arrived = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== DEFAULT_OAUTH_CALLBACK_PATH) {
      response.writeHead(404).end();
      return;
    }
    const ok = url.searchParams.has("code");
    response.writeHead(ok ? 200 : 400, { "content-type": "text/plain; charset=utf-8" });
    response.end(ok ? "Switchyard: logged in. You may close this window.\n" : "Switchyard: login failed.\n");
    deliver?.(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    port: bound,
    async callback(timeoutMs: number, signal?: AbortSignal): Promise<URLSearchParams> {
      const limit = AbortSignal.timeout(timeoutMs);
      const stop = signal ? AbortSignal.any([signal, limit]) : limit;
      return await new Promise<URLSearchParams>((resolve, reject) => {
        const onAbort = () =>
          reject(
            signal?.aborted
              ? new SwitchyardError("CANCELLED", "login cancelled")
              : new SwitchyardError("TIMEOUT", `no redirect from the browser within ${timeoutMs} ms`),
          );
        if (stop.aborted) onAbort();
        stop.addEventListener("abort", onAbort, { once: true });
        arrived.then(resolve, reject).finally(() => stop.removeEventListener("abort", onAbort));
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Open `url` in the user's browser: `$BROWSER`, else `xdg-open` when it is on the PATH. Resolves with
 * whether one was started (it is not waited for).
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const onPath = (name: string) =>
    (env.PATH ?? "")
      .split(path.delimiter)
      .some((folder) => folder !== "" && existsSync(path.join(folder, name)));
  const browser = env.BROWSER ? env.BROWSER : onPath("xdg-open") ? "xdg-open" : undefined;
  if (!browser) return false;
  try {
    const child = spawn(browser, [url], { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
