// `registries`: the MCP registries (the v0.1 API) that `switchyard search` and `add` ask — the official
// one unless the config names others — and which servers a team may add from them; and `source`, where a
// server entry that `add` wrote came from.

import { z } from "zod";
import { stringArray } from "./fields.js";

/** The registry `search` and `add` ask when neither `--registry` nor `registries.default` names one. */
export const DEFAULT_REGISTRY_URL = "https://registry.modelcontextprotocol.io";
/** Servers `switchyard search` asks a registry for per page (`limit`); `--limit` changes it. */
export const DEFAULT_REGISTRY_PAGE_SIZE = 30;
/** How long one request to a registry may take before `search` or `add` gives up on it. */
export const DEFAULT_REGISTRY_TIMEOUT_MS = 15_000;

const httpUrl = z
  .string({ error: "expected an http(s) URL" })
  .refine((url) => /^https?:\/\//i.test(url) && URL.canParse(url), { error: "expected an http(s) URL" });

/** One registry besides the official one: a name to pick it by, its URL, its bearer token. */
export const registrySchema = z.strictObject(
  {
    name: z.string({ error: "expected the registry's name" }).min(1, "expected a non-empty name"),
    url: httpUrl,
    /** Sent as `Authorization: Bearer …`; write it as `${ENV_VAR}`, never the token itself. */
    token: z.string({ error: `expected a string, such as "\${REGISTRY_TOKEN}"` }).optional(),
  },
  { error: `expected { "name", "url", "token"?: "\${ENV_VAR}" }` },
);

/** The `registries` section. */
export const registriesSchema = z.strictObject(
  {
    /** The registry used without `--registry`: a name from `list`, or a URL. */
    default: z.string({ error: "expected a registry's name or URL" }).min(1).optional(),
    list: z.array(registrySchema, { error: "expected a list of registries" }).optional(),
    /** Server names (globs, `io.github.acme/*`) that `add` may write; absent: any. */
    allow: stringArray.optional(),
  },
  { error: 'expected { "default"?, "list"?: [{ "name", "url", "token"? }], "allow"?: [globs] }' },
);

export type RegistrySection = z.infer<typeof registriesSchema>;
export type RegistryEntry = z.infer<typeof registrySchema>;

/** A server entry's `source`: the registry it was added from, its name and version there, its metadata. */
export const serverSourceSchema = z.strictObject(
  {
    registry: httpUrl,
    name: z.string({ error: "expected the server's name in the registry" }).min(1),
    version: z.string({ error: "expected the server's version" }).min(1),
    /** What runs: `npm:<package>@<version>`, `pypi:…`, `oci:…`, or the remote's URL. */
    package: z.string().optional(),
    /** The registry's own `_meta` for that version (status, publishedAt, updatedAt, isLatest). */
    meta: z.record(z.string(), z.unknown()).optional(),
  },
  { error: 'expected { "registry", "name", "version", "package"?, "meta"? }' },
);

export type ServerSource = z.infer<typeof serverSourceSchema>;
