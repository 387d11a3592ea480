// Config files: found, read (JSON with comments, or YAML) and resolved (resolve.ts); and the inputs a file
// asks for that nothing answers yet.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { SwitchyardError } from "../errors.js";
import { parseYaml } from "../lazy-require.js";
import { type ConfigInput, inputVariable, usedInputs } from "./interpolate.js";
import { parseJsonc } from "./jsonc.js";
import { resolveConfig } from "./resolve.js";
import { DEFAULT_CONFIG_FILES, inputsSchema, type SwitchyardConfig } from "./sections/config-file.js";

// Once defined here; re-exported for the old import path.
export { type ResolveOptions, resolveConfig } from "./resolve.js";
export { DEFAULT_CONFIG_FILES } from "./sections/config-file.js";

/**
 * Read, parse and resolve a config file (JSON with comments and trailing commas allowed, or YAML by
 * extension); relative paths resolve against its folder.
 * @throws SwitchyardError `CONFIG_INVALID` when the file is missing, unparsable or invalid.
 */
export function loadConfigFile(
  file: string,
  env?: Record<string, string | undefined>,
  options: { inputs?: Readonly<Record<string, string>> } = {},
): SwitchyardConfig {
  const absolute = path.resolve(file);
  const raw = readConfigFile(absolute);
  try {
    return resolveConfig(raw, {
      baseDir: path.dirname(absolute),
      ...(env ? { env } : {}),
      ...(options.inputs ? { inputs: options.inputs } : {}),
    });
  } catch (error) {
    if (error instanceof SwitchyardError) {
      throw new SwitchyardError(error.code, `${path.basename(absolute)}: ${error.message}`, {
        ...(error.path !== undefined ? { path: error.path } : {}),
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * The inputs (`${input:id}`) a config file uses that nothing answers yet — neither `SWITCHYARD_INPUT_<ID>`
 * nor a default — for a program to ask the user before loading it.
 * @throws SwitchyardError `CONFIG_INVALID` when the file is missing or unparsable.
 */
export function pendingConfigInputs(
  file: string,
  env: Record<string, string | undefined> = process.env,
): ConfigInput[] {
  const raw = readConfigFile(path.resolve(file));
  if (typeof raw !== "object" || raw === null) return [];
  const { inputs, ...rest } = raw as Record<string, unknown>;
  const parsed = inputsSchema.safeParse(inputs ?? []);
  const declared = new Map((parsed.success ? parsed.data : []).map((entry) => [entry.id, entry]));
  return [...usedInputs(rest)]
    .filter((id) => env[inputVariable(id)] === undefined && declared.get(id)?.default === undefined)
    .map((id) => {
      const entry = declared.get(id);
      return {
        id,
        ...(entry?.description !== undefined ? { description: entry.description } : {}),
        ...(entry?.password !== undefined ? { password: entry.password } : {}),
      };
    });
}

/**
 * A config file's data as written: parsed (JSON with comments, or YAML), nothing filled in or checked.
 * @throws SwitchyardError `CONFIG_INVALID` when the file cannot be read or parsed.
 */
export function readConfigFile(absolute: string): unknown {
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (cause) {
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `cannot read config file ${absolute}: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  if (/\.ya?ml$/i.test(absolute)) {
    try {
      return parseYaml(text);
    } catch (cause) {
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `${absolute} is not valid YAML: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
  }
  const parsed = parseJsonc(text);
  if (parsed.ok) return parsed.value;
  throw new SwitchyardError(
    "CONFIG_INVALID",
    `${absolute} is not valid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.problem}`,
  );
}

/**
 * Find the config file: the explicit path, else `$SWITCHYARD_CONFIG`, else the default names in `cwd`.
 * @throws SwitchyardError `CONFIG_INVALID` when none is found, saying how to give one.
 */
export function findConfigFile(explicit: string | undefined, cwd = process.cwd()): string {
  const named = explicit ?? process.env.SWITCHYARD_CONFIG;
  if (named) {
    const absolute = path.resolve(cwd, named);
    if (!existsSync(absolute))
      throw new SwitchyardError("CONFIG_INVALID", `config file not found: ${absolute}`);
    return absolute;
  }
  for (const name of DEFAULT_CONFIG_FILES) {
    const candidate = path.join(cwd, name);
    if (existsSync(candidate)) return candidate;
  }
  throw new SwitchyardError(
    "CONFIG_INVALID",
    `no config file: pass --config <file>, set SWITCHYARD_CONFIG, or create ${DEFAULT_CONFIG_FILES[0]} in ${cwd}`,
  );
}

/** Whether `config` is already resolved (a {@link SwitchyardConfig}) rather than a config file's shape. */
export function isResolvedConfig(config: unknown): config is SwitchyardConfig {
  return (
    typeof config === "object" &&
    config !== null &&
    Array.isArray((config as SwitchyardConfig).servers) &&
    typeof (config as SwitchyardConfig).baseDir === "string"
  );
}
