import { SwitchyardError } from "../errors.js";

const PLACEHOLDER = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replace `${NAME}` and `${NAME:-default}` in every string of a parsed config; `$$` is a literal `$`.
 * Object keys are left alone. Returns a new value; the input is not changed.
 * @throws SwitchyardError `CONFIG_INVALID` naming the variable and where it was used, when it is unset and has no default.
 */
export function interpolateEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  at: string[] = [],
): unknown {
  if (typeof value === "string") return interpolateString(value, env, at);
  if (Array.isArray(value))
    return value.map((item, index) => interpolateEnv(item, env, [...at, String(index)]));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateEnv(item, env, [...at, key])]),
    );
  }
  return value;
}

function interpolateString(text: string, env: Record<string, string | undefined>, at: string[]): string {
  return text.replace(PLACEHOLDER, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === "$$") return "$";
    const found = env[name!];
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    if (found !== undefined) return found;
    const where = at.join(".");
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `${where}: environment variable ${name} is not set; set it, or write \${${name}:-default}`,
      { path: where },
    );
  });
}
