import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Command } from "commander";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { REWRITE_INSTRUCTIONS } from "../../src/agent/query-rewrite.js";
import { registerRouteCommands } from "../../src/cli/commands/route.js";
import { CommandContext, type GlobalOptions } from "../../src/cli/context.js";
import { exitCodeOf, messageOf } from "../../src/cli/exit-codes.js";
import { createAgent, loadConfigFile, Switchyard } from "../../src/index.js";
import { ScriptedModel, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT, sdk } from "../helpers.js";
import { startEmbeddingsServer } from "./embeddings-server.js";
import { writeTinyEmbeddingModel, writeTinyReranker } from "./tiny-onnx.js";
import { FLEET_TOOLS } from "./tools-fixture.js";

/**
 * Run `switchyard <args>` in this process, wired as main.ts wires it, and collect what it prints.
 * (The built CLI registers these commands too; this keeps the test independent of the build.)
 */
async function switchyard(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cli = new Command("switchyard").option("--config <file>").option("--json").exitOverride();
  let code = 0;
  const run =
    <A extends unknown[]>(command: (ctx: CommandContext, ...rest: A) => Promise<number>) =>
    async (...rest: A) => {
      const ctx = new CommandContext({ ...cli.opts<GlobalOptions>(), logLevel: "silent" });
      try {
        code = await command(ctx, ...rest);
      } finally {
        await ctx.close();
      }
    };
  registerRouteCommands(cli, run);
  let stdout = "";
  let stderr = "";
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((chunk: string) => {
    stdout += chunk;
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => {
    stderr += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    await cli.parseAsync(args, { from: "user" });
  } catch (error) {
    stderr += `switchyard: ${messageOf(error)}\n`;
    code = exitCodeOf(error);
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
  return { code, stdout, stderr };
}

let dir: string;
let toolsFile: string;
let queriesFile: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-route-"));
  toolsFile = path.join(dir, "tools.json");
  queriesFile = path.join(dir, "queries.jsonl");
  const tools = FLEET_TOOLS.map(({ id, server, name, description, inputSchema }) => ({
    id,
    server,
    name,
    description,
    inputSchema,
  }));
  writeFileSync(toolsFile, JSON.stringify(tools));
  const queries = [
    { id: "refund", query: "refund order 7", expected_groups: [["orders_refund_order"]] },
    {
      id: "two",
      query: "Post a message. List open issues.",
      expected_groups: [["slack_post_message"], ["github_list_issues"]],
    },
    {
      id: "chat",
      query: "user: weather in Oslo?\nsystem: sunny\nuser: any severe alerts?",
      expected: ["weather_get_alerts"],
    },
  ];
  writeFileSync(queriesFile, queries.map((query) => JSON.stringify(query)).join("\n"));
});

describe("switchyard route eval", () => {
  it("prints exactly CONTRACT.md's JSON, recall and MRR as fractions, and writes the rankings", async () => {
    const rankings = path.join(dir, "rankings.jsonl");
    const { code, stdout } = await switchyard(
      "--json",
      "route",
      "eval",
      "--tools",
      toolsFile,
      "--queries",
      queriesFile,
      "--top",
      "2",
      "--rankings",
      rankings,
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(result).sort()).toEqual([
      "mrr",
      "msPerQuery",
      "n",
      "recallAt1",
      "recallAt10",
      "recallAt5",
      "serverRecallAt5",
    ]);
    expect(result).toMatchObject({
      n: 3,
      recallAt1: (1 + 0.5 + 1) / 3,
      recallAt5: 1,
      recallAt10: 1,
      mrr: 1,
      serverRecallAt5: 1,
    });
    expect(result.msPerQuery).toBeGreaterThan(0);
    const lines = readFileSync(rankings, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.id)).toEqual(["refund", "two", "chat"]);
    expect(lines[0]).toEqual({ id: "refund", ranked: ["orders_refund_order", expect.any(String)] });
  });

  it("prints percentages in a table, with the strategy and index build time on stderr", async () => {
    const { code, stdout, stderr } = await switchyard(
      "route",
      "eval",
      "--tools",
      toolsFile,
      "--queries",
      queriesFile,
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^QUERIES\s+R@1\s+R@5\s+R@10\s+MRR\s+SERVER R@5\s+MS\/QUERY\n3\s+83\.3\s+100\.0\s+100\.0\s+100\.0\s+100\.0\s+\d+\.\d{3}\n$/,
    );
    expect(stderr).toMatch(/lexical over 14 tools \(index built in \d+ ms\)/);
  });

  it("measures the plain-BM25 reference when asked", async () => {
    const { code, stdout } = await switchyard(
      "--json",
      "route",
      "eval",
      "--tools",
      toolsFile,
      "--queries",
      queriesFile,
      "--strategy",
      "plain-bm25",
    );
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { recallAt1: number }).recallAt1).toBeLessThan(1);
  });

  it("exits 2 naming the file and what is wrong with it", async () => {
    const missing = await switchyard(
      "route",
      "eval",
      "--tools",
      path.join(dir, "nope.json"),
      "--queries",
      queriesFile,
    );
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`cannot read --tools file ${dir}`),
    });
    expect(missing.stderr).toContain("no such file");

    const badLine = path.join(dir, "bad.jsonl");
    writeFileSync(badLine, '{"query":"a","expected":["x"]}\n{"query": oops}\n');
    const bad = await switchyard("route", "eval", "--tools", toolsFile, "--queries", badLine);
    expect(bad).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`--queries file ${badLine}: line 2: not valid JSON`),
    });

    const dup = path.join(dir, "dup.json");
    writeFileSync(dup, '[{"id":"a"},{"id":"a"}]');
    expect(await switchyard("route", "eval", "--tools", dup, "--queries", queriesFile)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('duplicate id "a"'),
    });
    expect(
      await switchyard("route", "eval", "--tools", toolsFile, "--queries", queriesFile, "--top", "0"),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--top must be a positive whole number (got "0")'),
    });
    expect(
      await switchyard(
        "route",
        "eval",
        "--tools",
        toolsFile,
        "--queries",
        queriesFile,
        "--strategy",
        "hybrid",
      ),
    ).toMatchObject({ code: 2, stderr: expect.stringContaining("--embeddings-url and --embeddings-model") });

    const twice = path.join(dir, "twice.jsonl");
    writeFileSync(
      twice,
      '{"id":"q","query":"a","expected":["x"]}\n{"id":"q","query":"b","expected":["x"]}\n',
    );
    expect(await switchyard("route", "eval", "--tools", toolsFile, "--queries", twice)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        `--queries file ${twice}: line 2: duplicate id "q" (first seen at line 1)`,
      ),
    });
    const none = path.join(dir, "none.json");
    writeFileSync(none, "[]");
    expect(await switchyard("route", "eval", "--tools", none, "--queries", queriesFile)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("no tools"),
    });
  });

  it('reads files with a byte order mark, and { "tools": [...] } as scan --tools does; says 1 tool, not 1 tools', async () => {
    const one = [{ id: "kit_echo", server: "kit", name: "echo", description: "Echo the text back" }];
    const bomTools = path.join(dir, "bom-tools.json");
    writeFileSync(bomTools, `\uFEFF${JSON.stringify(one)}`);
    const bomQueries = path.join(dir, "bom-queries.jsonl");
    writeFileSync(bomQueries, '\uFEFF{"id":"q","query":"echo it","expected":["kit_echo"]}\r\n');
    const read = await switchyard("route", "eval", "--tools", bomTools, "--queries", bomQueries);
    expect(read).toMatchObject({ code: 0, stderr: expect.stringMatching(/^lexical over 1 tool \(/) });
    const wrapped = path.join(dir, "wrapped-tools.json");
    writeFileSync(wrapped, JSON.stringify({ tools: one }));
    expect(
      await switchyard("--json", "route", "eval", "--tools", wrapped, "--queries", bomQueries),
    ).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('"recallAt1": 1'),
    });
  });

  it("reports a file it cannot parse, or a directory, in one line that says what to give", async () => {
    const broken = path.join(dir, "broken-tools.json");
    writeFileSync(broken, '[\n{"id": oops\n}\n]');
    const bad = await switchyard("route", "eval", "--tools", broken, "--queries", queriesFile);
    expect(bad).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`--tools file ${broken}: not valid JSON`),
    });
    expect(bad.stderr.trimEnd().split("\n")).toHaveLength(1);
    const brokenLine = path.join(dir, "broken-line.jsonl");
    writeFileSync(brokenLine, '{"query": "a\u0001", "expected": [}\n');
    const line = await switchyard("route", "eval", "--tools", toolsFile, "--queries", brokenLine);
    expect(line).toMatchObject({ code: 2, stderr: expect.stringContaining("line 1: not valid JSON") });
    expect(line.stderr.trimEnd().split("\n")).toHaveLength(1);

    const folder = mkdtempSync(path.join(dir, "folder-"));
    const isDir = (flag: string) =>
      expect.stringContaining(`${flag} file ${folder}: it is a directory; give a file`);
    expect(await switchyard("route", "eval", "--tools", folder, "--queries", queriesFile)).toMatchObject({
      code: 2,
      stderr: isDir("cannot read --tools"),
    });
    expect(await switchyard("route", "eval", "--tools", toolsFile, "--queries", folder)).toMatchObject({
      code: 2,
      stderr: isDir("cannot read --queries"),
    });
    expect(
      await switchyard("route", "eval", "--tools", toolsFile, "--queries", queriesFile, "--rankings", folder),
    ).toMatchObject({ code: 2, stderr: isDir("cannot write --rankings") });
  });

  it("refuses --lexical options it does not know or cannot take, saying which and what was meant", async () => {
    const lexical = (json: string) =>
      switchyard("route", "eval", "--tools", toolsFile, "--queries", queriesFile, "--lexical", json);
    expect(await lexical('{"objectFamiles":false}')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        "--lexical: objectFamiles: unknown lexical option (did you mean objectFamilies?)",
      ),
    });
    expect(await lexical('{"tokenizer":{"stm":false}}')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("tokenizer.stm: unknown lexical option (did you mean stem?)"),
    });
    expect(await lexical('{"objectFamilies":"false"}')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--lexical: objectFamilies: "),
    });
    expect(await lexical('{"clauseWeight":0,"catalogSynonyms":{"minShare":0.5}}')).toMatchObject({ code: 0 });
  });

  it("warns when queries expect tools the tools file does not have, and counts them as misses", async () => {
    const other = path.join(dir, "other.jsonl");
    writeFileSync(other, '{"id":"q","query":"refund","expected":["no_such_tool"]}\n');
    const { code, stdout, stderr } = await switchyard(
      "--json",
      "route",
      "eval",
      "--tools",
      toolsFile,
      "--queries",
      other,
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ recallAt10: 0, mrr: 0 });
    expect(stderr).toContain("1 query expects tools that are not in");
  });
});

