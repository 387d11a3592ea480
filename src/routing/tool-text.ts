import { ServerGroups } from "./server-groups.js";
import type { ToolDescriptor } from "./tool-descriptor.js";

/** The fields of a tool's text; each is indexed separately and weighted (BM25F). */
export const TOOL_FIELDS = ["name", "server", "serverDescription", "description", "params", "enums"] as const;

/** One field of a tool's text. */
export type ToolField = (typeof TOOL_FIELDS)[number];

/** A tool's text, field by field. */
export type ToolText = Record<ToolField, string>;

/** How deep into nested object and array schemas parameter names are collected. */
const MAX_SCHEMA_DEPTH = 6;
/** Most characters of schema text kept per field: a giant schema must not drown its own description. */
const MAX_SCHEMA_TEXT_CHARS = 4_000;

/**
 * The text of a tool, field by field: its name and title, its server's name, title and description,
 * its description, its parameters (names and descriptions, nested ones included) and the values they
 * take (enum, const and the schema's examples).
 * Identifiers are left whole here; the tokenizer splits them into words.
 */
export function toolText(tool: ToolDescriptor): ToolText {
  const params: string[] = [];
  const enums: string[] = [];
  collectSchema(tool.inputSchema, { params, enums }, 0);
  return {
    name: join([tool.name, tool.title]),
    server: join([tool.server, tool.serverTitle]),
    serverDescription: tool.serverDescription ?? "",
    description: tool.description ?? "",
    params: join(params).slice(0, MAX_SCHEMA_TEXT_CHARS),
    enums: join(enums).slice(0, MAX_SCHEMA_TEXT_CHARS),
  };
}

/** The whole text of a tool in one string, for embedding models; stable, so it can key a cache. */
export function toolTextForEmbedding(tool: ToolDescriptor): string {
  const text = toolText(tool);
  return join([
    `${text.name} (${text.server})`,
    text.description,
    text.params && `Parameters: ${text.params}`,
    text.enums && `Values: ${text.enums}`,
  ]);
}

/**
 * Each tool's text for a model ({@link toolTextForEmbedding}), kept server by server as the servers'
 * tools change: what an embedding strategy embeds and a reranker reads.
 */
export class ModelTexts {
  readonly #texts = new Map<string, string>();
  readonly #servers = new ServerGroups();

  /**
   * A server's tools now (none: it is gone); returns the ids it had before, whose texts were replaced
   * or dropped (what was made of them is stale).
   */
  setServerTools(server: string, tools: readonly ToolDescriptor[]): readonly string[] {
    const previous = this.#servers.replace(
      server,
      tools.map((tool) => tool.id),
    );
    for (const id of previous) this.#texts.delete(id);
    for (const tool of tools) this.#texts.set(tool.id, toolTextForEmbedding(tool));
    return previous;
  }

  get(id: string): string | undefined {
    return this.#texts.get(id);
  }

  has(id: string): boolean {
    return this.#texts.has(id);
  }

  /** Every tool's id, in the order the tools came. */
  ids(): IterableIterator<string> {
    return this.#texts.keys();
  }
}

function join(parts: ReadonlyArray<string | undefined>): string {
  return parts.filter((part) => part !== undefined && part.length > 0).join("\n");
}

function collectSchema(schema: unknown, into: { params: string[]; enums: string[] }, depth: number): void {
  if (!isObject(schema) || depth > MAX_SCHEMA_DEPTH) return;
  // The values a parameter takes: its enum, its const, and the examples its schema gives.
  for (const values of [schema.enum, schema.examples, [schema.const]])
    if (Array.isArray(values))
      for (const value of values)
        if (typeof value === "string" || typeof value === "number") into.enums.push(String(value));
  if (isObject(schema.properties)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      into.params.push(name);
      if (isObject(property) && typeof property.description === "string")
        into.params.push(property.description);
      if (isObject(property) && typeof property.title === "string") into.params.push(property.title);
      collectSchema(property, into, depth + 1);
    }
  }
  for (const key of ["items", "additionalProperties"]) collectSchema(schema[key], into, depth + 1);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const options = schema[key];
    if (Array.isArray(options)) for (const option of options) collectSchema(option, into, depth + 1);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
