import { DEFAULT_READ_RESULT_CHARS } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import type { ModelTool } from "../models/model.js";
import type { TokenCounter } from "./tokens.js";

export { DEFAULT_READ_RESULT_CHARS } from "../config/defaults.js";

/** The name of the built-in tool that reads stored results. */
export const READ_RESULT_TOOL_NAME = "read_result";

/** One tool result kept whole for a conversation, behind a handle. */
export interface StoredResult {
  /** The handle the model is given (`r1`, `r2`, …): unique within its {@link ResultHandles}. */
  readonly id: string;
  /** The catalog name of the tool that answered. */
  readonly tool: string;
  /** The result's full text. */
  readonly text: string;
}

/** What `read_result` is asked for. */
export interface ReadResultArgs {
  handle: string;
  /** Character offset into the result (or into the value `path` picks); default 0. */
  offset?: number;
  /** Characters to return; default (and at most) the reader's page size. */
  limit?: number;
  /** A JSON path into the result: `$.items[3].name`, `items.3.name` or `items[3]["a b"]`. */
  path?: string;
}

/** How large one `read_result` page may be. */
export interface PageLimits {
  /** Characters; default {@link DEFAULT_READ_RESULT_CHARS}. */
  chars?: number;
  /** Tokens, counted with `counter` (a page is shortened until it fits). */
  tokens?: number;
  counter?: TokenCounter;
}

/**
 * Tool results kept whole, each behind a short handle, for the life of a conversation: the model is
 * shown a shaped view plus the handle, and reads the rest with `read_result` ({@link READ_RESULT_TOOL}).
 */
export class ResultHandles {
  readonly #results = new Map<string, StoredResult>();
  readonly #parsed = new Map<string, unknown>();
  #issued = 0;

  get size(): number {
    return this.#results.size;
  }

  /** A new handle, for a result that may be stored under it ({@link store}); unused ones are never reissued. */
  reserve(): string {
    this.#issued += 1;
    return `r${this.#issued}`;
  }

  /** Keep `text` (the full result of `tool`) under `id` (one from {@link reserve}; default a new one). */
  store(tool: string, text: string, id = this.reserve()): StoredResult {
    const result: StoredResult = { id, tool, text };
    this.#results.set(result.id, result);
    this.#parsed.delete(result.id);
    return result;
  }

  get(id: string): StoredResult | undefined {
    return this.#results.get(id);
  }

