// What an MCP registry's v0.1 API answers (docs/reference/api/openapi.yaml of modelcontextprotocol/registry):
// `ServerResponse` — a server.json (`server`) and the registry's own `_meta` — in pages with a cursor.
// Only the fields `search` and `add` read are typed; the rest is kept as it came.

/** An input a server's package or remote takes: an environment variable, a header, an argument's value. */
export interface RegistryInput {
  name?: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  /** Fixed by the publisher; `{id}` in it stands for a value the user gives. */
  value?: string;
  default?: string;
}

/** A command-line argument: `positional` (its `value`, or a `valueHint` to fill) or `named` (`--flag value`). */
export interface RegistryArgument extends RegistryInput {
  type?: "positional" | "named";
  valueHint?: string;
  isRepeated?: boolean;
}

/** How a package or a remote is spoken to. */
export interface RegistryTransport {
  type: string;
  url?: string;
  headers?: RegistryInput[];
}

/** One package a server can run from: npm, PyPI, OCI (others, such as nuget and mcpb, are not run here). */
export interface RegistryPackage {
  registryType: string;
  registryBaseUrl?: string;
  identifier: string;
  version?: string;
  runtimeHint?: string;
  transport?: RegistryTransport;
  runtimeArguments?: RegistryArgument[];
  packageArguments?: RegistryArgument[];
  environmentVariables?: RegistryInput[];
}

/** A server reached at a URL: `streamable-http` or `sse`. */
export interface RegistryRemote {
  type: string;
  url: string;
  headers?: RegistryInput[];
}

/** A server.json: the server's name (reverse DNS, one slash), version, and how it runs. */
export interface RegistryServer {
  name: string;
  version: string;
  description?: string;
  title?: string;
  packages?: RegistryPackage[];
  remotes?: RegistryRemote[];
}

/** One version of a server as a registry serves it, with the registry's metadata (`_meta`). */
export interface ServerResponse {
  server: RegistryServer;
  _meta?: Record<string, unknown>;
}

/** The key of the official registry's metadata in `_meta`. */
export const OFFICIAL_META = "io.modelcontextprotocol.registry/official";

/** A registry's own metadata of a version: status, when it was published, whether it is the latest. */
export interface OfficialMeta {
  status?: string;
  publishedAt?: string;
  updatedAt?: string;
  isLatest?: boolean;
}

/** The official metadata of a response, when the registry gave it. */
export function officialMeta(response: ServerResponse): OfficialMeta | undefined {
  const meta = response._meta?.[OFFICIAL_META];
  return typeof meta === "object" && meta !== null ? (meta as OfficialMeta) : undefined;
}
