// Lexical options given as data (`route eval --lexical '<json>'`), checked: a mistyped key or a value of
// the wrong type is an error naming it, not an option silently left at its default — a tuning run that
// measured the default by mistake would say nothing.

import { z } from "zod";
import { closestNames, SwitchyardError } from "../errors.js";
import type { LexicalOptions } from "./strategies/lexical.js";
import { TOOL_FIELDS } from "./tool-text.js";

const share = z.number().min(0).max(1);
const nonNegative = z.number().min(0);
const perField = (value: z.ZodNumber) =>
  z.strictObject(Object.fromEntries(TOOL_FIELDS.map((field) => [field, value.optional()])));

const LEXICAL_OPTIONS = z.strictObject({
  tokenizer: z
    .strictObject({
      stem: z.boolean().optional(),
      stopWords: z.boolean().optional(),
      cjkBigrams: z.boolean().optional(),
      compounds: z.boolean().optional(),
    })
    .optional(),
  fieldWeights: perField(nonNegative).optional(),
  b: z.union([share, perField(share)]).optional(),
  k1: nonNegative.optional(),
  clauseWeight: nonNegative.optional(),
  queryTermCounts: z.enum(["once", "count"]).optional(),
  verbFamilies: z.boolean().optional(),
  verbWordWeight: nonNegative.optional(),
  pathWordWeight: nonNegative.optional(),
  detailWordWeight: nonNegative.optional(),
  objectFamilies: z.boolean().optional(),
  catalogAcronyms: z.boolean().optional(),
  catalogSynonyms: z
    .union([
      z.boolean(),
      z.strictObject({
        minShared: nonNegative.optional(),
        minShare: share.optional(),
        maxWordShare: share.optional(),
        perWord: nonNegative.optional(),
        weight: nonNegative.optional(),
      }),
    ])
    .optional(),
  serverWeight: nonNegative.optional(),
  requiredParamPenalty: share.optional(),
});

/**
 * Lexical options from data, checked.
 * @throws SwitchyardError `CONFIG_INVALID` naming the key (`clauseWeight`, `tokenizer.stem`): an unknown
 *   one with the known key it most likely meant, a value of the wrong type or range with what it takes.
 */
export function parseLexicalOptions(value: unknown): LexicalOptions {
  const result = LEXICAL_OPTIONS.safeParse(value);
  if (result.success) return result.data as LexicalOptions;
  const issue = result.error.issues[0]!;
  const where = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const known = knownKeys(issue.path);
    const near = closestNames(key, known, 1)[0];
    const at = [...issue.path.map(String), key].join(".");
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `${at}: unknown lexical option${near ? ` (did you mean ${near}?)` : ""}; known: ${[...known].join(", ")}`,
      { path: at },
    );
  }
  throw new SwitchyardError("CONFIG_INVALID", `${where || "lexical options"}: ${issue.message}`, {
    path: where,
  });
}

/** The keys the schema knows at a path of the options. */
function knownKeys(path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType = LEXICAL_OPTIONS;
  for (const key of path) {
    const shape = objectShape(schema);
    schema = shape?.[String(key)] ?? schema;
  }
  return Object.keys(objectShape(schema) ?? {});
}

/** The shape of an object schema, through `optional` and unions (their object member). */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  if (schema instanceof z.ZodOptional) return objectShape(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodUnion)
    for (const option of schema.options as z.ZodType[]) {
      const shape = objectShape(option);
      if (shape) return shape;
    }
  return undefined;
}
