import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateRouter } from "../../src/routing/evaluate.js";
import { Router } from "../../src/routing/router.js";
import { parseQueriesJsonl, parseToolsJson } from "../../src/routing/routing-data.js";
import { LexicalStrategy } from "../../src/routing/strategies/lexical.js";
import { PlainBm25Strategy } from "../../src/routing/strategies/plain-bm25.js";
import { ROOT } from "../helpers.js";

/**
 * The tool lists of 15 real MCP servers from npm (133 tools; see the folder's README.md for packages,
 * versions and licences) with requests written for them, in English and Chinese: 52 written with the
 * router (queries.jsonl), 24 multi-part ones (queries-multi.jsonl) and 48 written by someone who saw
 * neither the router nor the other requests (queries-blind.jsonl).
 */
const DIR = path.join(ROOT, "test", "fixtures", "routing", "real-servers");
/** The same 15 servers and 43 more (58 servers, 696 tools), with 64 requests written blind for them. */
const WIDE = path.join(ROOT, "test", "fixtures", "routing", "wide-servers");

function load(file = "queries.jsonl", dir = DIR) {
  const tools = parseToolsJson(readFileSync(path.join(dir, "tools.json"), "utf8"));
  const queries = parseQueriesJsonl(readFileSync(path.join(dir, file), "utf8"));
  if (!tools.ok || !queries.ok) throw new Error(`bad fixture ${dir}/${file}`);
  return { tools: tools.value, queries: queries.value };
}

