import { CALL_PRIORITIES, quotedList } from "../config/vocabulary.js";
import { SwitchyardError } from "../errors.js";
import { checkIdentity } from "./identity.js";
import type { RequestInput } from "./request.js";

// What cannot be a request is refused first, with a coded error, never a `TypeError`: nothing is
// recorded of it (there is nothing to name), nothing is sent.

/** What a request is asked for, as its record and messages name it: a tool's or prompt's name, a URI. */
export function labelOf(input: RequestInput): string {
  if (typeof input !== "object" || input === null) return "";
  switch (input.kind) {
    case "tool":
    case "prompt":
      return String(input.name ?? "");
    case "complete":
      return input.ref?.type === "ref/prompt" ? String(input.ref.name ?? "") : String(input.ref?.uri ?? "");
    case "skills":
      return "skills/list";
    default:
      return String(input.uri ?? "");
  }
}

/** The refusal of a request that cannot be one, or undefined for one that can. */
export function checkRequestInput(input: RequestInput): SwitchyardError | undefined {
  try {
    checkTarget(input);
    checkOptions(input);
    return undefined;
  } catch (error) {
    return error as SwitchyardError;
  }
}

/**
 * The options of a public method, as an object to spread into a request.
 * @throws SwitchyardError `INVALID_INPUT` for anything but an object.
 */
export function optionsObject<T extends object>(options: T | undefined, what: string): T {
  if (options === undefined) return {} as T;
  if (options === null || typeof options !== "object")
    throw new SwitchyardError("INVALID_INPUT", `${what} must be an object (got ${describe(options)})`);
  return options;
}

function checkTarget(input: RequestInput): void {
  switch (input.kind) {
    case "tool":
      if (typeof input.name !== "string" || input.name === "")
        throw new SwitchyardError(
          "INVALID_INPUT",
          `a tool name must be a non-empty string (got ${describe(input.name)}); list the tools to see the names`,
        );
      return;
    case "prompt":
      if (typeof input.name !== "string" || input.name === "")
        throw new SwitchyardError("INVALID_INPUT", "getPrompt needs a prompt name (a non-empty string)");
      return;
    case "complete": {
      const ref = input.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      const named =
        ref?.type === "ref/prompt" ? ref.name : ref?.type === "ref/resource" ? ref.uri : undefined;
      if (typeof named !== "string" || named === "")
        throw new SwitchyardError(
          "INVALID_INPUT",
          'a completion needs a ref: { type: "ref/prompt", name } or { type: "ref/resource", uri } (a URI template)',
        );
      return;
    }
    case "resource":
    case "subscribe":
    case "unsubscribe":
      if (typeof input.uri !== "string" || input.uri === "")
        throw new SwitchyardError("INVALID_INPUT", "a resource URI must be a non-empty string");
      if (input.server !== undefined && typeof input.server !== "string")
        throw new SwitchyardError(
          "INVALID_INPUT",
          `server must be a server's name (got ${describe(input.server)})`,
        );
      return;
    case "skills":
    case "skill":
      if (typeof input.server !== "string" || input.server === "")
        throw new SwitchyardError(
          "INVALID_INPUT",
          `${input.kind === "skills" ? "skills/list" : "skills/get"} needs the server's name (got ${describe(input.server)})`,
        );
      if (input.kind === "skill" && (typeof input.uri !== "string" || input.uri === ""))
        throw new SwitchyardError("INVALID_INPUT", "skills/get needs the URI of a skill's SKILL.md");
      return;
    default:
      throw new SwitchyardError(
        "INVALID_INPUT",
        `a request's kind must be tool, resource, subscribe, unsubscribe, prompt, complete, skills or skill (got ${describe((input as { kind?: unknown })?.kind)})`,
      );
  }
}

function checkOptions(input: RequestInput): void {
  const name = labelOf(input);
  const { timeoutMs, signal, identity, priority } = input;
  if (identity !== undefined)
    checkIdentity(identity, `${input.kind === "tool" ? "callTool" : input.kind} ${name}`);
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === "number" && timeoutMs > 0 && Number.isFinite(timeoutMs))
  )
    throw new SwitchyardError(
      "INVALID_INPUT",
      `timeoutMs for ${name} must be a number of milliseconds above 0 (got ${describe(timeoutMs)})`,
      input.kind === "tool" ? { tool: name } : {},
    );
  if (priority !== undefined && !CALL_PRIORITIES.includes(priority))
    throw new SwitchyardError(
      "INVALID_INPUT",
      `priority for ${name} must be ${quotedList(CALL_PRIORITIES)} (got ${describe(priority)})`,
      input.kind === "tool" ? { tool: name } : {},
    );
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new SwitchyardError(
      "INVALID_INPUT",
      `signal for ${name} must be an AbortSignal (got ${describe(signal)})`,
      input.kind === "tool" ? { tool: name } : {},
    );
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `"${value}"`;
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  return typeof value;
}
