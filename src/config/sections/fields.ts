// The field schemas the sections share: lists and maps of strings, counts, regular expressions, each with
// the message a config's author is shown when a value does not fit.

import { z } from "zod";
import { didYouMean } from "../../errors.js";
import { quotedList } from "../vocabulary.js";

/** A list of strings. */
export const stringArray = z.custom<string[]>(
  (value) => Array.isArray(value) && value.every((item) => typeof item === "string"),
  { error: "expected an array of strings" },
);

/** An object whose values are all strings (environment, headers, descriptions). */
export const stringMap = z.custom<Record<string, string>>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === "string"),
  { error: "expected an object of string values" },
);

/** A whole number above 0. */
export const positiveInt = z
  .number({ error: "expected a number" })
  .int("expected a whole number")
  .positive("expected a number above 0");

/** A whole number, 0 or more. */
export const nonNegativeInt = z
  .number({ error: "expected a number" })
  .int("expected a whole number")
  .min(0, "expected 0 or more");

/** Whether a string compiles as a regular expression. */
export function isRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, "iu");
    return true;
  } catch {
    return false;
  }
}

/** A list of regular expressions (compiled case-insensitive, Unicode); the error names the bad ones. */
export const regExpList = stringArray.refine((list) => list.every(isRegExp), {
  error: (issue) =>
    `expected regular expressions; not valid: ${(issue.input as string[])
      .filter((pattern) => !isRegExp(pattern))
      .map((pattern) => JSON.stringify(pattern))
      .join(", ")}`,
});

/** One word of a vocabulary; a near miss is told the word it most likely meant. */
export function oneOf<const T extends readonly [string, ...string[]]>(words: T) {
  return z.enum(words, {
    error: (issue) => {
      const near = typeof issue.input === "string" ? didYouMean(issue.input, words, 1) : "";
      return `expected ${quotedList(words)}${near ? ` (${near})` : ""}`;
    },
  });
}
