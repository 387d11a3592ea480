// A local ONNX model and its tokenizer, as Optimum and Hugging Face export them (model.onnx beside
// tokenizer.json, or onnx/model.onnx under it): run on the CPU by onnxruntime-node (native) when it is
// installed, else by onnxruntime-web (WebAssembly: a third of the download, no install script, any
// platform, slower); tokenized by @huggingface/tokenizers (WordPiece, BPE, Unigram from tokenizer.json).
// All are optional peer dependencies, imported only when a config names a local model.

import { existsSync, readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { DEFAULT_LOCAL_MODEL_MAX_TOKENS } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";

export { DEFAULT_LOCAL_MODEL_MAX_TOKENS } from "../config/defaults.js";

/** The runtimes that run a local model, the first installed one used: native, then WebAssembly. */
const ONNX_RUNTIMES = ["onnxruntime-node", "onnxruntime-web"] as const;
/** What to install for a local model, at the versions tested (optional peer dependencies). */
const LOCAL_MODEL_INSTALL = "npm install onnxruntime-web@1.31.1 @huggingface/tokenizers@0.2.0";

/** Where a local model's files are. */
export interface LocalModelFiles {
  /** The .onnx file. */
  model: string;
  /** Its tokenizer.json. */
  tokenizer: string;
  /** tokenizer_config.json beside it, when there is one. */
  tokenizerConfig?: string;
}

/**
 * The model's files, from its folder (`model.onnx` or `onnx/model.onnx`, and `tokenizer.json`) or its
 * `.onnx` file (`tokenizer.json` beside it or one folder up), and a check that the packages that run it
 * are installed (resolved, not loaded).
 * @throws SwitchyardError `CONFIG_INVALID` naming `key` and the path when a file is missing, or the
 *   packages and the npm command that installs them.
 */
export function locateLocalModel(at: string, key: string): LocalModelFiles {
  const invalid = (message: string) =>
    new SwitchyardError("CONFIG_INVALID", `${key}: ${message}`, { path: key });
  if (!existsSync(at))
    throw invalid(`no such file or folder ${at}; give a local ONNX model's folder or .onnx file`);
  const folder = statSync(at).isDirectory();
  if (!folder && path.extname(at).toLowerCase() !== ".onnx")
    throw invalid(
      `${at} is not an .onnx model file nor a folder holding model.onnx (or onnx/model.onnx); give a local ONNX model's folder or .onnx file`,
    );
  const model = folder
    ? [path.join(at, "model.onnx"), path.join(at, "onnx", "model.onnx")].find((file) => existsSync(file))
    : at;
  if (!model) throw invalid(`${at} has neither model.onnx nor onnx/model.onnx`);
  const near = folder ? [at] : [path.dirname(at), path.dirname(path.dirname(at))];
  const tokenizer = near.map((dir) => path.join(dir, "tokenizer.json")).find((file) => existsSync(file));
  if (!tokenizer) throw invalid(`no tokenizer.json in ${near.join(" or ")} (export it with the model)`);
  const tokenizerConfig = path.join(path.dirname(tokenizer), "tokenizer_config.json");
  const missing = [
    ...(ONNX_RUNTIMES.some(resolvable) ? [] : ["onnxruntime-web (or onnxruntime-node, native and faster)"]),
    ...(resolvable("@huggingface/tokenizers") ? [] : ["@huggingface/tokenizers"]),
  ];
  if (missing.length > 0)
    throw invalid(
      `a local model needs ${missing.join(" and ")}, optional dependencies: ${LOCAL_MODEL_INSTALL}`,
    );
  return { model, tokenizer, ...(existsSync(tokenizerConfig) ? { tokenizerConfig } : {}) };
}

/** The inputs a model is given (BERT's): any other input it takes is a configuration error. */
const MODEL_INPUTS: readonly string[] = ["input_ids", "attention_mask", "token_type_ids"];

/** One text, or a (query, text) pair for a cross-encoder. */
export type ModelInput = string | readonly [string, string];

/** An output tensor: its shape and values (row-major). */
export interface ModelOutput {
  dims: readonly number[];
  data: Float32Array;
}

/** A loaded model: tokenizes a batch of inputs, pads it, and runs it. */
export class OnnxModel {
  readonly #session: OrtSession;
  readonly #ort: OrtModule;
  readonly #tokenizer: HfTokenizer;
  readonly #padId: number;
  readonly #maxTokens: number;

  private constructor(
    ort: OrtModule,
    session: OrtSession,
    tokenizer: HfTokenizer,
    padId: number,
    maxTokens: number,
  ) {
    this.#ort = ort;
    this.#session = session;
    this.#tokenizer = tokenizer;
    this.#padId = padId;
    this.#maxTokens = maxTokens;
  }

  /**
   * Import the runtime (onnxruntime-node, else onnxruntime-web) and @huggingface/tokenizers, read the
   * tokenizer and open the model.
   * @throws SwitchyardError `CONFIG_INVALID` naming `key` and the file that cannot be read or loaded, or
   *   a model that takes inputs other than `input_ids`, `attention_mask` and `token_type_ids`.
   */
  static async load(files: LocalModelFiles, key: string, maxTokens?: number): Promise<OnnxModel> {
    const invalid = (what: string, error: unknown) =>
      new SwitchyardError("CONFIG_INVALID", `${key}: ${what}: ${firstLine(error)}`, {
        path: key,
        cause: error,
      });
    const [ort, tokenizers] = await Promise.all([
      importRuntime(key),
      importPackage<TokenizersModule>("@huggingface/tokenizers", key),
    ]);
    let tokenizer: HfTokenizer;
    let padId: number;
    try {
      const json = JSON.parse(readFileSync(files.tokenizer, "utf8")) as { padding?: { pad_id?: number } };
      const config = files.tokenizerConfig
        ? (JSON.parse(readFileSync(files.tokenizerConfig, "utf8")) as { pad_token?: unknown })
        : {};
      tokenizer = new tokenizers.Tokenizer(json, config);
      const padToken = typeof config.pad_token === "string" ? config.pad_token : "[PAD]";
      padId = json.padding?.pad_id ?? tokenizer.token_to_id(padToken) ?? tokenizer.token_to_id("<pad>") ?? 0;
    } catch (error) {
      throw invalid(`${files.tokenizer} is not a tokenizer.json @huggingface/tokenizers can read`, error);
    }
    let session: OrtSession;
    try {
      // Warnings (unused initializers and the like) would land on a gateway's stderr: errors only.
      session = await ort.InferenceSession.create(await readFile(files.model), { logSeverityLevel: 3 });
    } catch (error) {
      throw invalid(`${files.model} is not an ONNX model onnxruntime can load`, error);
    }
    const unknown = session.inputNames.filter((name) => !MODEL_INPUTS.includes(name));
    if (unknown.length > 0)
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `${key}: ${files.model} takes ${unknown.join(", ")}; a text model here is given only ${MODEL_INPUTS.join(", ")} (export it with those inputs)`,
        { path: key },
      );
    return new OnnxModel(ort, session, tokenizer, padId, maxTokens ?? DEFAULT_LOCAL_MODEL_MAX_TOKENS);
  }

  /**
   * Tokenize the inputs (cut to `maxTokens`), pad them to the longest, run the model, and give its first
   * output named in `prefer` (else its first output) with each row's attention mask.
   */
  async run(
    inputs: readonly ModelInput[],
    prefer: readonly string[],
  ): Promise<{ output: ModelOutput; mask: number[][] }> {
    const encoded = inputs.map((input) => this.#encode(input));
    const length = Math.max(1, ...encoded.map((e) => e.ids.length));
    const tensor = (rows: number[][], pad: number) => {
      const data = new BigInt64Array(rows.length * length).fill(BigInt(pad));
      for (const [r, row] of rows.entries())
        for (const [c, value] of row.entries()) data[r * length + c] = BigInt(value);
      return new this.#ort.Tensor("int64", data, [rows.length, length]);
    };
    const mask = encoded.map((e) => e.attention_mask);
    const all: Record<string, unknown> = {
      input_ids: tensor(
        encoded.map((e) => e.ids),
        this.#padId,
      ),
      attention_mask: tensor(mask, 0),
      token_type_ids: tensor(
        encoded.map((e) => e.token_type_ids ?? []),
        0,
      ),
    };
    const feeds = Object.fromEntries(this.#session.inputNames.map((name) => [name, all[name]]));
    const outputs = await this.#session.run(feeds);
    const name = prefer.find((n) => this.#session.outputNames.includes(n)) ?? this.#session.outputNames[0]!;
    const output = outputs[name]!;
    return { output: { dims: output.dims, data: Float32Array.from(output.data as ArrayLike<number>) }, mask };
  }

  #encode(input: ModelInput) {
    const [text, pair] = typeof input === "string" ? [input, null] : input;
    // Characters well past what the model reads are not tokenized at all.
    const cut = (s: string) => s.slice(0, this.#maxTokens * 16);
    const e = this.#tokenizer.encode(cut(text), {
      text_pair: pair === null ? null : cut(pair),
      return_token_type_ids: true,
    });
    if (e.ids.length <= this.#maxTokens) return e;
    // Keep the first tokens and the closing special one ([SEP], </s>).
    const keep = <T>(values: T[]) => [...values.slice(0, this.#maxTokens - 1), values.at(-1)!];
    return {
      ids: keep(e.ids),
      attention_mask: keep(e.attention_mask),
      ...(e.token_type_ids ? { token_type_ids: keep(e.token_type_ids) } : {}),
    };
  }
}

// The few parts of onnxruntime-node and @huggingface/tokenizers used here: the packages are optional, so
// their types are not imported (a user without them still type-checks).
interface OrtTensor {
  dims: readonly number[];
  data: unknown;
}
interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, OrtTensor>>;
}
interface OrtModule {
  InferenceSession: { create(model: Uint8Array, options: { logSeverityLevel: number }): Promise<OrtSession> };
  env: { wasm?: { numThreads?: number } };
  Tensor: new (type: "int64", data: BigInt64Array, dims: number[]) => OrtTensor;
}
interface HfEncoding {
  ids: number[];
  attention_mask: number[];
  token_type_ids?: number[];
}
interface HfTokenizer {
  encode(text: string, options: { text_pair: string | null; return_token_type_ids: boolean }): HfEncoding;
  token_to_id(token: string): number | undefined;
}
interface TokenizersModule {
  Tokenizer: new (json: unknown, config: unknown) => HfTokenizer;
}

const require = createRequire(import.meta.url);

function resolvable(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** onnxruntime-node when it is installed, else onnxruntime-web (on one thread: no workers in the process). */
async function importRuntime(key: string): Promise<OrtModule> {
  const name = ONNX_RUNTIMES.find(resolvable) ?? ONNX_RUNTIMES[1];
  const ort = await importPackage<OrtModule>(name, key);
  if (name === "onnxruntime-web" && ort.env.wasm) ort.env.wasm.numThreads = 1;
  return ort;
}

async function importPackage<T>(name: string, key: string): Promise<T> {
  try {
    const module = (await import(name)) as { default?: object };
    // onnxruntime-node is CommonJS: its exports are the default export's, some also named.
    return { ...(module.default ?? {}), ...module } as T;
  } catch (error) {
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `${key}: ${name} could not be loaded (${firstLine(error)}): ${LOCAL_MODEL_INSTALL}`,
      { path: key, cause: error },
    );
  }
}

function firstLine(error: unknown): string {
  return String((error as Error | undefined)?.message ?? error).split("\n")[0]!;
}
