// What a conformance client passes to the tools of a scenario, the same for both clients: the calls the
// suite hands over (MCP_CONFORMANCE_CONTEXT's `toolCalls`, e.g. http-custom-headers), the schema echo
// json-schema-2020-12-preservation asks for, fixed arguments for the suite's add_numbers, and for any
// other tool the least arguments its input schema requires (a string "x", the number 1, true, an enum's
// first value, a default or const), so that a tool with required parameters is called, not refused.

const ARGS = { add_numbers: { a: 5, b: 3 } };
// json-schema-2020-12-preservation: call the echo tool with the focal tool's inputSchema, verbatim.
const ECHO = { tool: "json_schema_echo", of: "json_schema_2020_12_tool" };

/** Arguments for `tool` (its own name), given every tool's own name → input schema. */
export function argumentsFor(tool, schemas, context) {
  const given = context.toolCalls?.filter((call) => call.name === tool).map((call) => call.arguments);
  if (given?.length) return given;
  if (tool === ECHO.tool && schemas.has(ECHO.of)) return [{ schema: schemas.get(ECHO.of) }];
  if (ARGS[tool]) return [ARGS[tool]];
  return [sample(schemas.get(tool) ?? {})];
}

/** The least object the schema requires: its required properties, each a sample of its own schema. */
function sample(schema, root = schema, depth = 0) {
  if (typeof schema !== "object" || schema === null || depth > 8) return {};
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/"))
    return sample(resolve(root, schema.$ref), root, depth + 1);
  if ("const" in schema) return schema.const;
  if ("default" in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "string") return "x";
  if (type === "integer" || type === "number") return schema.minimum ?? 1;
  if (type === "boolean") return true;
  if (type === "array") return [];
  if (type === "null") return null;
  // An object: the required names of the schema, of its allOf parts, of the first anyOf/oneOf branch,
  // and of its `else` (the `if` of a property left out does not hold).
  const required = new Set(schema.required ?? []);
  const parts = [...(schema.allOf ?? []), schema.anyOf?.[0], schema.oneOf?.[0], schema.else];
  for (const part of parts.filter(Boolean)) {
    for (const name of part.required ?? []) required.add(name);
    for (const inner of part.anyOf?.slice(0, 1) ?? [])
      for (const name of inner.required ?? []) required.add(name);
  }
  const out = {};
  for (const name of required) out[name] = sample(schema.properties?.[name] ?? {}, root, depth + 1);
  return out;
}

function resolve(root, ref) {
  let at = root;
  for (const key of ref.slice(2).split("/")) at = at?.[key.replaceAll("~1", "/").replaceAll("~0", "~")];
  return at ?? {};
}

/** Arguments for a prompt: "x" for each required argument. */
export function promptArguments(args = []) {
  return Object.fromEntries(args.filter((arg) => arg.required).map((arg) => [arg.name, "x"]));
}
