import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfigFile } from "../../src/config/load.js";
import { createStrategy } from "../../src/routing/create-strategy.js";
import { routerOptionsFromConfig } from "../../src/routing/from-config.js";
import { LocalEmbedder } from "../../src/routing/local-embedder.js";
import type { RoutingStrategy } from "../../src/routing/strategy.js";
import type { ToolDescriptor } from "../../src/routing/tool-descriptor.js";
import { failureOf, NODE, ROOT, runCli } from "../helpers.js";
import { writeTinyEmbeddingModel, writeTinyReranker } from "./tiny-onnx.js";

const tool = (server: string, name: string, description: string): ToolDescriptor => ({
  id: `${server}_${name}`,
  server,
  name,
  description,
  inputSchema: { type: "object", properties: {} },
});

const TOOLS = [
  tool("rentals", "rent_car", "Hire a car"),
  tool("rentals", "rent_bike", "Rent a bicycle: rent by the hour, rent for the day"),
  tool("travel", "book_flight", "Book a plane ticket"),
  tool("notes", "write_note", "Write a note"),
];

/** The embedding model's words: "automobile" lies near "car", "plane" near "flight"; no tool says "automobile". */
const EMBEDDING_WORDS = {
  car: [1, 0, 0],
  automobile: [0.9, 0.1, 0],
  plane: [0, 1, 0],
  flight: [0, 0.9, 0.1],
  note: [0, 0, 1],
};
/** A model that gets it wrong: "automobile" near "bicycle", so hybrid ranking alone puts the bike first. */
const MISLEADING_WORDS = { bicycle: [1, 0, 0], automobile: [0.9, 0.1, 0], car: [0, 0, 1] };
/** The reranker's: "automobile" with "car" adds up, with "bicycle" cancels out. */
const RERANKER_WORDS = { automobile: [1, 0], car: [1, 0], bicycle: [-1, 0] };

let dir: string;
let embeddingModel: string;
let misleadingModel: string;
let reranker: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-onnx-"));
  embeddingModel = writeTinyEmbeddingModel(path.join(dir, "models", "embed"), EMBEDDING_WORDS);
  misleadingModel = writeTinyEmbeddingModel(path.join(dir, "models", "misleading"), MISLEADING_WORDS);
  reranker = writeTinyReranker(path.join(dir, "models", "rerank"), RERANKER_WORDS);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ranked(strategy: RoutingStrategy, text: string, limit = 4): Promise<string[]> {
  for (const server of new Set(TOOLS.map((t) => t.server)))
    strategy.setServerTools(
      server,
      TOOLS.filter((t) => t.server === server),
    );
  return (await strategy.rank({ text }, { limit })).map((hit) => hit.id);
}

describe("local ONNX embedding model", () => {
  it("ranks by the model's vectors where no word is shared; lexical finds nothing", async () => {
    expect(await ranked(createStrategy({ strategy: "lexical" }), "an automobile please")).toEqual([]);
    const embedding = createStrategy({ strategy: "embedding", embeddings: { path: embeddingModel } });
    expect((await ranked(embedding, "an automobile please")).slice(0, 1)).toEqual(["rentals_rent_car"]);
    expect((await ranked(embedding, "by plane")).slice(0, 1)).toEqual(["travel_book_flight"]);
  });

  it("gives unit vectors, the mean over real tokens (not padding), cached: a text is run once", async () => {
    // [PAD] has a vector of its own here: pooling that counted the padding would tilt short texts to it.
    const padded = writeTinyEmbeddingModel(path.join(dir, "models", "padded"), {
      ...EMBEDDING_WORDS,
      "[PAD]": [0, 0, 5],
    });
    const embedder = new LocalEmbedder({ path: padded });
    const [car, automobile, both] = await embedder.embed(["car", "Automobile", "car car plane"]);
    expect(Array.from(car!)).toEqual([1, 0, 0]);
    expect(Math.hypot(...automobile!)).toBeCloseTo(1, 5);
    // ([CLS], car, car, plane, [SEP]) averaged: (2, 1, 0) / 5, normalized.
    expect(Array.from(both!).map((x) => +x.toFixed(4))).toEqual([0.8944, 0.4472, 0]);
    const again = await embedder.embed(["car"]);
    expect(again[0]).toBe(car);
  });

  it("is used by hybrid and by two-stage's tool stage", async () => {
    const hybrid = createStrategy({ strategy: "hybrid", embeddings: { path: embeddingModel } });
    expect(hybrid.name).toBe("hybrid(lexical+embedding)");
    expect((await ranked(hybrid, "an automobile please")).slice(0, 1)).toEqual(["rentals_rent_car"]);
    const twoStage = createStrategy({ strategy: "two-stage", embeddings: { path: embeddingModel } });
    expect(twoStage.name).toBe("two-stage(hybrid(lexical+embedding))");
    expect((await ranked(twoStage, "an automobile please")).slice(0, 1)).toEqual(["rentals_rent_car"]);
  });
});