describe("route and route eval: the strategy flags", () => {
  const evalWith = (...flags: string[]) =>
    switchyard("--json", "route", "eval", "--tools", toolsFile, "--queries", queriesFile, ...flags);

  it("two-stage uses --embeddings-url and --embeddings-model, as hybrid does", async () => {
    await using server = await startEmbeddingsServer({ money: ["refund", "cash"] });
    const flags = ["--embeddings-url", server.baseURL, "--embeddings-model", "m"];
    const evalText = await switchyard(
      "route",
      "eval",
      "--tools",
      toolsFile,
      "--queries",
      queriesFile,
      "--strategy",
      "two-stage",
      ...flags,
    );
    expect(evalText).toMatchObject({ code: 0, stderr: expect.stringContaining("two-stage(hybrid") });
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((request) => request.model === "m")).toBe(true);

    const config = path.join(dir, "embed-fleet.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { kit: sdk("--tools", "add,echo") } }));
    const asked = server.requests.length;
    const routed = await switchyard(
      "--config",
      config,
      "--json",
      "route",
      "echo the text back",
      "--strategy",
      "two-stage",
      ...flags,
    );
    expect(routed.code).toBe(0);
    expect(server.requests.length).toBeGreaterThan(asked);
  });

  it("names the flag or config key of an endpoint that fails, and what to check; route ranks without it, route eval fails", async () => {
    const closed = await startEmbeddingsServer({});
    const url = closed.baseURL;
    await closed.close();
    const flags = ["--strategy", "hybrid", "--embeddings-url", url, "--embeddings-model", "m"];
    const down = `--embeddings-url: [POST] "${url}/embeddings": fetch failed; check that the endpoint is up and reachable`;
    expect(await evalWith(...flags)).toMatchObject({ code: 1, stderr: expect.stringContaining(down) });
    const config = path.join(dir, "down-fleet.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { kit: sdk("--tools", "add,echo") } }));
    expect(await switchyard("--config", config, "route", "echo it", ...flags)).toMatchObject({
      code: 0,
      stderr: expect.stringContaining(`ranking failed, using the others: ${down}`),
    });
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { kit: sdk("--tools", "add,echo") },
        routing: { strategy: "hybrid", embeddings: { baseURL: url, model: "m" } },
      }),
    );
    expect(await switchyard("--config", config, "route", "echo it")).toMatchObject({
      code: 0,
      stderr: expect.stringContaining(`routing.embeddings.baseURL: [POST] "${url}/embeddings": fetch failed`),
    });
    await using server = await startEmbeddingsServer({});
    server.misbehave({ status: 404 });
    expect(
      await evalWith(
        "--strategy",
        "embedding",
        "--embeddings-url",
        server.baseURL,
        "--embeddings-model",
        "m",
      ),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        'check that the URL is the API root (…/v1, without /embeddings) and that it serves the model "m"',
      ),
    });
  });

  it("refuses embeddings flags that would be ignored, saying what to do (exit 2)", async () => {
    const cases: Array<[string[], string]> = [
      [
        ["--strategy", "hybrid", "--embeddings-url", "http://127.0.0.1:9/v1"],
        "--embeddings-url needs --embeddings-model",
      ],
      [["--strategy", "hybrid", "--embeddings-model", "m"], "--embeddings-model needs --embeddings-url"],
      [
        ["--embeddings-url", "http://127.0.0.1:9/v1", "--embeddings-model", "m"],
        "--embeddings-url is used only by the embedding, hybrid and two-stage strategies, and the strategy here is lexical: add --strategy hybrid",
      ],
      [
        ["--strategy", "plain-bm25", "--embeddings-path", path.join(dir, "nowhere")],
        "--embeddings-path is used only by the embedding, hybrid and two-stage strategies, and the strategy here is plain-bm25",
      ],
      [
        ["--strategy", "hybrid", "--embeddings-path", dir, "--embeddings-url", "http://127.0.0.1:9/v1"],
        "--embeddings-path is a local model and --embeddings-url with --embeddings-model an endpoint: give one or the other",
      ],
      [
        ["--strategy", "embedding", "--embeddings-url", "not-a-url", "--embeddings-model", "m"],
        '--embeddings-url must be an http(s) URL, the endpoint\'s API root such as http://127.0.0.1:11434/v1 (got "not-a-url")',
      ],
    ];
    const config = path.join(dir, "empty-fleet.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    for (const [flags, message] of cases) {
      expect(await evalWith(...flags)).toMatchObject({ code: 2, stderr: expect.stringContaining(message) });
      expect(await switchyard("--config", config, "route", "check stock", ...flags)).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(message),
      });
    }
  });

  it("suggests the strategy a misspelt --strategy meant; --top takes only digits", async () => {
    expect(await evalWith("--strategy", "lexcial")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        '--strategy "lexcial" is not a strategy (did you mean lexical?); use one of',
      ),
    });
    for (const top of ["1e1", "0x10", "5.0", " 5"])
      expect(await evalWith("--top", top)).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(`--top must be a positive whole number (got "${top}")`),
      });
    expect((await evalWith("--top", "10")).code).toBe(0);
  });
});

