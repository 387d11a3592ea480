import type { PromptEntry } from "../catalog/resources.js";
import { SwitchyardError } from "../errors.js";
import { refusalFields } from "./approval.js";
import type { RequestContext, RequestInput } from "./request.js";
import type { Resolved } from "./resolve.js";
import { describeParameters, type JsonSchema, validateArguments } from "./validate.js";

// A request's arguments, checked before anything is sent: a tool's against its input schema (after
// safe coercion), a prompt's as the strings MCP wants, a completion's argument and value.

const notSent = { delivery: "final" as const, serverFault: false };

/** The arguments the model wrote (JSON text), parsed. @throws SwitchyardError `INVALID_ARGUMENTS`. */
export function parseArgumentsText(text: string, resolved: Resolved, schema: JsonSchema): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SwitchyardError(
      "INVALID_ARGUMENTS",
      `The arguments are not valid JSON (${(error as Error).message}). Send a JSON object matching this schema: ${JSON.stringify(schema)}`,
      { server: resolved.server, tool: resolved.tool, ...notSent },
    );
  }
}

/**
 * A tool call's arguments, checked and coerced against the tool's input schema.
 * @throws SwitchyardError `INVALID_ARGUMENTS` with what is wrong and the schema's parameters.
 */
export function checkToolArguments(
  resolved: Resolved,
  schema: JsonSchema,
  args: unknown,
): Record<string, unknown> {
  const checked = validateArguments(schema, args ?? {});
  if (checked.ok) return checked.value;
  const where = resolved.entry
    ? `${resolved.name} (tool ${resolved.tool} on server ${resolved.server})`
    : resolved.name;
  throw new SwitchyardError(
    "INVALID_ARGUMENTS",
    `invalid arguments for ${where}: ${checked.problems.join("; ")}. Expected: ${describeParameters(schema, checked.fields)}`,
    { server: resolved.server, tool: resolved.tool, ...notSent },
  );
}

/**
 * A prompt's arguments as MCP wants them (strings: numbers and booleans are turned into strings),
 * checked against what the prompt declares.
 * @throws SwitchyardError `INVALID_INPUT` (not an object, or a value that cannot be a string),
 *   `INVALID_ARGUMENTS` (a required argument missing).
 */
export function promptArguments(entry: PromptEntry, args: unknown): Record<string, string> {
  if (typeof args !== "object" || args === null || Array.isArray(args))
    throw new SwitchyardError("INVALID_INPUT", `the arguments of prompt ${entry.name} must be an object`);
  const strings: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      strings[key] = String(value);
    else
      throw new SwitchyardError(
        "INVALID_INPUT",
        `argument ${key} of prompt ${entry.name} must be a string (prompt arguments are strings)`,
      );
  }
  const missing = entry.arguments.filter((arg) => arg.required && strings[arg.name] === undefined);
  if (missing.length) {
    throw new SwitchyardError(
      "INVALID_ARGUMENTS",
      `prompt ${entry.name} (${entry.prompt} on server ${entry.server}) needs ${missing.map((arg) => arg.name).join(", ")}; it takes ${entry.arguments.map((arg) => `${arg.name}${arg.required ? " (required)" : ""}`).join(", ")}`,
      { server: entry.server, ...notSent },
    );
  }
  return strings;
}

/**
 * A completion's argument: `{ name, value }`, both strings, and its context's arguments (strings).
 * @throws SwitchyardError `INVALID_INPUT`.
 */
export function completionArgument(
  argument: unknown,
  context: unknown,
): { argument: { name: string; value: string }; context?: { arguments?: Record<string, string> } } {
  const given = argument as { name?: unknown; value?: unknown } | null;
  if (typeof given?.name !== "string" || given.name === "" || typeof given.value !== "string")
    throw new SwitchyardError(
      "INVALID_INPUT",
      `a completion needs { name, value }: the argument's name and what has been typed of it, both strings (got ${JSON.stringify(argument) ?? String(argument)})`,
    );
  const args = (context as { arguments?: unknown } | undefined)?.arguments;
  if (
    args !== undefined &&
    (typeof args !== "object" || args === null || !Object.values(args).every((v) => typeof v === "string"))
  )
    throw new SwitchyardError("INVALID_INPUT", "a completion's context.arguments must map names to strings");
  return {
    argument: { name: given.name, value: given.value },
    ...(args !== undefined ? { context: { arguments: args as Record<string, string> } } : {}),
  };
}

/**
 * A tool call's arguments as given (the model's JSON text parsed against `schema`), once the run's own
 * check (an agent's guards) has let the call through.
 * @throws SwitchyardError `INVALID_ARGUMENTS` (unparsable text); `REFUSED` with the run's own words.
 */
export function checkedByRun(
  input: Extract<RequestInput, { kind: "tool" }>,
  resolved: Resolved,
  context: RequestContext,
  schema: JsonSchema,
): unknown {
  const given =
    input.argumentsText !== undefined
      ? parseArgumentsText(input.argumentsText, resolved, schema)
      : input.arguments;
  const refused = input.check?.({
    name: resolved.name,
    server: resolved.server,
    tool: resolved.tool,
    args: given ?? {},
  });
  if (refused)
    throw Object.assign(new SwitchyardError("REFUSED", refused.message, refusalFields(context)), {
      refusal: refused,
    });
  return given;
}