describe("local ONNX reranker", () => {
  it("reorders the strategy's best tools by the cross-encoder's score", async () => {
    const query = "rent an automobile";
    // Lexically, "rent" three times beats "rent" once in a name.
    expect((await ranked(createStrategy({ strategy: "two-stage" }), query)).slice(0, 2)).toEqual([
      "rentals_rent_bike",
      "rentals_rent_car",
    ]);
    const reranked = createStrategy({ strategy: "two-stage", reranker: { path: reranker } });
    expect(reranked.name).toBe("two-stage(lexical)+rerank");
    expect((await ranked(reranked, query)).slice(0, 2)).toEqual(["rentals_rent_car", "rentals_rent_bike"]);
    // Over a hybrid ranking that puts the bike first (lexical and a misleading model agree), the reranker
    // still puts the car first.
    const misled = createStrategy({ strategy: "hybrid", embeddings: { path: misleadingModel } });
    expect((await ranked(misled, query)).slice(0, 2)).toEqual(["rentals_rent_bike", "rentals_rent_car"]);
    const hybrid = createStrategy({
      strategy: "hybrid",
      embeddings: { path: misleadingModel },
      reranker: { path: reranker, depth: 2 },
    });
    expect(hybrid.name).toBe("hybrid(lexical+embedding)+rerank");
    expect((await ranked(hybrid, query)).slice(0, 2)).toEqual(["rentals_rent_car", "rentals_rent_bike"]);
  });

  it("keeps the strategy's order, through onError, when the model cannot be loaded", async () => {
    const broken = path.join(dir, "models", "broken-rerank");
    writeTinyReranker(broken, RERANKER_WORDS);
    writeFileSync(path.join(broken, "model.onnx"), "not a model");
    const errors: string[] = [];
    const strategy = createStrategy({
      strategy: "two-stage",
      reranker: { path: broken },
      onError: (error, name) => errors.push(`${name}: ${(error as Error).message}`),
    });
    expect((await ranked(strategy, "rent an automobile")).slice(0, 1)).toEqual(["rentals_rent_bike"]);
    expect(errors).toEqual([expect.stringContaining("is not an ONNX model onnxruntime can load")]);
  });
});

describe("switchyard route eval with local models", () => {
  it("measures a local embedding model and a reranker (--embeddings-path, --reranker)", async () => {
    const tools = path.join(dir, "tools.json");
    const queries = path.join(dir, "queries.jsonl");
    writeFileSync(tools, JSON.stringify(TOOLS));
    writeFileSync(
      queries,
      [
        { id: "q1", query: "an automobile please", expected_groups: [["rentals_rent_car"]] },
        { id: "q2", query: "rent an automobile", expected_groups: [["rentals_rent_car"]] },
      ]
        .map((line) => JSON.stringify(line))
        .join("\n"),
    );
    const evaluate = async (...flags: string[]) => {
      const result = await runCli([
        "--json",
        "route",
        "eval",
        "--tools",
        tools,
        "--queries",
        queries,
        ...flags,
      ]);
      expect(result.stderr).toBe("");
      return JSON.parse(result.stdout) as { recallAt1: number };
    };
    expect((await evaluate("--strategy", "embedding", "--embeddings-path", embeddingModel)).recallAt1).toBe(
      1,
    );
    expect((await evaluate("--strategy", "two-stage", "--reranker", reranker)).recallAt1).toBe(0.5);
  }, 120_000);
});

