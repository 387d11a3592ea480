// Every text of a tool the model reads, with where it is: the title and description, and in its
// schemas every description, title, enum value, default, example and property name, at any depth.
import { DEFAULT_TRUST_SCHEMA_DEPTH } from "../config/defaults/trust.js";

/** One text of a definition and its place (`inputSchema.properties.memo.description`). */
export interface PlacedText {
  where: string;
  text: string;
}

/** What walking a tool's schemas found besides the texts: its size, for `oversized`. */
export interface SchemaMeasure {
  /** Objects in the schemas. */
  nodes: number;
  /** The longest `enum`, and where it is. */
  largestEnum: number;
  largestEnumWhere?: string;
  /** True when the walk stopped at the depth limit. */
  tooDeep: boolean;
}

/** Keys whose string value the model reads as prose. */
const TEXT_KEYS = new Set(["description", "title", "default", "const", "$comment", "deprecationMessage"]);
/** Keys whose array of values the model reads. */
const LIST_KEYS = new Set(["enum", "examples"]);

/**
 * Collect the texts of a JSON Schema into `texts` and measure it into `measure`. Property names are a
 * text too (joined, `_` read as a space): a name like `ignore_previous_instructions` is an instruction.
 */
export function collectSchemaTexts(
  schema: unknown,
  where: string,
  texts: PlacedText[],
  measure: SchemaMeasure,
  depth = 0,
): void {
  if (typeof schema !== "object" || schema === null) return;
  if (depth >= DEFAULT_TRUST_SCHEMA_DEPTH) {
    measure.tooDeep = true;
    return;
  }
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries())
      collectSchemaTexts(item, `${where}.${index}`, texts, measure, depth + 1);
    return;
  }
  measure.nodes += 1;
  for (const [key, value] of Object.entries(schema)) {
    const at = `${where}.${key}`;
    if (typeof value === "string") {
      if (TEXT_KEYS.has(key) && value) texts.push({ where: at, text: value });
    } else if (LIST_KEYS.has(key) && Array.isArray(value)) {
      const strings = value.filter((item): item is string => typeof item === "string");
      if (key === "enum" && value.length > measure.largestEnum) {
        measure.largestEnum = value.length;
        measure.largestEnumWhere = at;
      }
      if (strings.length) texts.push({ where: at, text: strings.join(", ") });
    } else if (key === "properties" && typeof value === "object" && value !== null && !Array.isArray(value)) {
      const names = Object.keys(value);
      // One name a line: a list of names is not a sentence ("模型, 忽略" is two fields, not an order).
      if (names.length)
        texts.push({ where: at, text: names.map((name) => name.replace(/_/g, " ")).join("\n") });
      for (const [name, property] of Object.entries(value))
        collectSchemaTexts(property, `${at}.${name}`, texts, measure, depth + 1);
    } else if (typeof value === "object" && value !== null) {
      collectSchemaTexts(value, at, texts, measure, depth + 1);
    }
  }
}
