import type { CatalogEntry } from "../../internal.js";
import { didYouMean } from "../../internal.js";
import { connectFor } from "../connect-for.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { countOf, formatTable, wrap } from "../table.js";
import { settingsLines } from "./describe-settings.js";

/** Flags of `describe`. */
export interface DescribeFlags {
  /** Ask the servers even when the cached catalog is still good. */
  refresh?: boolean;
}

/**
 * `switchyard describe <tool>`: one catalog entry in full — from the catalog cache when it is good
 * (nothing started), else from the tool's server (alone when its names stand alone) or the whole fleet. `--json`: the
 * entry as `describeTool` returns it. An unknown name exits 2 with the closest names.
 */
export async function describeCommand(
  ctx: CommandContext,
  name: string,
  flags: DescribeFlags = {},
): Promise<number> {
  const yard = await connectFor(ctx, name, flags.refresh ? { refresh: true } : {});
  const entry = yard.describeTool(name);
  if (!entry) {
    const hint = didYouMean(
      name,
      yard.tools().map((tool) => tool.name),
    );
    throw new CliError(
      `no tool named ${name} in the catalog; ${hint || "run switchyard tools to see what there is"}`,
      EXIT_USAGE,
    );
  }
  // A tool the policy hides from this identity is not described either (`tools` does not list it).
  if (!yard.tools().some((tool) => tool.name === name)) {
    throw new CliError(
      `no tool named ${name} that user ${ctx.identity().user} may call; run switchyard tools to see what there is`,
      EXIT_USAGE,
    );
  }
  if (ctx.out.json) ctx.out.data(entry);
  else ctx.out.result(renderTool(entry, settingsLines(yard.config, entry)));
  return EXIT_OK;
}

/** What the MCP spec says a tool is when it does not say (ToolAnnotations). */
const ANNOTATIONS = [
  ["readOnlyHint", "read-only"],
  ["idempotentHint", "idempotent"],
  ["destructiveHint", "destructive"],
  ["openWorldHint", "open-world"],
] as const;

/**
 * A catalog entry as a person reads it: who it is, how its calls are served (`settings`, after the
 * annotations), what it does, what it takes and gives.
 */
export function renderTool(entry: CatalogEntry, settings: readonly string[] = []): string {
  const annotations = (entry.annotations ?? {}) as Record<string, unknown>;
  const title = entry.title ?? (typeof annotations.title === "string" ? annotations.title : undefined);
  const hints = ANNOTATIONS.map(([key, label]) => {
    const value = annotations[key];
    return `${label}: ${value === true ? "yes" : value === false ? "no" : "not said"}`;
  }).join(", ");
  const lines = [
    `Name:         ${entry.name}`,
    `Server:       ${entry.server}`,
    `Tool:         ${entry.tool}`,
    ...(title ? [`Title:        ${title}`] : []),
    `Annotations:  ${hints}`,
    ...settings,
    "Description:",
    ...(entry.description.trim() ? wrap(entry.description.trim(), textWidth()) : ["(none)"]).map(
      (line) => `  ${line}`,
    ),
    "",
    ...renderSchema("Input", entry.inputSchema as Schema),
  ];
  if (entry.outputSchema) lines.push("", ...renderSchema("Output", entry.outputSchema as Schema));
  return lines.join("\n");
}

/** Columns for running text: the terminal's, at most 100 (easier to read), 2 of them for the indent. */
function textWidth(): number {
  return Math.min(process.stdout.columns ?? 100, 100) - 2;
}

type Schema = Record<string, unknown>;

interface Parameter {
  name: string;
  type: string;
  required: boolean;
  details: string;
}

/** A schema's parameters as a table (nested objects as `a.b`, arrays of objects as `a[].b`). */
function renderSchema(heading: string, schema: Schema): string[] {
  const parameters = parametersOf(schema, "", 0);
  if (parameters.length === 0) {
    const type = typeOf(schema);
    return [`${heading}: ${type === "object" ? "no parameters" : type}`];
  }
  const top = parameters.filter((parameter) => !/[.[]/.test(parameter.name));
  const required = top.filter((parameter) => parameter.required);
  const table = formatTable(
    ["NAME", "TYPE", "REQUIRED", "DETAILS"],
    parameters.map((parameter) => [
      parameter.name,
      parameter.type,
      parameter.required ? "yes" : "no",
      parameter.details,
    ]),
    { maxWidth: Number.POSITIVE_INFINITY },
  );
  const counts =
    heading === "Input" ? ` (${countOf(top.length, "parameter")}, ${required.length} required)` : "";
  return [`${heading}${counts}:`, ...table.split("\n").map((line) => `  ${line}`)];
}

const MAX_DEPTH = 3;

function parametersOf(schema: Schema, prefix: string, depth: number): Parameter[] {
  const properties = schema.properties;
  if (!properties || typeof properties !== "object" || depth >= MAX_DEPTH) return [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const parameters: Parameter[] = [];
  for (const [key, value] of Object.entries(properties as Record<string, Schema>)) {
    const name = `${prefix}${key}`;
    const property = typeof value === "object" && value !== null ? value : {};
    parameters.push({
      name,
      type: typeOf(property),
      required: required.has(key),
      details: detailsOf(property),
    });
    parameters.push(...parametersOf(property, `${name}.`, depth + 1));
    const items = property.items;
    if (items && typeof items === "object" && !Array.isArray(items))
      parameters.push(...parametersOf(items as Schema, `${name}[].`, depth + 1));
  }
  return parameters;
}

/** A schema's type in a few words: `string`, `integer|null`, `array of string`, `one of 2 shapes`. */
function typeOf(schema: Schema): string {
  const { type } = schema;
  if (typeof type === "string") {
    if (type === "array" && schema.items && typeof schema.items === "object" && !Array.isArray(schema.items))
      return `array of ${typeOf(schema.items as Schema)}`;
    return type;
  }
  if (Array.isArray(type)) return type.join("|");
  if ("const" in schema) return `const ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map((value) => jsonType(value)))].join("|");
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return options.map((option) => typeOf(option as Schema)).join("|");
  }
  if (schema.properties) return "object";
  return "any";
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "number" && Number.isInteger(value) ? "integer" : typeof value;
}

/** The description, then what limits the value: enum values, default, range, length, pattern, format. */
function detailsOf(schema: Schema): string {
  const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
  const limits: string[] = [];
  if (Array.isArray(schema.enum)) limits.push(`one of: ${schema.enum.map(show).join(", ")}`);
  if ("default" in schema) limits.push(`default: ${JSON.stringify(schema.default)}`);
  const low =
    schema.exclusiveMinimum !== undefined
      ? `> ${show(schema.exclusiveMinimum)}`
      : schema.minimum !== undefined
        ? `≥ ${show(schema.minimum)}`
        : undefined;
  const high =
    schema.exclusiveMaximum !== undefined
      ? `< ${show(schema.exclusiveMaximum)}`
      : schema.maximum !== undefined
        ? `≤ ${show(schema.maximum)}`
        : undefined;
  if (low || high) limits.push([low, high].filter(Boolean).join(" and "));
  for (const [key, label] of [
    ["minLength", "min length"],
    ["maxLength", "max length"],
    ["minItems", "min items"],
    ["maxItems", "max items"],
    ["pattern", "pattern"],
    ["format", "format"],
  ] as const) {
    if (schema[key] !== undefined) limits.push(`${label}: ${show(schema[key])}`);
  }
  const description =
    typeof schema.description === "string" ? schema.description.replace(/\s+/g, " ").trim() : "";
  return [description, limits.length ? `(${limits.join("; ")})` : ""].filter(Boolean).join(" ");
}
