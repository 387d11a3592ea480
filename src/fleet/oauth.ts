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
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { DEFAULT_LOGIN_TIMEOUT_MS, DEFAULT_OAUTH_CALLBACK_PATH } from "../config/defaults.js";
import type { ServerConfig } from "../config/schema.js";
import { SwitchyardError } from "../errors.js";

/** What one server's token file holds. */
interface StoredAuth {
  clientInformation?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  codeVerifier?: string;
  discoveryState?: OAuthDiscoveryState;
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

  constructor(config: ServerConfig, file: string, options: FileOAuthProviderOptions) {
    this.#config = config;
    this.#file = new TokenFile(file);
    this.#options = options;
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

/**
 * The provider a session hands its HTTP transport for `config`, or undefined when the server has no
 * `oauth` section: the SDK's ClientCredentialsProvider for the `client_credentials` grant, else ours,
 * in connect mode (a flow that needs the user only marks the provider `needsLogin`).
 */
export function connectAuthProvider(
  config: ServerConfig,
  serverUrl: string,
): FileOAuthProvider | ClientCredentialsProvider | undefined {
  const oauth = config.oauth;
  if (!oauth) return undefined;
  if (oauth.grant === "client_credentials") {
    return new ClientCredentialsProvider({
      clientId: oauth.clientId!,
      clientSecret: oauth.clientSecret!,
      expectedIssuer: oauth.issuer!,
      clientName: "Switchyard",
      ...(oauth.scopes.length ? { scope: oauth.scopes.join(" ") } : {}),
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
    const scope = config.oauth?.scopes.length ? config.oauth.scopes.join(" ") : undefined;
    const base = { serverUrl, ...(scope ? { scope } : {}) };
    const first = await auth(provider, base).catch((error: unknown) => {
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
