// Tool schemas are checked by the Ajv the MCP SDK bundles; the `ajv` package's 2020-12 engine is loaded
// only for a schema that uses a keyword the classic engine does not know, and then enforces it. Each case
// runs in a fresh process, on the module itself (src/, through tsx), where nothing else could have loaded
// the package.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { NODE, ROOT } from "../helpers.js";

const run = promisify(execFile);

interface Outcome {
  results: { ok: boolean; fields?: string[]; problems?: string[] }[];
  loaded: boolean;
}

async function check(schema: object, ...args: unknown[]): Promise<Outcome> {
  const script = `
    import { createRequire } from "node:module";
    const { validateArguments } = await import(${JSON.stringify(`${ROOT}src/calls/validate.ts`)});
    const schema = ${JSON.stringify(schema)};
    const results = ${JSON.stringify(args)}.map((args) => validateArguments(schema, args));
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("/node_modules/ajv/"));
    console.log(JSON.stringify({ results, loaded }));
  `;
  const { stdout } = await run(NODE, ["--import", "tsx/esm", "--input-type=module", "-e", script], {
    cwd: ROOT,
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split("\n").pop()!) as Outcome;
}

describe("JSON Schema engines", () => {
  it("checks a draft-07 schema without loading the ajv package, naming the field", async () => {
    const outcome = await check(
      {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { n: { type: "integer", minimum: 1 } },
        required: ["n"],
      },
      { n: 3 },
      { n: 0 },
      {},
    );
    expect(outcome.results.map((result) => result.ok)).toEqual([true, false, false]);
    expect(outcome.results[1]!.fields).toEqual(["n"]);
    expect(outcome.results[2]!.fields).toEqual(["n"]);
    expect(outcome.loaded).toBe(false);
  });

  it("checks a 2020-12 schema with $defs and $ref on the same engine", async () => {
    const outcome = await check(
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { color: { $ref: "#/$defs/color" } },
        $defs: { color: { enum: ["red", "green"] } },
      },
      { color: "red" },
      { color: "blue" },
    );
    expect(outcome.results.map((result) => result.ok)).toEqual([true, false]);
    expect(outcome.results[1]!.problems?.join(" ")).toMatch(/color/);
    expect(outcome.loaded).toBe(false);
  });

  it.each([
    [
      "prefixItems",
      {
        type: "object",
        properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] } },
      },
      { pair: ["a", 1] },
      { pair: ["a", "b"] },
    ],
    [
      "unevaluatedProperties",
      {
        type: "object",
        allOf: [{ properties: { a: { type: "string" } } }],
        unevaluatedProperties: false,
      },
      { a: "x" },
      { a: "x", b: 1 },
    ],
    [
      "dependentRequired",
      {
        type: "object",
        properties: { card: { type: "string" }, cvv: { type: "string" } },
        dependentRequired: { card: ["cvv"] },
      },
      { card: "4111", cvv: "123" },
      { card: "4111" },
    ],
  ])(
    "enforces %s, a keyword only 2019-09/2020-12 know, by loading the 2020-12 engine",
    async (_, schema, good, bad) => {
      const outcome = await check(schema, good, bad);
      expect(outcome.results.map((result) => result.ok)).toEqual([true, false]);
      expect(outcome.loaded).toBe(true);
    },
  );

  it("does not enforce a schema no engine can compile", async () => {
    const outcome = await check({ type: "object", properties: { n: { type: 12 } } }, { n: "anything" });
    expect(outcome.results[0]!.ok).toBe(true);
  });
});
