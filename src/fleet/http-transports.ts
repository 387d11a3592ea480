// How a session reaches a server over HTTP (Streamable HTTP, or legacy SSE): the config's headers and
// OAuth provider on every request, and what the server answered when it refused them.
import {
  extractWWWAuthenticateParams,
  type FetchLike,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config/schema.js";
import { readableFailure, SwitchyardError } from "../errors.js";
import { fetchWithinLimit } from "./answer-limit.js";
import type { FirstAnswer } from "./first-answer.js";
import { connectAuthProvider } from "./oauth-connect.js";
import { FileOAuthProvider } from "./oauth-provider.js";
import { rateLimitOf } from "./retry-after.js";
import { fetchWithIdleStreams, opensLastingStream } from "./stream-fetch.js";

/**
 * The HTTP transports of one session's connect to the server at `url`, and the refusals they met: a
 * 401 or 403 becomes `AUTH_REQUIRED` that says what to do, since the SDK's errors for them carry
 * neither the status nor the challenge reliably.
 */
export class HttpTransports {
  readonly #config: ServerConfig;
  readonly #url: URL;
  /** The first answer to a lasting stream request (Streamable HTTP's server-to-client messages). */
  readonly #streamAnswered: FirstAnswer;
  /** The last HTTP 401/403 the server answered during this connect attempt, if any. */
  #refusal: { status: number; challenge?: string } | undefined;
  /** The OAuth provider of the latest transport (a server with an `oauth` section). */
  #authProvider: ReturnType<typeof connectAuthProvider>;
  /** True when the server needs `switchyard login`: no valid token, and no refresh could get one. */
  needsLogin = false;

  constructor(options: { config: ServerConfig; url: URL; streamAnswered: FirstAnswer }) {
    this.#config = options.config;
    this.#url = options.url;
    this.#streamAnswered = options.streamAnswered;
  }

  /** A new transport of `kind`, with its own OAuth provider; the refusal of an earlier one is forgotten. */
  create(kind: "http" | "sse"): Transport {
    const url = this.#url;
    const headers = this.#config.headers;
    // The streams that stay open for server-to-client messages do not hold the event loop; every
    // answer is read within maxResultBytes.
    const base = fetchWithinLimit(fetchWithIdleStreams(fetch), this.#config.maxResultBytes);
    // The config's headers on every request, under the SDK's own (which already carry them, in lower
    // case): merged by name whatever its case, so that none is sent twice ("Bearer t, Bearer t").
    const withHeaders: FetchLike = (input, init) => {
      const merged = new Headers(headers);
      for (const [name, value] of new Headers(init?.headers)) merged.set(name, value);
      return base(input, { ...init, headers: merged });
    };
    this.#refusal = undefined;
    // Remember a 401/403 and its challenge: the SDK's errors for them carry neither reliably.
    const fetchWithHeaders: FetchLike = async (input, init) => {
      const lasting = kind === "http" && opensLastingStream(input, init);
      const answered = withHeaders(input, init);
      if (lasting) this.#streamAnswered.settle(answered);
      const response = await answered;
      // A request refused for now (429, or 503 with Retry-After) was not processed: say when to come
      // back, which the SDK's error would lose. The handshake's refusals stay connect failures.
      if ((response.status === 429 || response.status === 503) && isCall(init)) {
        const limited = await rateLimitOf(response);
        if (limited) throw limited;
      }
      if (response.status === 401 || response.status === 403) {
        const challenge = response.headers.get("www-authenticate");
        this.#refusal = { status: response.status, ...(challenge ? { challenge } : {}) };
        const { error, scope } = extractWWWAuthenticateParams(response);
        if (error === "insufficient_scope" && scope && this.#authProvider instanceof FileOAuthProvider)
          this.#authProvider.noteRequiredScope(scope);
      } else if (response.ok && this.#authProvider && String(input) === url.href) {
        this.#refusal = undefined; // the provider's token (or refresh) was accepted
      }
      return response;
    };
    this.#authProvider = connectAuthProvider(this.#config, url.href);
    const options = {
      fetch: fetchWithHeaders,
      requestInit: { headers },
      ...(this.#authProvider ? { authProvider: this.#authProvider } : {}),
    };
    return kind === "http"
      ? new StreamableHTTPClientTransport(url, options)
      : new SSEClientTransport(url, options);
  }

  /**
   * The failure to report when the server answered the connect attempt with HTTP 401 or 403:
   * `AUTH_REQUIRED`, naming the server, where it is, the status, its challenge and what to do.
   * Undefined when it did not refuse.
   */
  authFailure(cause: unknown): SwitchyardError | undefined {
    const url = this.#url;
    const refusal = this.#refusal;
    const { name } = this.#config;
    const provider = this.#authProvider;
    const needsLogin = provider instanceof FileOAuthProvider && provider.needsLogin;
    if (provider && (cause instanceof UnauthorizedError || refusal || needsLogin)) {
      const where = `${url.origin}${url.pathname}`;
      if (provider instanceof FileOAuthProvider) {
        // No valid token and no refresh: the flow needs the user, which a connect never asks for.
        this.needsLogin = true;
        return new SwitchyardError(
          "AUTH_REQUIRED",
          `server ${name} at ${where} needs a login: run \`switchyard login ${name}\``,
          { server: name, ...(refusal ? { status: refusal.status } : {}), cause },
        );
      }
      const oauth = this.#config.oauth;
      const check =
        oauth?.grant === "cross_app_access"
          ? 'check "oauth.clientId", "oauth.clientSecret" and "oauth.idp" (its ID token may have expired)'
          : oauth?.privateKey
            ? 'check "oauth.clientId", "oauth.privateKey" and "oauth.signingAlgorithm"'
            : 'check "oauth.clientId" and "oauth.clientSecret"';
      return new SwitchyardError(
        "AUTH_REQUIRED",
        `server ${name} at ${where}: the ${oauth?.grant === "cross_app_access" ? "cross-app access" : "client credentials"} grant failed (${readableFailure(cause)}): ${check}`,
        { server: name, ...(refusal ? { status: refusal.status } : {}), cause },
      );
    }
    if (!refusal) return undefined;
    const { status, challenge } = refusal;
    const where = `${url.origin}${url.pathname}`; // no query: it may hold a key
    const said = status === 401 ? "requires authorization" : "denied access";
    const todo =
      status === 401
        ? `set an Authorization header in the server's "headers", e.g. "Authorization": "Bearer \${TOKEN}" with TOKEN from the environment`
        : `check the credentials in the server's "headers" (e.g. "Authorization": "Bearer \${TOKEN}" with TOKEN from the environment): they must grant access to this server`;
    return new SwitchyardError(
      "AUTH_REQUIRED",
      `server ${name} at ${where} ${said} (HTTP ${status}${challenge ? `; WWW-Authenticate: ${challenge}` : ""}): ${todo}`,
      { server: name, status, ...(challenge ? { challenge } : {}), cause },
    );
  }

  /** The failure to report when Streamable HTTP failed with `http` and then legacy SSE with `sse`. */
  bothFailed(http: unknown, sse: unknown): Error {
    return (
      this.authFailure(sse) ??
      new Error(bothFailedReason(this.#url, readableFailure(http), readableFailure(sse)), { cause: sse })
    );
  }
}

/** True for a POST of requests other than the handshake's (`initialize`, `server/discover`). */
function isCall(init: RequestInit | undefined): boolean {
  const body = init?.method === "POST" ? init.body : undefined;
  return (
    typeof body === "string" &&
    body.includes('"id"') &&
    !/"method":"(initialize|server\/discover)"/.test(body)
  );
}

/** Both HTTP transports failed: one reason when they failed alike, else each. */
function bothFailedReason(url: URL, http: string, sse: string): string {
  const where = `${url.origin}${url.pathname}`;
  if (http === sse || sse.endsWith(http)) return `${where}: ${http} (tried Streamable HTTP and legacy SSE)`;
  return `${where}: Streamable HTTP: ${http}; legacy SSE: ${sse}`;
}
