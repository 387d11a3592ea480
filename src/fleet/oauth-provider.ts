// Our OAuthClientProvider, on the SDK's auth support: each server's client registration, tokens, PKCE
// verifier and discovery state in its token file (oauth-token-file.ts); the SDK does discovery,
// dynamic client registration, PKCE, the code exchange and refreshes.
//
// A connect never opens a browser: when the flow needs the user, the provider only notes it, and the
// session reports the server as `needs-auth`. `authorizeServer` (oauth-login.ts, behind `switchyard
// login`) runs the authorization-code flow with a loopback redirect listener.
import {
  computeScopeUnion,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config/schema.js";
import { TokenFile } from "./oauth-token-file.js";

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
