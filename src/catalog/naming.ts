import { createHash } from "node:crypto";

/** What model providers accept as a tool name. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_TOOL_NAME_LENGTH = 64;

const HASH_LENGTH = 8;

/** The name a tool would get with nothing in its way: `<namespace>_<tool>`, made model-safe. */
export function baseToolName(namespace: string | false, tool: string): string {
  const raw = namespace === false ? tool : `${namespace}_${tool}`;
  const safe = raw.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool";
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