describe("local model config", () => {
  it("takes paths relative to the config file, for the embedding model and the reranker", async () => {
    const file = path.join(dir, "switchyard.json");
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {},
        routing: {
          strategy: "hybrid",
          embeddings: { path: "./models/misleading" },
          reranker: { path: "models/rerank/model.onnx", depth: 5 },
        },
      }),
    );
    const config = loadConfigFile(file);
    expect(config.routing?.embeddings?.path).toBe(misleadingModel);
    const strategy = routerOptionsFromConfig(config.routing).strategy!;
    expect(strategy.name).toBe("hybrid(lexical+embedding)+rerank");
    // Both models ran from the config's relative paths: the misleading one alone puts the bike first
    // (tested above), so the car first is the reranker's doing.
    const errors: unknown[] = [];
    const watched = routerOptionsFromConfig(config.routing, (error) => errors.push(error)).strategy!;
    expect((await ranked(watched, "rent an automobile")).slice(0, 1)).toEqual(["rentals_rent_car"]);
    expect(errors).toEqual([]);
  });

  it("names the key and the path of a missing model, at once", () => {
    const missing = path.join(dir, "models", "nowhere");
    const error = (() => {
      try {
        createStrategy({ strategy: "embedding", embeddings: { path: missing } });
      } catch (caught) {
        return caught as { code: string; path: string; message: string };
      }
      throw new Error("expected a failure");
    })();
    expect(error).toMatchObject({ code: "CONFIG_INVALID", path: "routing.embeddings.path" });
    expect(error.message).toContain(missing);
    const noTokenizer = path.join(dir, "models", "no-tokenizer");
    mkdirSync(noTokenizer, { recursive: true });
    writeFileSync(path.join(noTokenizer, "model.onnx"), "");
    expect(() => createStrategy({ reranker: { path: noTokenizer } })).toThrow(
      /routing\.reranker\.path: no tokenizer\.json in .*no-tokenizer/,
    );
  });

  it("says a broken model is not one onnxruntime can load, naming the file", async () => {
    const broken = path.join(dir, "models", "broken-embed");
    writeTinyEmbeddingModel(broken, EMBEDDING_WORDS);
    writeFileSync(path.join(broken, "model.onnx"), Buffer.from([0x08, 0x07, 0xff, 0xff]));
    const strategy = createStrategy({ strategy: "embedding", embeddings: { path: broken } });
    const error = await failureOf(ranked(strategy, "car"));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain(
      `${path.join(broken, "model.onnx")} is not an ONNX model onnxruntime can load`,
    );
  });

  it("says which inputs a model takes that it would not be given", async () => {
    const positions = writeTinyEmbeddingModel(path.join(dir, "models", "positions"), EMBEDDING_WORDS, [
      "position_ids",
    ]);
    const strategy = createStrategy({ strategy: "embedding", embeddings: { path: positions } });
    const error = await failureOf(ranked(strategy, "car"));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain(
      "model.onnx takes position_ids; a text model here is given only input_ids, attention_mask, token_type_ids",
    );
  });

  it("refuses an embeddings section with both a path and an endpoint, or with neither", () => {
    const write = (embeddings: object) => {
      const file = path.join(dir, "both.json");
      writeFileSync(file, JSON.stringify({ mcpServers: {}, routing: { embeddings } }));
      return () => loadConfigFile(file);
    };
    expect(write({ path: "./models/embed", baseURL: "http://127.0.0.1:1/v1", model: "m" })).toThrow(
      /routing\.embeddings.*either "path".*or "baseURL" and "model"/,
    );
    expect(write({ model: "m" })).toThrow(/routing\.embeddings\.baseURL.*or "path" for a local ONNX model/);
  });

  it("imports no ONNX runtime nor the tokenizers when no local model is configured", () => {
    // A child process whose module hook fails any import of the two packages: the routing entry point
    // and every strategy built without a local model must not reach them; with one, they are reached.
    const hook = path.join(dir, "no-onnx-hook.mjs");
    writeFileSync(
      hook,
      `export async function resolve(specifier, context, next) {
        if (/onnxruntime|@huggingface\\/tokenizers/.test(specifier)) throw new Error("imported " + specifier);
        return next(specifier, context);
      }`,
    );
    const register = path.join(dir, "register-hook.mjs");
    writeFileSync(
      register,
      `import { register } from "node:module"; register(${JSON.stringify(`file://${hook}`)});`,
    );
    const script = (local: boolean) => `
      const { createStrategy } = await import(${JSON.stringify(`file://${ROOT}dist/routing/index.js`)});
      await import(${JSON.stringify(`file://${ROOT}dist/index.js`)});
      const embeddings = ${JSON.stringify(local ? { path: embeddingModel } : { baseURL: "http://127.0.0.1:9/v1", model: "m" })};
      for (const strategy of ["lexical", "plain-bm25", "two-stage", "embedding", "hybrid"]) {
        const needs = strategy === "embedding" || strategy === "hybrid";
        const s = createStrategy({ strategy, ...(needs || ${local} ? { embeddings } : {}) });
        s.setServerTools("notes", [{ id: "notes_write", server: "notes", name: "write", description: "Write a note" }]);
        if (${local} || !needs) await s.rank({ text: "note" }, { limit: 1 });
      }
      console.log("ok");`;
    const run = (local: boolean) =>
      spawnSync(NODE, ["--import", register, "--input-type=module", "-e", script(local)], {
        encoding: "utf8",
      });
    const without = run(false);
    expect(without.stderr).toBe("");
    expect(without.stdout.trim()).toBe("ok");
    const withModel = run(true);
    expect(withModel.stderr).toMatch(/imported (onnxruntime-(node|web)|@huggingface\/tokenizers)/);
  }, 120_000);

  it("names the missing packages and the npm command that installs them", () => {
    // The package as a user has it without the optional packages: dist/ and every other dependency,
    // linked into a folder of its own (--preserve-symlinks: resolved from there, not from the repo).
    const app = path.join(dir, "app");
    mkdirSync(path.join(app, "node_modules"), { recursive: true });
    symlinkSync(path.join(ROOT, "dist"), path.join(app, "dist"));
    for (const entry of readdirSync(path.join(ROOT, "node_modules")))
      if (!/^(onnxruntime-node|onnxruntime-web|@huggingface)$/.test(entry))
        symlinkSync(path.join(ROOT, "node_modules", entry), path.join(app, "node_modules", entry));
    const script = `
      const { createStrategy } = await import(${JSON.stringify(`file://${app}/dist/routing/index.js`)});
      try {
        createStrategy({ strategy: "hybrid", embeddings: { path: ${JSON.stringify(embeddingModel)} } });
      } catch (error) {
        console.log(error.code, error.message);
      }`;
    const child = spawnSync(NODE, ["--preserve-symlinks", "--input-type=module", "-e", script], {
      cwd: app,
      encoding: "utf8",
    });
    expect(child.stdout.trim()).toBe(
      "CONFIG_INVALID routing.embeddings.path: a local model needs onnxruntime-web (or onnxruntime-node, native and faster) and @huggingface/tokenizers, optional dependencies: npm install onnxruntime-web@1.31.1 @huggingface/tokenizers@0.2.0",
    );
  }, 120_000);
});