describe("route and route eval: a local model given by a flag", () => {
  it("fails clearly (CONFIG_INVALID, exit 2, naming the flag) when onnxruntime cannot load it; the config's model only warns, as in the agent", async () => {
    const brokenReranker = writeTinyReranker(path.join(dir, "broken-rerank"), { car: [1, 0] });
    writeFileSync(path.join(brokenReranker, "model.onnx"), "not a model");
    const brokenEmbedder = writeTinyEmbeddingModel(path.join(dir, "broken-embed"), { car: [1, 0, 0] });
    writeFileSync(path.join(brokenEmbedder, "model.onnx"), "not a model");
    const config = path.join(dir, "local-fleet.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { kit: sdk("--tools", "add,echo") } }));
    const route = (...flags: string[]) => switchyard("--config", config, "route", "echo the text", ...flags);
    const routeEval = (...flags: string[]) =>
      switchyard("route", "eval", "--tools", toolsFile, "--queries", queriesFile, ...flags);
    const loadFailure = (flag: string, folder: string) => ({
      code: 2,
      stderr: expect.stringContaining(
        `${flag}: ${path.join(folder, "model.onnx")} is not an ONNX model onnxruntime can load`,
      ),
    });
    for (const run of [route, routeEval]) {
      expect(await run("--reranker", brokenReranker)).toMatchObject(
        loadFailure("--reranker", brokenReranker),
      );
      for (const strategy of ["embedding", "hybrid", "two-stage"])
        expect(await run("--strategy", strategy, "--embeddings-path", brokenEmbedder)).toMatchObject(
          loadFailure("--embeddings-path", brokenEmbedder),
        );
    }
    // The same model from the config: `route` shows what the agent would do, which ranks without it.
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { kit: sdk("--tools", "add,echo") },
        routing: { reranker: { path: brokenReranker } },
      }),
    );
    expect(await route()).toMatchObject({
      code: 0,
      stderr: expect.stringContaining("warning: rerank("),
      stdout: expect.stringContaining("kit_echo"),
    });
  }, 60_000);

  it("names the flag and says what a model is, for a missing path or a file that is not an .onnx model", async () => {
    const notes = path.join(dir, "notes.txt");
    writeFileSync(notes, "remember the milk\n");
    writeFileSync(path.join(dir, "tokenizer.json"), "{}");
    const routeEval = (...flags: string[]) =>
      switchyard("route", "eval", "--tools", toolsFile, "--queries", queriesFile, ...flags);
    expect(await routeEval("--reranker", notes)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        `--reranker: ${notes} is not an .onnx model file nor a folder holding model.onnx (or onnx/model.onnx); give a local ONNX model's folder or .onnx file`,
      ),
    });
    const nowhere = path.join(dir, "nowhere");
    expect(await routeEval("--strategy", "hybrid", "--embeddings-path", nowhere)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`--embeddings-path: no such file or folder ${nowhere}`),
    });
  });
});