  /** Every stored result, oldest first. */
  list(): StoredResult[] {
    return [...this.#results.values()];
  }

  /**
   * One page of a stored result (of the value `path` picks in it, when given), at most `pageChars`
   * characters, opened by a line that says which characters these are and where the next page starts.
   * @throws SwitchyardError `INVALID_ARGUMENTS` for an unknown handle, a path into a result that is not
   *   JSON, or a path that does not exist (the message names the handles, or the keys that do exist).
   */
  read(args: ReadResultArgs, limits: PageLimits = {}): string {
    const pageChars = limits.chars ?? DEFAULT_READ_RESULT_CHARS;
    const stored = this.#results.get(args.handle);
    if (!stored) {
      const known = this.list().map((result) => `${result.id} (${result.tool})`);
      throw new SwitchyardError(
        "INVALID_ARGUMENTS",
        `read_result: no stored result "${args.handle}"; ${known.length ? `the handles are ${known.join(", ")}` : "no result is stored"}`,
      );
    }
    let text = stored.text;
    let what = `${stored.id} (${stored.tool})`;
    if (args.path !== undefined && args.path.trim() !== "" && args.path.trim() !== "$") {
      const value = pick(this.#json(stored), args.path, stored.id);
      text = typeof value === "string" ? value : JSON.stringify(value, null, 1);
      what += ` at ${args.path}`;
    }
    const offset = Math.max(0, Math.floor(args.offset ?? 0));
    const limit = Math.max(1, Math.min(Math.floor(args.limit ?? pageChars), pageChars));
    if (offset >= text.length && text.length > 0) {
      return `[${what}: offset ${offset} is past its end (${text.length} characters)]`;
    }
    let end = Math.min(text.length, offset + limit);
    const { tokens, counter } = limits;
    if (tokens !== undefined && counter) {
      // Leave room for the page's opening line (about 30 tokens).
      while (end - offset > 1 && counter.countUpTo(text.slice(offset, end), tokens - 40) > tokens - 40) {
        end = offset + Math.floor((end - offset) * 0.8);
      }
    }
    const next = end < text.length ? `; next page: offset ${end}` : "; this is the end";
    return `[${what}: characters ${offset}–${end} of ${text.length}${next}]\n${text.slice(offset, end)}`;
  }

  #json(stored: StoredResult): unknown {
    if (this.#parsed.has(stored.id)) return this.#parsed.get(stored.id);
    let value: unknown;
    try {
      value = JSON.parse(stored.text);
    } catch {
      throw new SwitchyardError(
        "INVALID_ARGUMENTS",
        `read_result: ${stored.id} (${stored.tool}) is not JSON, so it has no path; page through it with offset and limit instead`,
      );
    }
    this.#parsed.set(stored.id, value);
    return value;
  }
}

/** What a shaped view's notes say about reading the rest: the handle, and how to call `read_result`. */
export function readMoreHint(id: string): string {
  return `the whole result is stored as handle "${id}": call ${READ_RESULT_TOOL_NAME} with {"handle": "${id}"} and an offset (characters), or a JSON path such as "$.items[0]", to read what was left out`;
}

/** The built-in `read_result` tool, as the model is offered it. */
export const READ_RESULT_TOOL: ModelTool = Object.freeze({
  name: READ_RESULT_TOOL_NAME,
  description:
    "Read a tool result that was too large to show whole: its shaped view ended with a handle. Give the " +
    "handle and either an offset (characters) to page through the text, or a JSON path (for example " +
    '"$.items[3].name") to pick one value of a JSON result.',
  parameters: {
    type: "object",
    properties: {
      handle: { type: "string", description: 'The handle the shaped result named, e.g. "r1".' },
      offset: { type: "integer", minimum: 0, description: "Character to start at; default 0." },
      limit: { type: "integer", minimum: 1, description: "Characters to return; default one page." },
      path: {
        type: "string",
        description: 'A JSON path into the result, e.g. "$.items[3].name" or "items.3.name".',
      },
    },
    required: ["handle"],
    additionalProperties: false,
  },
});

/** The steps of a JSON path: `$.a.b[3]["c d"]`, `a.b.3`, `a[3].b`. */
export function parseJsonPath(path: string): Array<string | number> {
  const steps: Array<string | number> = [];
  let rest = path.trim();
  if (rest.startsWith("$")) rest = rest.slice(1);
  const step = /^(?:\.?([^.[\]]+)|\[\s*(\d+)\s*\]|\[\s*(["'])((?:(?!\3).)*)\3\s*\])/;
  while (rest !== "") {
    const match = step.exec(rest);
    if (!match) {
      throw new SwitchyardError(
        "INVALID_ARGUMENTS",
        `read_result: cannot read the path "${path}" at "${rest}"; write it as $.items[3].name or items.3.name`,
      );
    }
    if (match[1] !== undefined) steps.push(/^\d+$/.test(match[1]) ? Number(match[1]) : match[1]);
    else if (match[2] !== undefined) steps.push(Number(match[2]));
    else steps.push(match[4]!);
    rest = rest.slice(match[0].length);
  }
  return steps;
}

function pick(value: unknown, path: string, id: string): unknown {
  let current = value;
  const walked: string[] = ["$"];
  for (const step of parseJsonPath(path)) {
    const here = walked.join("");
    if (Array.isArray(current)) {
      const index = typeof step === "number" ? step : Number.NaN;
      if (!(index >= 0 && index < current.length)) {
        throw new SwitchyardError(
          "INVALID_ARGUMENTS",
          `read_result: ${here} in ${id} is an array of ${current.length} items; "${step}" is not an index of it`,
        );
      }
      current = current[index];
      walked.push(`[${index}]`);
    } else if (typeof current === "object" && current !== null && String(step) in current) {
      current = (current as Record<string, unknown>)[String(step)];
      walked.push(`.${step}`);
    } else {
      const keys =
        typeof current === "object" && current !== null
          ? `its keys are ${Object.keys(current).slice(0, 30).join(", ") || "none"}`
          : `it is ${current === null ? "null" : typeof current}`;
      throw new SwitchyardError(
        "INVALID_ARGUMENTS",
        `read_result: ${here} in ${id} has no "${step}"; ${keys}`,
      );
    }
  }
  return current;
}
