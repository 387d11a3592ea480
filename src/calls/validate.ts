import { compileSchema, type SchemaCheck, type SchemaError } from "../fleet/json-schema.js";

/** A JSON Schema as servers send it. */
export type JsonSchema = Record<string, unknown>;

/** The outcome of checking arguments: coerced arguments, or what was wrong. */
export type ValidationResult =
  | { ok: true; value: Record<string, unknown> }
  | {
      ok: false;
      problems: string[];
      /** The top-level parameters the problems are about (a missing one included), in order. */
      fields: string[];
    };

const compiled = new WeakMap<object, SchemaCheck | null>();

/**
 * Check tool arguments against the tool's input schema, after safe coercion (`"7"` → `7` where the
 * schema wants a number, `"true"` → `true` where it wants a boolean). A schema that cannot be compiled
 * is not enforced (the server still checks); the arguments pass through unchanged.
 */
export function validateArguments(schema: JsonSchema, args: unknown): ValidationResult {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, problems: [`arguments must be a JSON object, got ${describe(args)}`], fields: [] };
  }
  const validate = compile(schema);
  // Most arguments fit as sent: check first, and copy-and-coerce only when they do not.
  if (!validate || validate(args)) return { ok: true, value: args as Record<string, unknown> };
  const value = coerce(schema, args) as Record<string, unknown>;
  if (validate(value)) return { ok: true, value };
  const errors = validate.errors ?? [];
  return { ok: false, problems: errors.map(describeError), fields: [...new Set(errors.flatMap(fieldOf))] };
}

/**
 * Check a tool result's structured content against the tool's output schema, as the spec asks of a
 * client: a result that is not an error must carry structured content, and it must match. Returns what
 * is wrong, or nothing. A schema that cannot be compiled is not enforced, as for arguments.
 */
export function outputProblems(
  schema: JsonSchema | undefined,
  result: { isError?: boolean | undefined; structuredContent?: unknown },
): string[] | undefined {
  if (schema === undefined || result.isError === true) return undefined;
  const validate = compile(schema);
  if (!validate) return undefined;
  if (result.structuredContent === undefined)
    return ["the tool has an output schema but returned no structured content"];
  if (validate(result.structuredContent)) return undefined;
  return (validate.errors ?? []).map(describeError);
}

function compile(schema: JsonSchema): SchemaCheck | null {
  let validate = compiled.get(schema);
  if (validate !== undefined) return validate;
  const { $schema: _dialect, ...rest } = schema;
  try {
    validate = compileSchema(rest);
  } catch {
    validate = null;
  }
  compiled.set(schema, validate);
  return validate;
}

/** Coerce strings that are plainly numbers or booleans where the schema asks for those types. */
function coerce(schema: unknown, value: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return value;
  const { type, properties, items } = schema as { type?: unknown; properties?: unknown; items?: unknown };
  const types = Array.isArray(type) ? type : [type];
  if (typeof value === "string" && !types.includes("string")) {
    if (
      (types.includes("integer") && /^-?\d+$/.test(value)) ||
      (types.includes("number") && isNumeric(value))
    ) {
      return Number(value);
    }
    if (types.includes("boolean") && (value === "true" || value === "false")) return value === "true";
  }
  if (Array.isArray(value) && items) return value.map((item) => coerce(items, item));
  if (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof properties === "object" &&
    properties
  ) {
    const shape = properties as Record<string, unknown>;
    const required = new Set(
      Array.isArray((schema as { required?: unknown }).required)
        ? (schema as { required: string[] }).required
        : [],
    );
    return Object.fromEntries(
      Object.entries(value)
        // Models send `null` for an optional parameter they mean to leave out: leave it out, unless
        // the parameter's schema accepts null.
        .filter(
          ([key, item]) => !(item === null && !required.has(key) && key in shape && !allowsNull(shape[key])),
        )
        .map(([key, item]) => [key, coerce(shape[key], item)]),
    );
  }
  return value;
}

/** Whether a property's schema accepts `null` (by `type`, `enum`, `const`, or one of its alternatives). */
function allowsNull(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return true; // no schema: anything goes
  const { type, anyOf, oneOf, enum: values, const: constant } = schema as Record<string, unknown>;
  if (
    type === undefined &&
    anyOf === undefined &&
    oneOf === undefined &&
    values === undefined &&
    !("const" in schema)
  )
    return true;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if (Array.isArray(values) && values.includes(null)) return true;
  if (constant === null && "const" in schema) return true;
  return [anyOf, oneOf].some((options) => Array.isArray(options) && options.some(allowsNull));
}

function isNumeric(text: string): boolean {
  return /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text);
}

/** The top-level parameter an error is about. */
function fieldOf(error: SchemaError): string[] {
  const first = error.instancePath.split("/")[1];
  if (first) return [first.replaceAll("~1", "/").replaceAll("~0", "~")];
  if (error.keyword === "required") return [(error.params as { missingProperty: string }).missingProperty];
  if (error.keyword === "additionalProperties")
    return [(error.params as { additionalProperty: string }).additionalProperty];
  return [];
}

/**
 * The part of a schema a person (or a model) needs to fix arguments: each named parameter's type,
 * allowed values, bounds and description, and which are required — or, with no names, every parameter
 * in brief. Never the whole schema on one line.
 */
export function describeParameters(schema: JsonSchema, fields: readonly string[] = []): string {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const known = Object.keys(properties).filter((name) => fields.includes(name));
  const names = known.length ? known : Object.keys(properties);
  if (names.length === 0) return "no parameters";
  const brief = known.length === 0;
  return names
    .map(
      (name) =>
        `${name} (${describeType(properties[name]!, brief)}${required.has(name) ? ", required" : ""})`,
    )
    .concat(
      fields
        .filter((field) => !(field in properties))
        .map((field) => `${field}: not a parameter of this tool`),
    )
    .join("; ");
}

function describeType(schema: Record<string, unknown>, brief: boolean): string {
  const parts: string[] = [];
  const type = Array.isArray(schema.type) ? schema.type.join(" or ") : schema.type;
  if (typeof type === "string") parts.push(type);
  else if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) parts.push("one of several shapes");
  if (Array.isArray(schema.enum))
    parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`);
  if (schema.const !== undefined) parts.push(`exactly ${JSON.stringify(schema.const)}`);
  const bounds = [
    schema.minimum !== undefined ? `≥ ${schema.minimum}` : "",
    schema.maximum !== undefined ? `≤ ${schema.maximum}` : "",
    schema.minLength !== undefined ? `at least ${schema.minLength} characters` : "",
    schema.maxLength !== undefined ? `at most ${schema.maxLength} characters` : "",
    typeof schema.pattern === "string" ? `matching ${schema.pattern}` : "",
  ].filter(Boolean);
  parts.push(...bounds);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  if (!brief && typeof schema.description === "string" && schema.description) {
    const text =
      schema.description.length > 120 ? `${schema.description.slice(0, 119)}…` : schema.description;
    parts.push(text);
  }
  return parts.join(", ") || "any value";
}

function describeError(error: SchemaError): string {
  const at = error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "";
  if (error.keyword === "required") {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `missing required field "${at ? `${at}.` : ""}${missing}"`;
  }
  if (error.keyword === "additionalProperties") {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `unexpected field "${at ? `${at}.` : ""}${extra}"`;
  }
  if (error.keyword === "enum") {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    return `"${at}" must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return at ? `"${at}" ${error.message ?? "is invalid"}` : (error.message ?? "arguments are invalid");
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}
