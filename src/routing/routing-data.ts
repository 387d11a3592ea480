import { messageOf, oneLine } from "../errors.js";
import type { LabelledQuery } from "./metrics.js";
import type { ToolDescriptor } from "./tool-descriptor.js";

/** The outcome of reading a file: the value, or what is wrong with it (to be reported with the file name). */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * Read an offline catalog, `tools.json` of the routing data README: a JSON array of
 * `{ id, server, name, description, inputSchema, server_title?, server_description? }`, or
 * `{ "tools": [...] }` (as `scan --tools` reads). `id` must be unique; `name` defaults to `id`, `server`
 * to `""`; an empty array is an error. A leading UTF-8 byte order mark is skipped.
 */
export function parseToolsJson(text: string): ParseResult<ToolDescriptor[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutBom(text));
  } catch (error) {
    return { ok: false, problem: `not valid JSON (${oneLine(messageOf(error))})` };
  }
  const data = isObject(parsed) && Array.isArray(parsed.tools) ? parsed.tools : parsed;
  if (!Array.isArray(data))
    return { ok: false, problem: 'expected a JSON array of tools, or { "tools": [...] }' };
  const tools: ToolDescriptor[] = [];
  const seen = new Map<string, number>();
  for (const [index, item] of data.entries()) {
    const where = `tool #${index + 1}`;
    if (!isObject(item)) return { ok: false, problem: `${where}: expected an object` };
    if (typeof item.id !== "string" || item.id === "")
      return { ok: false, problem: `${where}: "id" must be a non-empty string` };
    const first = seen.get(item.id);
    if (first !== undefined)
      return { ok: false, problem: `${where}: duplicate id "${item.id}" (first seen at tool #${first + 1})` };
    seen.set(item.id, index);
    for (const key of ["server", "name", "description", "title", "server_title", "server_description"]) {
      if (item[key] !== undefined && typeof item[key] !== "string")
        return { ok: false, problem: `${where} ("${item.id}"): "${key}" must be a string` };
    }
    if (item.inputSchema !== undefined && !isObject(item.inputSchema))
      return { ok: false, problem: `${where} ("${item.id}"): "inputSchema" must be an object` };
    const tool: ToolDescriptor = {
      id: item.id,
      server: (item.server as string | undefined) ?? "",
      name: (item.name as string | undefined) || item.id,
    };
    if (item.description !== undefined) tool.description = item.description as string;
    if (item.title !== undefined) tool.title = item.title as string;
    if (item.inputSchema !== undefined) tool.inputSchema = item.inputSchema;
    if (item.server_title !== undefined) tool.serverTitle = item.server_title as string;
    if (item.server_description !== undefined) tool.serverDescription = item.server_description as string;
    tools.push(tool);
  }
  if (tools.length === 0) return { ok: false, problem: "no tools (expected a JSON array of tool objects)" };
  return { ok: true, value: tools };
}

/**
 * Read labelled queries, `routing.*.jsonl` of the routing data README: one JSON object per line,
 * `{ id, query, expected_groups }` (or `expected`, each id its own group). Blank lines are skipped; a
 * query without an id is `line-<n>`; two queries of one id are an error.
 */
export function parseQueriesJsonl(text: string): ParseResult<LabelledQuery[]> {
  const queries: LabelledQuery[] = [];
  const seen = new Map<string, number>();
  const lines = withoutBom(text).split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const where = `line ${index + 1}`;
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch (error) {
      return { ok: false, problem: `${where}: not valid JSON (${oneLine(messageOf(error))})` };
    }
    if (!isObject(item)) return { ok: false, problem: `${where}: expected a JSON object` };
    if (typeof item.query !== "string" || item.query.trim() === "")
      return { ok: false, problem: `${where}: "query" must be a non-empty string` };
    const groups =
      item.expected_groups ?? (Array.isArray(item.expected) ? item.expected.map((id) => [id]) : undefined);
    if (!isGroups(groups))
      return {
        ok: false,
        problem: `${where}: "expected_groups" must be a non-empty array of non-empty arrays of tool ids (or give "expected": [ids])`,
      };
    const id =
      typeof item.id === "string" || typeof item.id === "number" ? String(item.id) : `line-${index + 1}`;
    // The rankings file and the misses are keyed by id: two queries of one id could not be told apart.
    const first = seen.get(id);
    if (first !== undefined)
      return { ok: false, problem: `${where}: duplicate id "${id}" (first seen at line ${first})` };
    seen.set(id, index + 1);
    queries.push({ id, query: item.query, expectedGroups: groups });
  }
  if (queries.length === 0) return { ok: false, problem: "no queries (expected one JSON object per line)" };
  return { ok: true, value: queries };
}

/** The text without the byte order mark some editors put first (JSON.parse refuses it). */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function isGroups(value: unknown): value is string[][] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (group) => Array.isArray(group) && group.length > 0 && group.every((id) => typeof id === "string"),
    )
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
