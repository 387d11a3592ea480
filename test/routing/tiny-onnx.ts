// Tiny ONNX models and a BERT-style WordPiece tokenizer.json, written by the tests themselves (nothing is
// downloaded, no binary is checked in): the ONNX protobuf (onnx.proto3, the few messages a graph needs) is
// encoded here by hand. Each vocabulary word gets a vector the test chooses, so a test knows which tool a
// query must reach.
//
// - embedding model: inputs input_ids and attention_mask [batch, seq] (int64); output last_hidden_state
//   [batch, seq, dim] = Gather(table, input_ids): each token's chosen vector (the code under test must
//   mean-pool it with the attention mask and normalize).
// - reranker (a cross-encoder's shape): inputs input_ids, attention_mask, token_type_ids; output logits
//   [batch, 1] = the squared length of the sum of the tokens' vectors: large when the query's words and
//   the tool's words point the same way.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Vocabulary words and their vectors (all of one length); special tokens ([PAD], [UNK], [CLS], [SEP])
 * get zeros unless given here.
 */
export type WordVectors = Record<string, readonly number[]>;

const SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] as const;

/**
 * Write `model.onnx` and `tokenizer.json` of a tiny embedding model into `folder`; returns `folder`.
 * `extraInputs` are int64 inputs the graph declares and never reads (as a model exported with
 * `position_ids` would).
 */
export function writeTinyEmbeddingModel(
  folder: string,
  words: WordVectors,
  extraInputs: string[] = [],
): string {
  const { vocab, table, dim } = vocabulary(words);
  const graph = {
    name: "tiny-embedding",
    nodes: [node("Gather", ["table", "input_ids"], ["last_hidden_state"])],
    initializers: [floatTensor("table", [vocab.length, dim], table)],
    inputs: ["input_ids", "attention_mask", ...extraInputs].map((name) =>
      valueInfo(name, INT64, ["batch", "seq"]),
    ),
    outputs: [valueInfo("last_hidden_state", FLOAT, ["batch", "seq", dim])],
  };
  return writeModel(folder, graph, vocab);
}

/** Write `model.onnx` and `tokenizer.json` of a tiny cross-encoder into `folder`; returns `folder`. */
export function writeTinyReranker(folder: string, words: WordVectors): string {
  const { vocab, table, dim } = vocabulary(words);
  const graph = {
    name: "tiny-reranker",
    nodes: [
      node("Gather", ["table", "input_ids"], ["vectors"]),
      node("ReduceSum", ["vectors", "seq_axis"], ["summed"], [intAttribute("keepdims", 0)]),
      node(
        "ReduceSumSquare",
        ["summed"],
        ["logits"],
        [intsAttribute("axes", [1]), intAttribute("keepdims", 1)],
      ),
    ],
    initializers: [floatTensor("table", [vocab.length, dim], table), int64Tensor("seq_axis", [1], [1])],
    inputs: [
      valueInfo("input_ids", INT64, ["batch", "seq"]),
      valueInfo("attention_mask", INT64, ["batch", "seq"]),
      valueInfo("token_type_ids", INT64, ["batch", "seq"]),
    ],
    outputs: [valueInfo("logits", FLOAT, ["batch", 1])],
  };
  return writeModel(folder, graph, vocab);
}

/** The tokenizer.json of a lowercasing BERT WordPiece tokenizer over these words ([CLS] a [SEP] b [SEP]). */
export function bertTokenizerJson(vocab: readonly string[]): unknown {
  const special = (content: string) => ({
    id: vocab.indexOf(content),
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const token = (id: string, type_id: number) => ({ SpecialToken: { id, type_id } });
  const sequence = (id: string, type_id: number) => ({ Sequence: { id, type_id } });
  const ids = (content: string) => ({ id: content, ids: [vocab.indexOf(content)], tokens: [content] });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map(special),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [token("[CLS]", 0), sequence("A", 0), token("[SEP]", 0)],
      pair: [token("[CLS]", 0), sequence("A", 0), token("[SEP]", 0), sequence("B", 1), token("[SEP]", 1)],
      special_tokens: { "[CLS]": ids("[CLS]"), "[SEP]": ids("[SEP]") },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((word, id) => [word, id])),
    },
  };
}

