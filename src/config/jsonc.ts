import type { ParseError } from "jsonc-parser";
import { lazyRequire } from "../lazy-require.js";

type JsoncParser = typeof import("jsonc-parser");
type ErrorName = ReturnType<JsoncParser["printParseErrorCode"]>;

const loadJsoncParser = lazyRequire<JsoncParser>("jsonc-parser");

/** What each of the parser's error codes means, said as what the file needs at that place. */
const PROBLEMS: Record<ErrorName, string> = {
  InvalidSymbol: "unexpected text",
  InvalidNumberFormat: "not a valid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":" after the property name',
  CommaExpected: 'expected "," before this entry',
  CloseBraceExpected: 'expected "}" to close the object',
  CloseBracketExpected: 'expected "]" to close the array',
  EndOfFileExpected: "expected the end of the file after the value",
  InvalidCommentToken: "a comment is not allowed here",
  UnexpectedEndOfComment: 'comment never closed ("/*" without "*/")',
  UnexpectedEndOfString: 'string never closed (a missing ")',
  UnexpectedEndOfNumber: "number cut short",
  InvalidUnicode: 'invalid "\\u" escape (it takes four hex digits)',
  InvalidEscapeCharacter: 'invalid escape in a string (write a backslash as "\\\\")',
  InvalidCharacter: 'control character in a string (write a tab as "\\t", a line break as "\\n")',
  "<unknown ParseErrorCode>": "not valid here",
};

/** What the parser may report right after text it cannot read, as what belonged in its place. */
const EXPECTED_INSTEAD: ReadonlySet<ErrorName> = new Set(["PropertyNameExpected", "ValueExpected"]);

/** The longest stretch of unexpected text quoted back in a problem. */
const MAX_QUOTED_CHARS = 40;

/** A JSON text's value, or where (1-based line and column) and what its first fault is. */
export type JsoncResult =
  | { ok: true; value: unknown }
  | { ok: false; line: number; column: number; problem: string };

/**
 * Parse JSON as VS Code and Cursor read their config files (JSONC): comments (`//`, `/* *\/`) and
 * trailing commas allowed. Loads `jsonc-parser` on first use. Never throws: a broken text is a result.
 */
export function parseJsonc(text: string): JsoncResult {
  const { parse, printParseErrorCode } = loadJsoncParser();
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, allowEmptyContent: false });
  const [first, next] = errors;
  if (!first) return { ok: true, value };
  const name = (error: ParseError) => printParseErrorCode(error.error);
  let problem = PROBLEMS[name(first)];
  if (name(first) === "InvalidSymbol") {
    // The parser reports text it cannot read, then what it expected in its place: say both at once.
    const end = first.offset + first.length;
    const instead =
      next && EXPECTED_INSTEAD.has(name(next)) && text.slice(end, next.offset).trim() === ""
        ? PROBLEMS[name(next)]
        : problem;
    const got = text.slice(first.offset, Math.min(end, first.offset + MAX_QUOTED_CHARS));
    problem = `${instead} (got ${JSON.stringify(got)})`;
  }
  const lines = text.slice(0, first.offset).split(/\r\n?|\n/);
  return { ok: false, line: lines.length, column: lines.at(-1)!.length + 1, problem };
}