describe("switchyard route eval --rewrite", () => {
  it("without a model, says to configure one with what exists: the config's model section or the environment", async () => {
    const config = path.join(dir, "no-model.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "SWITCHYARD_MODEL"]) vi.stubEnv(name, undefined);
    try {
      const args = ["route", "eval", "--tools", toolsFile, "--queries", queriesFile, "--rewrite"];
      const result = await switchyard("--config", config, ...args);
      expect(result).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('no model is configured: add a "model" section to the config'),
      });
      expect(result.stderr).not.toContain("--model");
      writeFileSync(config, JSON.stringify({ mcpServers: {}, model: { baseURL: "http://127.0.0.1:9/v1" } }));
      const unnamed = await switchyard("--config", config, ...args);
      expect(unnamed).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('set SWITCHYARD_MODEL or "model.name" in the config'),
      });
      expect(unnamed.stderr).not.toContain("--model");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("measures again with the config's model's tool needs, raw figures first, both in text and --json", async () => {
    const model = await startScriptedOpenAIServer((request) => {
      const asked = String(request.messages[1]?.content ?? "");
      if (request.messages[0]?.content !== REWRITE_INSTRUCTIONS) return { status: 400 };
      if (asked.includes("cash")) return { content: '```json\n["refund an order"]\n```' };
      if (asked.includes("jotted")) return { content: '["read file contents"]' };
      return { content: "no idea" };
    });
    try {
      const config = path.join(dir, "rewrite.json");
      writeFileSync(
        config,
        JSON.stringify({ mcpServers: {}, model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" } }),
      );
      const queries = path.join(dir, "rewrite.jsonl");
      const set = [
        {
          id: "cash",
          query: "I want my cash back for the thing I bought, number 7",
          expected: ["orders_refund_order"],
        },
        { id: "notes", query: "what have I jotted down so far", expected: ["fs_read_file"] },
        { id: "odd", query: "Post a message to the team channel", expected: ["slack_post_message"] },
      ];
      writeFileSync(queries, set.map((query) => JSON.stringify(query)).join("\n"));
      const args = [
        "--config",
        config,
        "route",
        "eval",
        "--tools",
        toolsFile,
        "--queries",
        queries,
        "--rewrite",
      ];

      const json = await switchyard("--json", ...args);
      expect(json.code).toBe(0);
      const result = JSON.parse(json.stdout) as Record<string, number> & { rewrite: Record<string, number> };
      expect(result.n).toBe(3);
      // The raw request finds nothing for "jotted down"; its rewrite "read file contents" does.
      expect(result.recallAt5).toBeCloseTo(2 / 3);
      expect(result.rewrite).toMatchObject({
        recallAt5: 1,
        recallAt10: 1,
        serverRecallAt5: 1,
        calls: 3,
        failed: 1,
      });
      expect(Object.keys(result.rewrite).sort()).toEqual([
        "calls",
        "failed",
        "mrr",
        "msPerQuery",
        "msPerRewrite",
        "recallAt1",
        "recallAt10",
        "recallAt5",
        "serverRecallAt5",
      ]);
      expect(json.stderr).toContain("routing on the raw request");
      expect(model.requests.every((request) => (request.tools ?? []).length === 0)).toBe(true);

      const text = await switchyard(...args);
      expect(text.code).toBe(0);
      const rows = text.stdout.trim().split("\n");
      expect(rows[0]).toMatch(/^MODE\s+QUERIES\s+R@1\s+R@5\s+R@10\s+MRR\s+SERVER R@5\s+MS\/QUERY$/);
      expect(rows[1]).toMatch(/^raw\s+3\s+[\d.]+\s+66\.7\s/);
      expect(rows[2]).toMatch(/^rewrite\s+3\s+[\d.]+\s+100\.0\s+100\.0\s+[\d.]+\s+100\.0\s/);
      expect(text.stderr).toContain("rewrite: 3 model calls");
    } finally {
      await model.close();
    }
  });
});

describe("switchyard route", () => {
  it("ranks the configured fleet's tools and prints CONTRACT.md's JSON", async () => {
    const config = path.join(dir, "fleet.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { kit: sdk("--tools", "add,echo") } }));
    const { code, stdout } = await switchyard(
      "--config",
      config,
      "--json",
      "route",
      "add two numbers",
      "--top",
      "2",
    );
    expect(code).toBe(0);
    const ranked = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(ranked).toHaveLength(2);
    expect(ranked[0]).toEqual({ name: "kit_add", server: "kit", tool: "add", score: expect.any(Number) });
    expect(Object.keys(ranked[1]!).sort()).toEqual(["name", "score", "server", "tool"]);

    const table = await switchyard("--config", config, "route", "echo the text back");
    expect(table.stdout).toMatch(
      /^RANK\s+TOOL\s+SERVER\s+SCORE\s+DESCRIPTION\n1\s+kit_echo\s+kit\s+\d+\.\d\d\s+Echo the text back\n/,
    );
    for (const empty of ["  ", "user:\nassistant: ok", "system: be brief\nuser:   "])
      expect(await switchyard("--config", config, "route", empty)).toMatchObject({
        code: 2,
        stderr: expect.stringContaining("route: the request is empty"),
      });
    // No user turn at all: a plain request that opens with a role word, as route eval reads it.
    const plain = await switchyard("--config", config, "--json", "route", "System: echo the text back");
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)[0]).toMatchObject({ name: "kit_echo" });
  });

  it("with --server, shows only those servers' tools that matched: no fallback rows, fewer than k", async () => {
    const config = path.join(dir, "thin.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { kit: sdk("--tools", "add,echo"), other: sdk("--tools", "add,echo") },
        routing: { offerAllUpTo: 0 },
      }),
    );
    // The whole offer is the fallback: nothing matches.
    const all = await switchyard("--config", config, "--json", "route", "keep in mind that Alice likes tea");
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).not.toEqual([]);
    const only = await switchyard(
      "--config",
      config,
      "--json",
      "route",
      "keep in mind that Alice likes tea",
      "--server",
      "kit",
    );
    expect(only).toMatchObject({ code: 0, stderr: expect.not.stringContaining("fallback") });
    expect(JSON.parse(only.stdout)).toEqual([]);
    // One tool matched: one row, not k.
    const one = await switchyard("--config", config, "--json", "route", "echo it", "--server", "kit");
    expect((JSON.parse(one.stdout) as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
      "kit_echo",
    ]);
    // A catalog small enough to be offered whole: its unmatched tools are not rows either.
    writeFileSync(config, JSON.stringify({ mcpServers: { kit: sdk("--tools", "add,echo") } }));
    const whole = await switchyard("--config", config, "--json", "route", "echo it", "--server", "kit");
    expect((JSON.parse(whole.stdout) as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
      "kit_echo",
    ]);
  });

  it("shows what the agent would offer: the config's routing (pinned, topK, offerAllUpTo) and the servers' instructions", async () => {
    const config = path.join(dir, "routed.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          kit: sdk("--tools", "add,echo"),
          shop: {
            command: NODE,
            args: [
              `${ROOT}test/fixtures/contract-server.mjs`,
              "--instructions",
              "Parcel delivery desk: the totals of parcel orders.",
            ],
          },
        },
        routing: { pinned: ["kit_echo"], topK: 2, offerAllUpTo: 0 },
      }),
    );
    const query = "what will my parcel delivery cost";
    const { code, stdout } = await switchyard("--config", config, "--json", "route", query);
    expect(code).toBe(0);
    const offered = JSON.parse(stdout) as Array<{ name: string; score: number | null }>;
    // The pinned tool first (no score), then topK ranked tools: they match only through what their
    // server says about itself.
    expect(offered[0]).toEqual({ name: "kit_echo", server: "kit", tool: "echo", score: null });
    expect(
      offered
        .slice(1)
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(["shop_bad_total", "shop_good_total"]);
    expect(offered.slice(1).every((tool) => typeof tool.score === "number" && tool.score > 0)).toBe(true);

    // Exactly what the agent offers the model for the same request.
    await using yard = await Switchyard.connect(loadConfigFile(config));
    const model = new ScriptedModel([{ content: "done" }]);
    await createAgent(yard, yard.config, { model }).run(query);
    expect(model.requests[0]!.tools.map((tool) => tool.name).sort()).toEqual(
      offered.map((tool) => tool.name).sort(),
    );

    const table = await switchyard("--config", config, "route", query);
    expect(table.stdout).toMatch(
      /^RANK\s+TOOL\s+SERVER\s+SCORE\s+DESCRIPTION\n1\s+kit_echo\s+kit\s+pinned\s+Echo/,
    );
  });

  it("says when the agent would not offer this ranking: tool search, the whole catalog, the model's tool needs", async () => {
    for (const [routing, said] of [
      [{ mode: "search" }, "note: routing.mode is search: the agent offers search_tools"],
      [{ mode: "all" }, "note: routing.mode is all: the agent offers every tool, unranked"],
      [{ mode: "auto", searchAbove: 1 }, "note: routing.mode is auto and the catalog has more than 1 tool:"],
      [{ rewrite: true }, "note: routing.rewrite is on"],
    ] as const) {
      const config = path.join(dir, "modes.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { kit: sdk("--tools", "add,echo") }, routing }));
      const { code, stderr } = await switchyard("--config", config, "route", "add two numbers");
      expect(code, stderr).toBe(0);
      expect(stderr).toContain(said);
    }
    const plain = path.join(dir, "plain.json");
    writeFileSync(plain, JSON.stringify({ mcpServers: { kit: sdk("--tools", "add,echo") } }));
    expect((await switchyard("--config", plain, "route", "add two numbers")).stderr).not.toContain("note:");
  });

  it("routes over an empty catalog: nothing matches, exit 0", async () => {
    const config = path.join(dir, "no-servers.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    const { code, stderr } = await switchyard("--config", config, "route", "list files");
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('no tool matches "list files" (0 tools in the catalog)');
  });

  it("warns of a pinned id no tool of the catalog has, with the one it likely meant, and routes on", async () => {
    const config = path.join(dir, "mispinned.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { kit: sdk("--tools", "add,echo") }, routing: { pinned: ["kit_ecko"] } }),
    );
    for (const flags of [[], ["--strategy", "lexical"]]) {
      const { code, stderr } = await switchyard("--config", config, "route", "add two numbers", ...flags);
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(
        /^warning: routing\.pinned\[0\]: no tool "kit_ecko" .*kit_echo.*may list it later$/m,
      );
    }
  });
});
