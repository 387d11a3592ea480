import { homedir } from "node:os";
import path from "node:path";
import { SwitchyardError } from "../errors.js";

/**
 * `$$`, `${NAME}`, `${NAME:-default}`, and VS Code's `${env:NAME}`, `${input:id}`, `${workspaceFolder}`,
 * `${workspaceFolderBasename}`, `${userHome}` and `${pathSeparator}`.
 */
const PLACEHOLDER = /\$\$|\$\{([^}]*)\}/g;
const PLAIN = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

/** An input a config declares (VS Code's `inputs` section): a value asked of the user. */
export interface ConfigInput {
  id: string;
  description?: string | undefined;
  /** Typed without echo when asked on a terminal. */
  password?: boolean | undefined;
  default?: string | undefined;
}

/** What `${…}` placeholders are filled from. */
export interface InterpolationContext {
  env: Record<string, string | undefined>;
  /** The config file's folder; `.vscode/mcp.json` belongs to the folder above `.vscode`. */
  configDir: string;
  /** Values for `${input:id}`, by id. */
  inputs?: Readonly<Record<string, string>>;
  /** The config's `inputs` section, by id. */
  declared?: ReadonlyMap<string, ConfigInput>;
  /**
   * Receives each variable's value as it is filled in, with the path of the string it went into (the
   * redactor learns the secrets among them).
   */
  filled?: (variable: string, value: string, secret: boolean, at: readonly string[]) => void;
}

/** The environment variable that answers `${input:id}` when no value was given: `SWITCHYARD_INPUT_<ID>`. */
export function inputVariable(id: string): string {
  return `SWITCHYARD_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/**
 * Replace the placeholders in every string of a parsed config. Object keys are left alone. Returns a
 * new value; the input is not changed.
 * @throws SwitchyardError `CONFIG_INVALID` naming the variable or input and where it was used, when it has
 *   no value, and for VS Code variables Switchyard cannot know (`${command:…}`, `${config:…}`).
 */
export function interpolate(value: unknown, context: InterpolationContext, at: string[] = []): unknown {
  if (typeof value === "string") return interpolateString(value, context, at);
  if (Array.isArray(value))
    return value.map((item, index) => interpolate(item, context, [...at, String(index)]));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolate(item, context, [...at, key])]),
    );
  }
  return value;
}

/** `interpolate` with only the environment (and the working directory as the config's folder). */
export function interpolateEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  at: string[] = [],
): unknown {
  return interpolate(value, { env, configDir: process.cwd() }, at);
}

/** The ids of the `${input:id}` placeholders a parsed config uses, in order of first use. */
export function usedInputs(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === "string") {
    for (const match of value.matchAll(PLACEHOLDER)) {
      const inner = match[1];
      if (inner?.startsWith("input:")) found.add(inner.slice("input:".length));
    }
  } else if (Array.isArray(value)) {
    for (const item of value) usedInputs(item, found);
  } else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) usedInputs(item, found);
  }
  return found;
}

function interpolateString(text: string, context: InterpolationContext, at: string[]): string {
  const where = at.join(".");
  const fail = (message: string) =>
    new SwitchyardError("CONFIG_INVALID", `${where}: ${message}`, { path: where });
  return text.replace(PLACEHOLDER, (match, inner: string | undefined) => {
    if (match === "$$") return "$";
    const body = inner ?? "";
    switch (body) {
      case "workspaceFolder":
        return workspaceFolder(context.configDir);
      case "workspaceFolderBasename":
        return path.basename(workspaceFolder(context.configDir));
      case "userHome":
        return homedir();
      case "pathSeparator":
      case "/":
        return path.sep;
      default: {
        const plain = PLAIN.exec(body);
        if (plain) return noted(context, at, plain[1]!, fromEnv(plain[1]!, plain[2], context.env, fail));
        if (body.startsWith("env:"))
          return noted(context, at, body.slice(4), fromEnv(body.slice(4), undefined, context.env, fail));
        if (body.startsWith("input:")) {
          const id = body.slice(6);
          const secret = context.declared?.get(id)?.password === true;
          return noted(context, at, `input:${id}`, fromInput(id, context, fail), secret);
        }
        throw fail(
          `\${${body}} is not a variable Switchyard can fill; use \${NAME} or \${env:NAME} (environment), \${input:id} (an input), \${workspaceFolder} or \${userHome}, and $$ for a literal $`,
        );
      }
    }
  });
}

/** Tell `context.filled` what a variable was filled with; returns the value. */
function noted(
  context: InterpolationContext,
  at: readonly string[],
  variable: string,
  value: string,
  secret = false,
): string {
  context.filled?.(variable, value, secret, at);
  return value;
}

function fromEnv(
  name: string,
  fallback: string | undefined,
  env: Record<string, string | undefined>,
  fail: (message: string) => SwitchyardError,
): string {
  const found = env[name];
  if (found !== undefined && found !== "") return found;
  if (fallback !== undefined) return fallback;
  if (found !== undefined) return found;
  throw fail(`environment variable ${name} is not set; set it, or write \${${name}:-default}`);
}

function fromInput(
  id: string,
  context: InterpolationContext,
  fail: (message: string) => SwitchyardError,
): string {
  const given = context.inputs?.[id];
  if (given !== undefined) return given;
  const fromVariable = context.env[inputVariable(id)];
  if (fromVariable !== undefined) return fromVariable;
  const declared = context.declared?.get(id);
  if (!declared) {
    throw fail(
      `\${input:${id}} names an input the config does not declare; add { "id": "${id}", "type": "promptString", "description": "…" } to its "inputs"`,
    );
  }
  if (declared.default !== undefined) return declared.default;
  const what = declared.description ? ` (${declared.description})` : "";
  throw fail(
    `input "${id}"${what} has no value: set ${inputVariable(id)}, or run on a terminal to be asked for it`,
  );
}

/** VS Code keeps `mcp.json` in the workspace's `.vscode` folder: the workspace is the folder above it. */
function workspaceFolder(configDir: string): string {
  return path.basename(configDir) === ".vscode" ? path.dirname(configDir) : configDir;
}
