/**
 * The plan's expression form: `{{ path }}` inside strings, where a path starts at `input` or
 * `steps.<id>` and goes on with `.name`, `[0]` or `["key"]`:
 *
 *     {{input.customer_id}}
 *     {{steps.orders.structured.rows[0].product_name}}
 *
 * A string that is exactly one expression takes the value's own type (a number stays a number);
 * inside longer text a value is written as text (objects as JSON). Nothing is evaluated: paths only.
 */

const EXPRESSION = /\{\{\s*([^}]*?)\s*\}\}/g;
const SEGMENT = /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[(?:"([^"]*)"|'([^']*)')\])/;

/** One parsed path: the root name and the keys after it. */
export interface ExpressionPath {
  text: string;
  keys: Array<string | number>;
}

/** A reference that cannot be read; the message says which part is missing. */
export class ExpressionError extends Error {}

/** Parse a path such as `steps.orders.structured.rows[0].name`. @throws ExpressionError when malformed. */
export function parsePath(text: string): ExpressionPath {
  const head = /^[A-Za-z_$][\w$-]*/.exec(text);
  if (!head) throw new ExpressionError(`{{${text}}} must start with "input" or "steps"`);
  const keys: Array<string | number> = [head[0]];
  let rest = text.slice(head[0].length);
  while (rest) {
    const match = SEGMENT.exec(rest);
    if (!match) throw new ExpressionError(`cannot read {{${text}}} at "${rest}": use .name, [0] or ["key"]`);
    keys.push(match[2] !== undefined ? Number(match[2]) : (match[1] ?? match[3] ?? match[4])!);
    rest = rest.slice(match[0].length);
  }
  if (keys[0] !== "input" && keys[0] !== "steps") {
    throw new ExpressionError(`{{${text}}} must start with "input" or "steps"`);
  }
  if (keys[0] === "steps" && typeof keys[1] !== "string") {
    throw new ExpressionError(`{{${text}}} must name a step: steps.<id>…`);
  }
  return { text, keys };
}

/** Every path referenced anywhere in a value (strings inside objects and arrays included). */
export function findPaths(value: unknown): ExpressionPath[] {
  if (typeof value === "string") return [...value.matchAll(EXPRESSION)].map((match) => parsePath(match[1]!));
  if (Array.isArray(value)) return value.flatMap(findPaths);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(findPaths);
  return [];
}

/** Replace every expression in a value, deeply. @throws ExpressionError naming a missing part. */
export function resolveValue(value: unknown, scope: Record<string, unknown>): unknown {
  if (typeof value === "string") return resolveString(value, scope);
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, scope));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveValue(item, scope)]));
  }
  return value;
}

function resolveString(text: string, scope: Record<string, unknown>): unknown {
  const whole = /^\{\{\s*([^}]*?)\s*\}\}$/.exec(text);
  if (whole) return read(parsePath(whole[1]!), scope);
  return text.replace(EXPRESSION, (_match, path: string) => {
    const value = read(parsePath(path), scope);
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

function read(path: ExpressionPath, scope: Record<string, unknown>): unknown {
  let current: unknown = scope;
  let reached = "";
  for (const key of path.keys) {
    const where = reached
      ? typeof key === "number"
        ? `${reached}[${key}]`
        : `${reached}.${key}`
      : String(key);
    if (current === null || typeof current !== "object") {
      throw new ExpressionError(
        `{{${path.text}}}: ${reached} is ${describe(current)}, so it has no ${where.slice(reached.length)}`,
      );
    }
    const next = (current as Record<string | number, unknown>)[key];
    if (next === undefined) {
      const size = Array.isArray(current) ? ` (it has ${current.length} items)` : "";
      throw new ExpressionError(`{{${path.text}}}: ${where} is undefined${size}`);
    }
    current = next;
    reached = where;
  }
  return current;
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}
