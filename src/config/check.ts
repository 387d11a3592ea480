// Checking a config value against its schema, and saying what is wrong, or unknown, at which JSON path.

import type { z } from "zod";
import { closestNames, SwitchyardError } from "../errors.js";

/** The value parsed by `schema`; the first issue becomes a `CONFIG_INVALID` naming its JSON path. */
export function check<S extends z.ZodType>(schema: S, value: unknown, at: string[]): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = [...at, ...issue.path.map(String)].join(".");
  throw invalid(where, issue.message);
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