describe("the router over real MCP servers' tools", () => {
  it("finds the right tools and servers for requests written for them (floors below the measured figures)", async () => {
    const { tools, queries } = load();
    const routed = await evaluateRouter(new Router(tools), queries);
    // Measured (docs/routing.md): R@1 69.2, R@5 94.2, R@10 95.2, MRR 82.3, server R@5 96.2.
    expect(routed.recallAt1).toBeGreaterThanOrEqual(0.6);
    expect(routed.recallAt5).toBeGreaterThanOrEqual(0.88);
    expect(routed.serverRecallAt5).toBeGreaterThanOrEqual(0.9);
    // Before verb families, catalog synonyms, request parts and server evidence: R@5 68.3, R@1 47.1.
    const before = await evaluateRouter(
      new Router(tools, {
        strategy: new LexicalStrategy({ verbFamilies: false, catalogSynonyms: false, serverWeight: 0 }),
      }),
      queries,
    );
    expect(routed.recallAt5).toBeGreaterThan(before.recallAt5 + 0.08);
  });

  it("finds them for requests written blind, and for multi-part ones (floors below the measured figures)", async () => {
    const blind = load("queries-blind.jsonl");
    const routed = await evaluateRouter(new Router(blind.tools), blind.queries);
    // Measured: R@1 29.2, R@5 77.8, server R@5 93.1; plain BM25 R@5 32.3; without object families 60.1.
    expect(routed.recallAt5).toBeGreaterThanOrEqual(0.66);
    expect(routed.serverRecallAt5).toBeGreaterThanOrEqual(0.85);
    const chinese = blind.queries.filter((query) => query.id.startsWith("h-zh-"));
    expect(chinese.length).toBe(24);
    const inChinese = await evaluateRouter(new Router(blind.tools), chinese);
    const withoutObjects = await evaluateRouter(
      new Router(blind.tools, { strategy: new LexicalStrategy({ objectFamilies: false }) }),
      chinese,
    );
    // Chinese requests to servers written in English: R@5 79.9 with object families, 53.5 without.
    expect(inChinese.recallAt5).toBeGreaterThanOrEqual(0.65);
    expect(inChinese.recallAt5).toBeGreaterThan(withoutObjects.recallAt5 + 0.15);
    const multi = load("queries-multi.jsonl");
    const parts = await evaluateRouter(new Router(multi.tools), multi.queries);
    // Measured: R@5 91.7, R@10 100.
    expect(parts.recallAt5).toBeGreaterThanOrEqual(0.83);
    expect(parts.recallAt10).toBeGreaterThanOrEqual(0.92);
  });

  // 696 tools where several servers offer the same kind (six web searches, five map servers, three
  // browsers): the size of LiveMCPBench's catalog. Fifteen sets of requests, each written by someone who
  // read only tools.json (the fixture's README has each set's figures at first sight); `measured` is R@5
  // / server R@5 when the set was added, and the floors sit below them. `overPlain`: how far R@5 must
  // stay above plain BM25's.
  const BLIND_SETS = [
    { file: "queries-blind.jsonl", measured: "62.0 / 85.2", r5: 0.55, server: 0.78, overPlain: 0.2 },
    { file: "queries-blind2.jsonl", measured: "61.0 / 88.5", r5: 0.57, server: 0.83, overPlain: 0.05 },
    { file: "queries-blind3.jsonl", measured: "64.0 / 89.8", r5: 0.6, server: 0.85, overPlain: 0.1 },
    { file: "queries-blind4.jsonl", measured: "63.7 / 88.8", r5: 0.6, server: 0.84, overPlain: 0.1 },
    { file: "queries-blind5.jsonl", measured: "66.7 / 90.0", r5: 0.62, server: 0.86, overPlain: 0.08 },
    { file: "queries-blind6.jsonl", measured: "55.4 / 84.2", r5: 0.51, server: 0.8, overPlain: 0.05 },
    { file: "queries-blind7.jsonl", measured: "64.6 / 90.0", r5: 0.6, server: 0.86, overPlain: 0.08 },
    { file: "queries-blind8.jsonl", measured: "62.1 / 88.8", r5: 0.57, server: 0.84, overPlain: 0.1 },
    { file: "queries-blind9.jsonl", measured: "60.4 / 85.6", r5: 0.55, server: 0.81, overPlain: 0.15 },
    { file: "queries-blind10.jsonl", measured: "57.3 / 80.2", r5: 0.54, server: 0.77, overPlain: 0.2 },
    { file: "queries-blind11.jsonl", measured: "67.7 / 93.3", r5: 0.63, server: 0.89, overPlain: 0.15 },
    { file: "queries-blind12.jsonl", measured: "75.0 / 96.7", r5: 0.7, server: 0.92, overPlain: 0.15 },
    { file: "queries-blind13.jsonl", measured: "72.9 / 93.1", r5: 0.67, server: 0.87, overPlain: 0.2 },
    { file: "queries-blind14.jsonl", measured: "59.6 / 89.2", r5: 0.55, server: 0.84, overPlain: 0.2 },
    { file: "queries-blind15.jsonl", measured: "71.0 / 89.8", r5: 0.66, server: 0.85, overPlain: 0.15 },
  ];
  it.each(BLIND_SETS)(
    "finds tools and servers over 58 servers for the requests of $file, written blind (measured $measured)",
    async ({ file, r5, server, overPlain }) => {
      const { tools, queries } = load(file, WIDE);
      expect(new Set(tools.map((tool) => tool.server)).size).toBe(58);
      const routed = await evaluateRouter(new Router(tools), queries);
      expect(routed.recallAt5).toBeGreaterThanOrEqual(r5);
      expect(routed.serverRecallAt5).toBeGreaterThanOrEqual(server);
      const plain = await evaluateRouter(new Router(tools, { strategy: new PlainBm25Strategy() }), queries);
      expect(routed.recallAt5).toBeGreaterThan(plain.recallAt5 + overPlain);
    },
  );

  it("ranks git_commit first for 'commit my changes' in Chinese, and in the top 2 in English", () => {
    const router = new Router(load().tools);
    expect(router.rankNow("提交我的修改", { topK: 1 })[0]?.id).toBe("git_git_commit");
    expect(router.rankNow("commit my changes", { topK: 2 }).map((tool) => tool.id)).toContain(
      "git_git_commit",
    );
  });

  it("offers a right tool for each part of a multi-part request over the fleet", () => {
    const router = new Router(load().tools, { topK: 5 });
    const offered = (text: string) => router.selectNow({ latestUserMessage: text }).map((tool) => tool.id);
    const clockAndNote = offered("what time is it and save a note that I called the dentist");
    expect(clockAndNote).toContain("time_current_time");
    expect(clockAndNote.some((id) => ["filesystem_write_file", "memory_create_entities"].includes(id))).toBe(
      true,
    );
    const filesAndSlack = offered(
      "list the files in my projects folder, then post a summary in the #general Slack channel",
    );
    expect(filesAndSlack).toContain("filesystem_list_directory");
    expect(filesAndSlack).toContain("slack_slack_post_message");
    const webAndSlack = offered(
      "search the web for the TypeScript 6 release notes and send them to the team on Slack",
    );
    expect(webAndSlack).toContain("brave-search_brave_web_search");
    expect(webAndSlack).toContain("slack_slack_post_message");
    // In Chinese, to servers that speak English: 截图 → screenshot, 日志 → log, 标签 → tag, 推送 → push.
    const pageAndShot = offered("打开 example.com 网页并截图");
    expect(pageAndShot).toContain("puppeteer_puppeteer_navigate");
    expect(pageAndShot).toContain("puppeteer_puppeteer_screenshot");
    const logAndTag = offered("查看 git 日志，然后创建一个名为 v1.2 的标签");
    expect(logAndTag).toContain("git_git_log");
    expect(logAndTag).toContain("git_git_tag");
    const commitAndPush = offered("帮我提交代码，然后推送到远程仓库");
    expect(commitAndPush).toContain("git_git_commit");
    expect(commitAndPush).toContain("git_git_push");
  });
});
