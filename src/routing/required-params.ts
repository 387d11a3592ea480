// A mild penalty for tools whose required parameters the request gives nothing for: a request naming
// neither a file nor a path is less likely to be for `move_file(source, destination)` than for a tool it
// can fill. Judged by words and by kinds of values, never by asking a model.
import type { Tokenize } from "./tokenizer.js";
import type { ToolDescriptor } from "./tool-descriptor.js";

/** What a required parameter needs from a request to be filled. */
interface Need {
  /** Terms of its name, title and description: a request using one of them speaks of it. */
  terms: ReadonlySet<string>;
  /** Its values are numbers (or dates): a request with a digit can fill it. */
  numeric: boolean;
  /** Its allowed values' terms, when it has an enum: a request naming one fills it. */
  values: ReadonlySet<string>;
}

const NUMERIC_TYPES = new Set(["number", "integer"]);
const NUMERIC_FORMATS = /date|time|duration/;
const DIGIT = /\p{N}/u;

/**
 * The required parameters of every tool, as needs, and the penalty for the ones a request leaves
 * unfilled: the score is multiplied by `1 − weight × unfilled / required`.
 */
export class RequiredParams {
  readonly #needs = new Map<string, readonly Need[]>();
  readonly #tokenize: Tokenize;
  readonly #weight: number;

  constructor(tokenize: Tokenize, weight: number) {
    this.#tokenize = tokenize;
    this.#weight = weight;
  }

  add(tool: ToolDescriptor): void {
    const needs = needsOf(tool, this.#tokenize);
    if (needs.length) this.#needs.set(tool.id, needs);
    else this.#needs.delete(tool.id);
  }

  remove(id: string): void {
    this.#needs.delete(id);
  }

  /**
   * The factor (≤ 1) for a tool given a request's terms and whether its text holds a digit: 1 when
   * every required parameter is filled (or there are none).
   */
  factor(id: string, terms: ReadonlySet<string>, hasDigit: boolean): number {
    const needs = this.#needs.get(id);
    if (!needs || this.#weight <= 0) return 1;
    let unfilled = 0;
    for (const need of needs) if (!filled(need, terms, hasDigit)) unfilled += 1;
    return 1 - (this.#weight * unfilled) / needs.length;
  }

  /** True when the text holds a digit (a number, a date, an id). */
  static hasDigit(text: string): boolean {
    return DIGIT.test(text);
  }
}

function filled(need: Need, terms: ReadonlySet<string>, hasDigit: boolean): boolean {
  if (need.numeric && hasDigit) return true;
  for (const term of need.terms) if (terms.has(term)) return true;
  for (const value of need.values) if (terms.has(value)) return true;
  return false;
}

function needsOf(tool: ToolDescriptor, tokenize: Tokenize): Need[] {
  const schema = tool.inputSchema;
  if (!isObject(schema) || !Array.isArray(schema.required) || !isObject(schema.properties)) return [];
  const properties = schema.properties;
  const needs: Need[] = [];
  for (const name of schema.required) {
    if (typeof name !== "string") continue;
    const property = isObject(properties[name]) ? properties[name] : {};
    const text = [name, property.title, property.description].filter((part) => typeof part === "string");
    const type = property.type;
    const format = typeof property.format === "string" ? property.format : "";
    const values = Array.isArray(property.enum)
      ? property.enum.flatMap((value) => (typeof value === "string" ? tokenize(value) : []))
      : [];
    needs.push({
      terms: new Set(tokenize(text.join("\n"))),
      numeric:
        (typeof type === "string" && NUMERIC_TYPES.has(type)) ||
        (Array.isArray(type) && type.some((t) => NUMERIC_TYPES.has(t))) ||
        NUMERIC_FORMATS.test(format),
      values: new Set(values),
    });
  }
  return needs;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
