// Drift: how a tool's definition differs from its pin, in the terms that decide whether the change may
// be accepted — a schema that now accepts more than it did (a new parameter to fill, a constraint
// dropped), a safety annotation that now promises more (`destructiveHint` true → false, `readOnlyHint`
// or `idempotentHint` → true: Switchyard retries what says it is safe to), or only new wording.
import type { PinnedDefinition } from "./pins.js";

export interface Drift {
  /** What the schemas accept now that they did not: `inputSchema.properties.memo added`, … */
  widened: string[];
  /** Safety annotations that now promise more: `destructiveHint true → false`, … */
  flipped: string[];
  /** The title, description or a schema's text changed. */
  reworded: boolean;
}

/** How `now` differs from `pinned` (the same tool of the same server). */
export function driftOf(pinned: PinnedDefinition, now: PinnedDefinition): Drift {
  const widened: string[] = [];
  widenings(pinned.inputSchema, now.inputSchema, "inputSchema", widened);
  widenings(pinned.outputSchema, now.outputSchema, "outputSchema", widened);
  return {
    widened,
    flipped: flips(pinned.annotations ?? {}, now.annotations ?? {}),
    reworded:
      pinned.title !== now.title ||
      pinned.description !== now.description ||
      textsOf(pinned.inputSchema) !== textsOf(now.inputSchema) ||
      textsOf(pinned.outputSchema) !== textsOf(now.outputSchema),
  };
}

/** Annotations as the spec defaults them when absent: destructive, not read-only, not idempotent. */
function flips(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const flipped: string[] = [];
  const destructive = (a: Record<string, unknown>) => a.destructiveHint !== false;
  if (destructive(before) && !destructive(after))
    flipped.push(`destructiveHint ${before.destructiveHint ?? "unset (true)"} → false`);
  for (const hint of ["readOnlyHint", "idempotentHint"] as const)
    if (before[hint] !== true && after[hint] === true)
      flipped.push(`${hint} ${before[hint] ?? "unset (false)"} → true`);
  return flipped;
}

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Constraints whose removal lets more values through. */
const NARROWING = [
  "pattern",
  "format",
  "const",
  "maxLength",
  "maxItems",
  "maxProperties",
  "maximum",
  "exclusiveMaximum",
  "minLength",
  "minItems",
  "minimum",
  "exclusiveMinimum",
  "multipleOf",
] as const;

/** Push to `out` each way `after` accepts more than `before`, by path. */
function widenings(before: unknown, after: unknown, path: string, out: string[]): void {
  if (!isSchema(after)) return;
  if (!isSchema(before)) {
    if (before === undefined) out.push(`${path} added`);
    return;
  }
  const beforeTypes = typesOf(before.type);
  const afterTypes = typesOf(after.type);
  if (beforeTypes && (!afterTypes || afterTypes.some((type) => !beforeTypes.includes(type))))
    out.push(`${path}.type ${JSON.stringify(before.type)} → ${JSON.stringify(after.type ?? "any")}`);
  if (Array.isArray(before.enum)) {
    const known = new Set(before.enum.map((value) => JSON.stringify(value)));
    const added = Array.isArray(after.enum)
      ? after.enum.filter((value) => !known.has(JSON.stringify(value)))
      : undefined;
    if (!added) out.push(`${path}.enum removed`);
    else if (added.length) out.push(`${path}.enum added ${added.map((v) => JSON.stringify(v)).join(", ")}`);
  }
  for (const key of NARROWING)
    if (before[key] !== undefined && after[key] === undefined) out.push(`${path}.${key} removed`);
  if (before.additionalProperties === false && after.additionalProperties !== false)
    out.push(`${path}.additionalProperties now allowed`);
  const required = new Set(Array.isArray(after.required) ? after.required : []);
  if (Array.isArray(before.required))
    for (const name of before.required) if (!required.has(name)) out.push(`${path}.required ${name} dropped`);
  const beforeProps = isSchema(before.properties) ? before.properties : {};
  const afterProps = isSchema(after.properties) ? after.properties : {};
  for (const [name, schema] of Object.entries(afterProps)) {
    if (!(name in beforeProps)) out.push(`${path}.properties.${name} added`);
    else widenings(beforeProps[name], schema, `${path}.properties.${name}`, out);
  }
  widenings(before.items, after.items, `${path}.items`, out);
}

function typesOf(type: unknown): string[] | undefined {
  if (typeof type === "string") return type === "integer" ? ["integer"] : [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return undefined;
}

/** Every string a schema holds for the model to read (descriptions, titles), in order: its wording. */
function textsOf(schema: unknown): string {
  const texts: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (isSchema(node))
      for (const [key, value] of Object.entries(node)) {
        if ((key === "description" || key === "title") && typeof value === "string") texts.push(value);
        else visit(value);
      }
  };
  visit(schema);
  return texts.join("\u0000");
}
