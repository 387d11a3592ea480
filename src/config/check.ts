// Checking a config value against its schema, and saying what is wrong, or unknown, at which JSON path.

import type { z } from "zod";
import { closestNames, SwitchyardError } from "../errors.js";

/** The value parsed by `schema`; the first issue becomes a `CONFIG_INVALID` naming its JSON path. */
export function check<S extends z.ZodType>(schema: S, value: unknown, at: string[]): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = [...at, ...issue.path.map(String)].join(".");
  if (issue.code === "unrecognized_keys") {
    // Name the key an unknown one most likely meant: "routing.topk: unknown key (did you mean topK?)".
    const known = new Set(keysAt(schema, issue.path));
    const [key] = issue.keys;
    const near = key === undefined ? undefined : closestKey(key, known);
    // zod's own words say no more; a section's own (`expected { "mode"?, … }`) list what it takes.
    const more = issue.message.startsWith("Unrecognized key") ? "" : `; ${issue.message}`;
    if (key !== undefined)
      throw invalid(
        where ? `${where}.${key}` : key,
        `unknown key${near ? ` (did you mean ${near}?)` : known.size ? ` (the keys here: ${[...known].join(", ")})` : ""}${more}`,
      );
  }
  throw invalid(where, issue.message);
}

/** The keys an object schema knows at `path` inside `schema` (through optional, default, pipe, array, record, union). */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let nodes: unknown[] = [schema];
  for (const segment of [...path, undefined]) {
    const next: unknown[] = [];
    for (const node of nodes.flatMap(unwrapped)) {
      const def = defOf(node);
      if (segment === undefined) {
        if (def?.type === "object") return Object.keys(def.shape as object);
        continue;
      }
      if (def?.type === "object") next.push((def.shape as Record<string, unknown>)[String(segment)]);
      else if (def?.type === "array") next.push(def.element);
      else if (def?.type === "record") next.push(def.valueType);
    }
    nodes = next.filter((node) => node !== undefined);
  }
  return [];
}

/** A schema without its optional, nullable, default and pipe wrappers; a union's options each. */
function unwrapped(node: unknown): unknown[] {
  const def = defOf(node);
  if (!def) return [];
  if (
    ["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"].includes(
      String(def.type),
    )
  )
    return unwrapped(def.innerType);
  if (def.type === "pipe") return unwrapped(def.in);
  if (def.type === "union") return (def.options as unknown[]).flatMap(unwrapped);
  if (def.type === "lazy") return unwrapped((def.getter as () => unknown)());
  return [node];
}

function defOf(node: unknown): Record<string, unknown> | undefined {
  return (node as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
}

/** "mcpServers.x.comand: unknown key, ignored (did you mean command?)" */
export function unknownKey(at: string[], known: ReadonlySet<string>): string {
  const key = at.at(-1)!;
  const near = closestKey(key, known);
  return `${at.join(".")}: unknown key, ignored${near ? ` (did you mean ${near}?)` : ""}`;
}

/** The known key a mistyped one most likely meant: the same but for case or a unit suffix, else the closest. */
function closestKey(key: string, known: ReadonlySet<string>): string | undefined {
  const lower = key.toLowerCase();
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    if (other === lower || other === `${lower}ms` || other === `${lower}s`) return candidate;
  }
  return closestNames(key, known, 1)[0];
}

/** A `CONFIG_INVALID` error at `where` (a JSON path, `""` for the whole file), saying what was expected. */
export function invalid(where: string, expected: string): SwitchyardError {
  return new SwitchyardError("CONFIG_INVALID", where ? `${where}: ${expected}` : expected, { path: where });
}
