// What the router's public methods are given, checked where it comes in: a value of the wrong shape is an
// `INVALID_INPUT` naming the method, the argument and what it takes, not a TypeError from deep inside the
// ranking. Only shapes are checked (a few `typeof`s per call); a ranking costs the same.

import { SwitchyardError } from "../errors.js";
import type { Conversation } from "./conversation.js";
import type { RoutingQuery } from "./query.js";
import type { ToolDescriptor } from "./tool-descriptor.js";

/** The fields of a tool that are strings when given. */
const OPTIONAL_TEXT_FIELDS = ["title", "description", "serverTitle", "serverDescription"] as const;

/** A value as an error message shows it: its kind, and a short value. */
export function shown(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  return typeof value === "object" ? "an object" : String(value);
}

function invalid(where: string, message: string): SwitchyardError {
  return new SwitchyardError("INVALID_INPUT", `${where}: ${message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/**
 * Tools given to the router: an array of `{ id, server, name }`, `id` and `name` non-empty strings,
 * `server` a string (left out where the tools are given for one server).
 * @throws SwitchyardError `INVALID_INPUT` naming the first bad tool by its place and id.
 */
export function checkTools(
  tools: unknown,
  where: string,
  options: { server: boolean },
): asserts tools is readonly ToolDescriptor[] {
  if (!Array.isArray(tools))
    throw invalid(
      where,
      `tools must be an array of { id, server, name, description?, inputSchema? } (got ${shown(tools)})`,
    );
  tools.forEach((tool: unknown, i) => {
    if (!isObject(tool))
      throw invalid(where, `tools[${i}] must be an object { id, server, name, … } (got ${shown(tool)})`);
    const which = typeof tool.id === "string" && tool.id !== "" ? ` (${tool.id})` : "";
    for (const key of ["id", "name"] as const)
      if (typeof tool[key] !== "string" || tool[key] === "")
        throw invalid(
          where,
          `tools[${i}]${which}.${key} must be a non-empty string (got ${shown(tool[key])})`,
        );
    // An offline set's tools may all be of one unnamed server ("").
    if (options.server && typeof tool.server !== "string")
      throw invalid(where, `tools[${i}]${which}.server must be a string (got ${shown(tool.server)})`);
    for (const key of OPTIONAL_TEXT_FIELDS)
      if (tool[key] !== undefined && typeof tool[key] !== "string")
        throw invalid(where, `tools[${i}]${which}.${key} must be a string (got ${shown(tool[key])})`);
  });
}

/**
 * The name of a server whose tools are replaced: a string (an offline set's may be "").
 * @throws SwitchyardError `INVALID_INPUT`.
 */
export function checkServerName(server: unknown, where: string): void {
  if (typeof server !== "string")
    throw invalid(where, `server must be the server's name, a string (got ${shown(server)})`);
}

/**
 * A query to rank: a string, or a {@link RoutingQuery} (`{ text, context?, needs? }`).
 * @throws SwitchyardError `INVALID_INPUT` saying what a query is.
 */
export function checkQuery(query: unknown, where: string): asserts query is string | RoutingQuery {
  if (typeof query === "string") return;
  const what =
    "a string, or { text, context?: [{ text, weight }], needs?: [strings] }; for a conversation use select()";
  if (!isObject(query) || typeof query.text !== "string")
    throw invalid(where, `query must be ${what} (got ${describeObject(query, "text")})`);
  const { context, needs } = query;
  if (
    context !== undefined &&
    !(
      Array.isArray(context) &&
      context.every(
        (part) => isObject(part) && typeof part.text === "string" && typeof part.weight === "number",
      )
    )
  )
    throw invalid(
      where,
      `query.context must be an array of { text: string, weight: number } (got ${shown(context)})`,
    );
  if (needs !== undefined && !isStringArray(needs))
    throw invalid(where, `query.needs must be an array of strings (got ${shown(needs)})`);
}

/**
 * A conversation to select tools for: `{ latestUserMessage, earlierUserMessages?, otherMessages?,
 * usedToolNames?, needs? }`.
 * @throws SwitchyardError `INVALID_INPUT` saying what a conversation is.
 */
export function checkConversation(
  conversation: unknown,
  where: string,
): asserts conversation is Conversation {
  if (!isObject(conversation) || typeof conversation.latestUserMessage !== "string")
    throw invalid(
      where,
      `conversation must be { latestUserMessage: string, earlierUserMessages?, otherMessages?, usedToolNames?, needs? } (got ${describeObject(conversation, "latestUserMessage")}); to rank a plain request use rank()`,
    );
  for (const key of ["earlierUserMessages", "otherMessages", "usedToolNames", "needs"] as const)
    if (conversation[key] !== undefined && !isStringArray(conversation[key]))
      throw invalid(
        where,
        `conversation.${key} must be an array of strings (got ${shown(conversation[key])})`,
      );
}

/** An object missing its main key is shown as such; anything else as itself. */
function describeObject(value: unknown, key: string): string {
  if (!isObject(value)) return shown(value);
  return value[key] === undefined ? `an object without ${key}` : `${key}: ${shown(value[key])}`;
}

/**
 * A count option: a whole number, at least `min` (`topK` 1, `offerAllUpTo` 0), or absent.
 * @throws SwitchyardError `INVALID_INPUT` naming the option.
 */
export function checkCount(value: unknown, name: string, where: string, min: 0 | 1): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min)
    throw invalid(
      where,
      `${name} must be a whole number ${min === 1 ? "above 0" : "of 0 or more"} (got ${shown(value)})`,
    );
}

/**
 * Tool ids to pin: an array of strings, or absent.
 * @throws SwitchyardError `INVALID_INPUT` naming the option.
 */
export function checkPinned(value: unknown, where: string): void {
  if (value !== undefined && !isStringArray(value))
    throw invalid(where, `pinned must be an array of tool ids (strings) (got ${shown(value)})`);
}

/**
 * The signal of a ranking: absent, or an `AbortSignal` that has not fired.
 * @throws SwitchyardError `INVALID_INPUT` for a value that is no `AbortSignal`; `CANCELLED` (with the
 *   signal's reason as `cause`) when it has already fired: nothing is ranked.
 */
export function checkSignal(signal: unknown, where: string): void {
  if (signal === undefined) return;
  if (!(signal instanceof AbortSignal))
    throw invalid(where, `signal must be an AbortSignal (got ${shown(signal)})`);
  if (signal.aborted)
    throw new SwitchyardError("CANCELLED", `${where}: cancelled before it started (the signal had fired)`, {
      cause: signal.reason,
    });
}

/**
 * Options given as an object, or absent.
 * @throws SwitchyardError `INVALID_INPUT`.
 */
export function checkOptions(options: unknown, where: string): void {
  if (options !== undefined && !isObject(options))
    throw invalid(where, `options must be an object (got ${shown(options)})`);
}
