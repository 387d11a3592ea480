// Small helpers shared by the bundled example MCP servers (examples/servers/*.mjs).
// Not a server itself.
//
// Argument checking policy: every tool advertises a precise JSON Schema (with a
// description for each parameter), but the arguments are checked by the tool
// itself, so that bad input becomes a normal tool result with `isError: true`
// and a message that names the parameter and says what is valid, e.g.
//   invalid parameter: days must be an integer from 1 to 365 (got -3)
// An LLM can read that and retry. (Left to the SDK, a schema violation also
// becomes an isError result, but with a generic validator message.)
import { fromJsonSchema } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

/** A logger that writes to stderr only: stdout belongs to the protocol. */
export function createLogger(name) {
  return (msg) => process.stderr.write(`[${name}] ${msg}\n`);
}

/** Thrown by the argument checkers below; turned into an isError result. */
export class ParamError extends Error {}

const passThrough = { getValidator: () => (data) => ({ valid: true, data, errorMessage: undefined }) };

/** Advertise `schema` as the tool's inputSchema; the tool checks the arguments itself. */
export const inputSchema = (schema) => fromJsonSchema(schema, passThrough);

/** Advertise `schema` as the tool's outputSchema; the SDK validates structuredContent against it. */
export const outputSchema = (schema) => fromJsonSchema(schema);

export const textResult = (text, structuredContent) =>
  structuredContent === undefined
    ? { content: [{ type: "text", text }] }
    : { content: [{ type: "text", text }], structuredContent };

export const toolError = (message) => ({ content: [{ type: "text", text: message }], isError: true });

const describe = (value) => {
  if (value === null) return "null";
  if (typeof value === "string")
    return `string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === "number") return String(value);
  return typeof value === "object" ? (Array.isArray(value) ? "an array" : "an object") : typeof value;
};

/**
 * `invalid parameter: <name> <what is valid> (got <value>)`, or for a missing
 * parameter `invalid parameter: <name> is required and <what is valid>`.
 */
export const invalid = (name, expectation, value) =>
  new ParamError(
    value === undefined
      ? `invalid parameter: ${name} is required and ${expectation}`
      : `invalid parameter: ${name} ${expectation} (got ${describe(value)})`,
  );

/**
 * Register a tool whose handler receives the raw arguments object. A
 * ParamError thrown by the handler becomes an isError result; unknown
 * parameter names are rejected the same way.
 */
export function defineTool(server, name, config, handler) {
  const allowed = Object.keys(config.inputSchema?.properties ?? {});
  server.registerTool(
    name,
    {
      title: config.title,
      description: config.description,
      inputSchema: inputSchema(
        config.inputSchema ?? { type: "object", properties: {}, additionalProperties: false },
      ),
      ...(config.outputSchema ? { outputSchema: outputSchema(config.outputSchema) } : {}),
      annotations: config.annotations,
    },
    async (args, ctx) => {
      try {
        if (args === null || typeof args !== "object" || Array.isArray(args)) {
          throw new ParamError("invalid parameter: arguments must be a JSON object");
        }
        const unknown = Object.keys(args).filter((k) => !allowed.includes(k));
        if (unknown.length > 0) {
          const valid = allowed.length
            ? `valid parameters are: ${allowed.join(", ")}`
            : "this tool takes no parameters";
          throw new ParamError(
            `invalid parameter: unknown parameter ${unknown.map((k) => `"${k}"`).join(", ")}; ${valid}`,
          );
        }
        return await handler(args, ctx);
      } catch (err) {
        if (err instanceof ParamError) return toolError(err.message);
        throw err; // the SDK reports it as an isError result too
      }
    },
  );
}

// ---- argument checkers ---------------------------------------------------

export function requireString(
  args,
  name,
  { pattern, expectation, maxLength = 1000, allowEmpty = false, trim = true } = {},
) {
  let value = args[name];
  if (typeof value !== "string") throw invalid(name, expectation ?? "must be a string", value);
  if (trim) value = value.trim();
  if (!allowEmpty && value.length === 0)
    throw invalid(name, expectation ?? "must be a non-empty string", args[name]);
  if (value.length > maxLength) {
    throw new ParamError(
      `invalid parameter: ${name} must be at most ${maxLength} characters long (got ${value.length} characters)`,
    );
  }
  if (pattern && !pattern.test(value))
    throw invalid(name, expectation ?? `must match ${pattern}`, args[name]);
  return value;
}

export function optionalInteger(args, name, { min, max, defaultValue }) {
  const value = args[name];
  if (value === undefined) return defaultValue;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(
      name,
      `must be an integer from ${min} to ${max}${defaultValue === undefined ? "" : ` (default ${defaultValue})`}`,
      value,
    );
  }
  return value;
}

export function requireNumber(args, name, { check, expectation }) {
  const value = args[name];
  if (typeof value !== "number" || !Number.isFinite(value) || !check(value))
    throw invalid(name, expectation, value);
  return value;
}

// ---- lifecycle -----------------------------------------------------------

/**
 * Serve `buildServer` (a factory returning a fresh McpServer) over stdio and
 * exit cleanly when stdin closes or on SIGTERM/SIGINT. `cleanup` runs once
 * before exit (close databases etc.).
 */
export function runStdio(buildServer, { log, cleanup = () => {} }) {
  const handle = serveStdio(buildServer, { onerror: (err) => log(`error: ${err.message}`) });
  let stopping = false;
  const stop = async (why) => {
    if (stopping) return;
    stopping = true;
    log(`shutting down (${why})`);
    try {
      await handle.close();
    } catch (err) {
      log(`error while closing: ${err.message}`);
    }
    try {
      cleanup();
    } finally {
      process.exit(0);
    }
  };
  process.stdin.once("end", () => stop("stdin closed"));
  process.stdin.once("close", () => stop("stdin closed"));
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  log("ready on stdio");
  return handle;
}
