// The JSON Schema engines that check tool arguments and results. Most schemas are checked by the Ajv the
// MCP SDK bundles, which every process using the SDK has loaded already: a second copy of Ajv costs
// about 1.5 MB of heap. The SDK exports only Ajv's classic engine, which knows every keyword of
// draft-07 and the ones 2019-09 and 2020-12 kept; a schema that uses a keyword those drafts added is
// checked by the `ajv` package's 2020-12 engine, loaded then.
import { Ajv } from "@modelcontextprotocol/client/validators/ajv";
import { lazyRequire } from "../lazy-require.js";

/** A compiled schema: call it with a value; `errors` says what was wrong after a `false`. */
export type SchemaCheck = ReturnType<InstanceType<typeof Ajv>["compile"]>;
/** One problem the engine found. */
export type SchemaError = NonNullable<SchemaCheck["errors"]>[number];

/**
 * Every error rather than the first; unknown keywords and formats ignored rather than refused (a
 * server's schema is its own business); schemas not checked against the meta-schema (a schema that
 * cannot be compiled is simply not enforced).
 */
const OPTIONS = {
  allErrors: true,
  strict: false,
  logger: false,
  validateFormats: false,
  validateSchema: false,
} as const;

/** Keywords of 2019-09 and 2020-12 that the classic engine does not know (it would ignore them). */
const NEWER_KEYWORDS =
  /"(prefixItems|unevaluatedProperties|unevaluatedItems|dependentRequired|dependentSchemas|minContains|maxContains|\$dynamicRef|\$dynamicAnchor|\$recursiveRef|\$recursiveAnchor)":/;

const ajv2020Module = lazyRequire<typeof import("ajv/dist/2020.js")>("ajv/dist/2020.js");
let classic: InstanceType<typeof Ajv> | undefined;
let draft2020: { compile(schema: object): SchemaCheck } | undefined;

/**
 * Compile a schema (its `$schema` already taken off) with the engine that knows its keywords. Throws
 * what the engine throws for a schema it cannot compile.
 */
export function compileSchema(schema: Record<string, unknown>): SchemaCheck {
  if (NEWER_KEYWORDS.test(JSON.stringify(schema))) {
    draft2020 ??= new (ajv2020Module().Ajv2020)(OPTIONS);
    return draft2020.compile(schema);
  }
  classic ??= new Ajv(OPTIONS);
  return classic.compile(schema);
}
