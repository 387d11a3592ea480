// A client of one MCP registry's v0.1 API on Node's fetch: a page of servers (search, cursor, limit),
// a server's versions, one version. Every failure is a REGISTRY_ERROR that names the registry and the
// server, and says what to do.

import { DEFAULT_REGISTRY_TIMEOUT_MS, SwitchyardError } from "../../internal.js";
import type { ServerResponse } from "./api.js";

/** Options of {@link RegistryClient}. */
export interface RegistryClientOptions {
  /** The registry's root (`https://registry.modelcontextprotocol.io`); `/v0.1/…` is added to it. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` (a private registry). */
  token?: string;
  /** Where the token comes from, for a message about a refused one (`registries.list[acme].token`). */
  tokenFrom?: string;
  /** One request's deadline; default DEFAULT_REGISTRY_TIMEOUT_MS. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** One page of a search: its servers and the cursor of the next page (absent: the last). */
export interface ServerPage {
  servers: ServerResponse[];
  nextCursor?: string;
}

/** The v0.1 API of one registry. */
export class RegistryClient {
  readonly url: string;
  readonly #options: RegistryClientOptions;

  constructor(options: RegistryClientOptions) {
    this.url = options.url.replace(/\/+$/, "");
    this.#options = options;
  }

  /**
   * One page of servers whose name matches `search` (`GET /v0.1/servers`), the latest version of each.
   * @throws SwitchyardError `REGISTRY_ERROR` when the registry cannot be reached or refuses.
   */
  async page(query: { search?: string; cursor?: string; limit?: number } = {}): Promise<ServerPage> {
    const params = new URLSearchParams({ version: "latest" });
    if (query.search) params.set("search", query.search);
    if (query.cursor) params.set("cursor", query.cursor);
    if (query.limit !== undefined) params.set("limit", String(query.limit));
    const body = (await this.#get(`/v0.1/servers?${params}`)) as {
      servers?: ServerResponse[];
      metadata?: { nextCursor?: string | null };
    };
    const next = body.metadata?.nextCursor;
    return { servers: (body.servers ?? []).filter(isResponse), ...(next ? { nextCursor: next } : {}) };
  }

  /**
   * One version of a server (`latest` by default): `GET /v0.1/servers/{name}/versions/{version}`.
   * @throws SwitchyardError `REGISTRY_ERROR` for a server the registry does not have (with what to do),
   *   a version it does not have (with the versions it has), or a registry that cannot be reached.
   */
  async version(name: string, version = "latest"): Promise<ServerResponse> {
    const found = await this.#get(
      `/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`,
      {
        notFound: true,
      },
    );
    if (found !== undefined && isResponse(found)) return found;
    const versions = version === "latest" ? undefined : await this.versions(name);
    if (!versions)
      throw new SwitchyardError(
        "REGISTRY_ERROR",
        `no server named "${name}" in the registry ${this.url}: the name is its full name (such as io.github.owner/server); find it with switchyard search <words>`,
        { status: 404 },
      );
    const known = versions.map((entry) => entry.server.version);
    throw new SwitchyardError(
      "REGISTRY_ERROR",
      `server ${name} has no version ${version} in the registry ${this.url}; its versions are ${known.join(", ") || "none"}: add one of them (${name}@<version>), or ${name} alone for the latest`,
      { status: 404 },
    );
  }

  /**
   * Every version of a server, newest first (`GET /v0.1/servers/{name}/versions`); undefined when the
   * registry has no server of that name.
   */
  async versions(name: string): Promise<ServerResponse[] | undefined> {
    const body = (await this.#get(`/v0.1/servers/${encodeURIComponent(name)}/versions`, {
      notFound: true,
    })) as { servers?: ServerResponse[] } | undefined;
    return body === undefined ? undefined : (body.servers ?? []).filter(isResponse);
  }

  /** GET a path as JSON; a 404 is `undefined` when `notFound` is set. */
  async #get(pathAndQuery: string, options: { notFound?: boolean } = {}): Promise<unknown> {
    const { token, tokenFrom, signal } = this.#options;
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_REGISTRY_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const url = `${this.url}${pathAndQuery}`;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (cause) {
      const why = timeout.aborted
        ? `no answer in ${timeoutMs} ms`
        : ((cause as { cause?: { code?: string } }).cause?.code ?? (cause as Error).message);
      throw new SwitchyardError(
        "REGISTRY_ERROR",
        `the registry ${this.url} cannot be reached (${why}): check the URL and the network, or name another with --registry <url>`,
        { cause },
      );
    }
    if (response.status === 404 && options.notFound) {
      await response.body?.cancel();
      return undefined;
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      const fix = tokenFrom
        ? `check the token ${tokenFrom} gives`
        : `list it in the config's "registries.list" with a "token": "\${ENV_VAR}"`;
      throw new SwitchyardError(
        "REGISTRY_ERROR",
        `the registry ${this.url} refused the request (HTTP ${response.status}${token ? "" : ", no token sent"}): ${fix}`,
        { status: response.status },
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new SwitchyardError(
        "REGISTRY_ERROR",
        `the registry ${this.url} answered HTTP ${response.status} to GET ${pathAndQuery}: try again later, or name another with --registry <url>`,
        { status: response.status },
      );
    }
    try {
      return await response.json();
    } catch (cause) {
      throw new SwitchyardError(
        "REGISTRY_ERROR",
        `the registry ${this.url} answered GET ${pathAndQuery} with something that is not JSON: is ${this.url} an MCP registry (v0.1 API)?`,
        { cause },
      );
    }
  }
}

/** Whether a value has the shape of a `ServerResponse` (a server with a name and a version). */
function isResponse(value: unknown): value is ServerResponse {
  const server = (value as ServerResponse | undefined)?.server;
  return typeof server?.name === "string" && typeof server.version === "string";
}
