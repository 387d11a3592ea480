import { createHash } from "node:crypto";
import { lazyRequire } from "../lazy-require.js";

// Its tables are half a megabyte of source: loaded only for the first namespace that is not ASCII.
const anyAscii = lazyRequire<typeof import("any-ascii")>("any-ascii");

/** What model providers accept as a tool name. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_TOOL_NAME_LENGTH = 64;

const HASH_LENGTH = 8;
const UNSAFE = /[^a-zA-Z0-9_-]/g;

/**
 * The model-safe form of a namespace, as it opens tool names: an ASCII one keeps its letters (other
 * characters become `_`, as always); one with other characters is transliterated (`订单` → `DingDan`,
 * `Überprüfung` → `Uberprufung`, `서버` → `SeoBeo`); one with nothing readable left becomes `s<hash>`.
 * Deterministic: the same namespace always gives the same label.
 */
export function namespaceLabel(namespace: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is "ASCII only"
  if (/^[\x00-\x7f]*$/.test(namespace)) return namespace.replace(UNSAFE, "_");
  const safe = anyAscii().default(namespace).replace(UNSAFE, "_");
  if (/[a-zA-Z0-9]/.test(safe)) return safe;
  return `s${createHash("sha256").update(namespace).digest("hex").slice(0, HASH_LENGTH)}`;
}

/** What opens the names of a namespace's tools: `<label>_`, or nothing for `namespace: false`. */
export function toolNamePrefix(namespace: string | false): string {
  return namespace === false ? "" : `${namespaceLabel(namespace)}_`;
}

/** The name a tool would get with nothing in its way: `<namespace>_<tool>`, made model-safe. */
export function baseToolName(namespace: string | false, tool: string): string {
  const raw = `${toolNamePrefix(namespace)}${tool}`;
  const safe = raw.replace(UNSAFE, "_") || "tool";
  return safe.length > MAX_TOOL_NAME_LENGTH ? withHash(safe, "", "") : safe;
}

/**
 * Give a name to a tool, avoiding every name in `taken`: the base name when it is free, else the base
 * shortened and suffixed with a hash of (server, tool), so the same fleet always gets the same names.
 */
export function assignToolName(
  claim: { namespace: string | false; server: string; tool: string },
  taken: ReadonlySet<string>,
): string {
  const base = baseToolName(claim.namespace, claim.tool);
  if (!taken.has(base)) return base;
  const hashed = withHash(base, claim.server, claim.tool);
  if (!taken.has(hashed)) return hashed;
  for (let n = 2; ; n += 1) {
    const numbered = `${hashed.slice(0, MAX_TOOL_NAME_LENGTH - String(n).length - 1)}_${n}`;
    if (!taken.has(numbered)) return numbered;
  }
}

function withHash(base: string, server: string, tool: string): string {
  const hash = createHash("sha256").update(`${server}\0${tool}\0${base}`).digest("hex").slice(0, HASH_LENGTH);
  return `${base.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}
