/** How deep `$ref`s are inlined before a recursive schema is cut off (to an unconstrained `{}`). */
const MAX_REF_DEPTH = 8;

/** A JSON Schema object (the same type as calls' `JsonSchema`; models/ does not import calls/). */
type Schema = Record<string, unknown>;

/**
 * Turn a server's `inputSchema` into `parameters` every OpenAI-compatible provider accepts: `$ref`s
 * inlined, `oneOf` read as `anyOf` (nested unions stay), no combinator or non-object type at the top,
 * and always an object with `properties`. The original schema is not changed; validation uses it.
 */
export function toModelParameters(inputSchema: Schema): Schema {
  const definitions = { ...(inputSchema.definitions as Schema), ...(inputSchema.$defs as Schema) };
  const inlined = inline(inputSchema, definitions, 0) as Schema;
  return topLevelObject(inlined);
}

function inline(node: unknown, definitions: Schema, depth: number): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, definitions, depth));
  if (typeof node !== "object" || node === null) return node;
  const schema = node as Schema;
  if (typeof schema.$ref === "string") {
    const target = resolveRef(schema.$ref, definitions);
    if (!target || depth >= MAX_REF_DEPTH) return {};
    const { $ref: _ref, ...siblings } = schema;
    return inline({ ...target, ...siblings }, definitions, depth + 1);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$defs" || key === "definitions" || key === "$schema" || key === "$id") continue;
    out[key === "oneOf" ? "anyOf" : key] = inline(value, definitions, depth);
  }
  return out;
}

function resolveRef(ref: string, definitions: Schema): Schema | undefined {
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const name = decodeURIComponent(match[1]!).replaceAll("~1", "/").replaceAll("~0", "~");
  const target = definitions[name];
  return typeof target === "object" && target !== null ? (target as Schema) : undefined;
}

/** Merge top-level combinators into one object schema; required is what every branch requires. */
function topLevelObject(schema: Schema): Schema {
  const { anyOf: _anyOf, allOf: _allOf, not: _not, ...rest } = schema;
  const properties: Schema = { ...(rest.properties as Schema) };
  const required = new Set(asStrings(rest.required));
  for (const branch of asArray(schema.allOf)) {
    Object.assign(properties, branch.properties as Schema);
    for (const name of asStrings(branch.required)) required.add(name);
  }
  const alternatives = asArray(schema.anyOf);
  for (const branch of alternatives) Object.assign(properties, branch.properties as Schema);
  // A field is required only when every alternative requires it.
  for (const name of asStrings(alternatives[0]?.required)) {
    if (alternatives.every((branch) => asStrings(branch.required).includes(name))) required.add(name);
  }
  const result: Schema = { ...rest, type: "object", properties };
  if (required.size) result.required = [...required];
  else delete result.required;
  return result;
}

function asArray(value: unknown): Schema[] {
  return Array.isArray(value)
    ? (value.filter((item) => typeof item === "object" && item !== null) as Schema[])
    : [];
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