function vocabulary(words: WordVectors): { vocab: string[]; table: number[]; dim: number } {
  const special = new Set<string>(SPECIAL);
  const entries = Object.entries(words).filter(([word]) => !special.has(word));
  const dim = Object.values(words)[0]?.length ?? 1;
  const vocab = [...SPECIAL, ...entries.map(([word]) => word.toLowerCase())];
  const table = [
    ...SPECIAL.flatMap((token) => words[token] ?? Array<number>(dim).fill(0)),
    ...entries.flatMap(([, vector]) => vector),
  ];
  return { vocab, table, dim };
}

interface Graph {
  name: string;
  nodes: Uint8Array[];
  initializers: Uint8Array[];
  inputs: Uint8Array[];
  outputs: Uint8Array[];
}

function writeModel(folder: string, graph: Graph, vocab: readonly string[]): string {
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "model.onnx"), modelProto(graph));
  writeFileSync(path.join(folder, "tokenizer.json"), JSON.stringify(bertTokenizerJson(vocab)));
  return folder;
}

// ---- protobuf, the wire format: varints, and length-delimited fields ----

const FLOAT = 1;
const INT64 = 7;

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = BigInt.asUintN(64, BigInt(value));
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return bytes;
}

function intField(field: number, value: number): number[] {
  return [...varint(field << 3), ...varint(value)];
}

function bytesField(field: number, bytes: Uint8Array | readonly number[]): number[] {
  return [...varint((field << 3) | 2), ...varint(bytes.length), ...bytes];
}

function stringField(field: number, text: string): number[] {
  return bytesField(field, new TextEncoder().encode(text));
}

function message(...parts: number[][]): Uint8Array {
  return Uint8Array.from(parts.flat());
}

// ---- onnx.proto messages ----

function modelProto(graph: Graph): Uint8Array {
  const graphProto = message(
    ...graph.nodes.map((n) => bytesField(1, n)),
    stringField(2, graph.name),
    ...graph.initializers.map((t) => bytesField(5, t)),
    ...graph.inputs.map((v) => bytesField(11, v)),
    ...graph.outputs.map((v) => bytesField(12, v)),
  );
  return message(
    intField(1, 7), // ir_version 7 (opset 13's)
    stringField(2, "switchyard-tests"), // producer_name
    bytesField(7, graphProto),
    bytesField(8, message(stringField(1, ""), intField(2, 13))), // opset_import: ai.onnx 13
  );
}

function node(
  opType: string,
  inputs: string[],
  outputs: string[],
  attributes: Uint8Array[] = [],
): Uint8Array {
  return message(
    ...inputs.map((name) => stringField(1, name)),
    ...outputs.map((name) => stringField(2, name)),
    stringField(3, `${opType}_${outputs[0]}`),
    stringField(4, opType),
    ...attributes.map((a) => bytesField(5, a)),
  );
}

function intAttribute(name: string, value: number): Uint8Array {
  return message(stringField(1, name), intField(3, value), intField(20, 2)); // type INT
}

function intsAttribute(name: string, values: number[]): Uint8Array {
  return message(stringField(1, name), ...values.map((v) => intField(8, v)), intField(20, 7)); // type INTS
}

function floatTensor(name: string, dims: number[], values: readonly number[]): Uint8Array {
  const raw = new Uint8Array(Float32Array.from(values).buffer);
  return message(
    ...dims.map((d) => intField(1, d)),
    intField(2, FLOAT),
    stringField(8, name),
    bytesField(9, raw),
  );
}

function int64Tensor(name: string, dims: number[], values: readonly number[]): Uint8Array {
  const raw = new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer);
  return message(
    ...dims.map((d) => intField(1, d)),
    intField(2, INT64),
    stringField(8, name),
    bytesField(9, raw),
  );
}

function valueInfo(name: string, elemType: number, shape: ReadonlyArray<string | number>): Uint8Array {
  const dims = shape.map((d) =>
    bytesField(1, message(typeof d === "number" ? intField(1, d) : stringField(2, d))),
  );
  const tensorType = message(intField(1, elemType), bytesField(2, message(...dims)));
  return message(stringField(1, name), bytesField(2, message(bytesField(1, tensorType))));
}
