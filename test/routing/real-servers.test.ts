import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateRouter } from "../../src/routing/evaluate.js";
import { Router } from "../../src/routing/router.js";
import { parseQueriesJsonl, parseToolsJson } from "../../src/routing/routing-data.js";
import { LexicalStrategy } from "../../src/routing/strategies/lexical.js";
import { ROOT } from "../helpers.js";

/**
 * The tool lists of 15 real MCP servers from npm (133 tools; see the folder's README.md for packages,
 * versions and licences) with 52 requests written for them, in English and Chinese.
 */
const DIR = path.join(ROOT, "test", "fixtures", "routing", "real-servers");

function load() {
  const tools = parseToolsJson(readFileSync(path.join(DIR, "tools.json"), "utf8"));
  const queries = parseQueriesJsonl(readFileSync(path.join(DIR, "queries.jsonl"), "utf8"));
  if (!tools.ok || !queries.ok) throw new Error("bad real-servers fixture");
  return { tools: tools.value, queries: queries.value };
}

describe("the router over real MCP servers' tools", () => {
  it("finds the right tools and servers for requests written for them (floors below the measured figures)", async () => {
    const { tools, queries } = load();
    const routed = await evaluateRouter(new Router(tools), queries);
    // Measured (docs/routing.md): R@1 64.4, R@5 84.6, R@10 85.6, MRR 74.5, server R@5 86.5.
    expect(routed.recallAt1).toBeGreaterThanOrEqual(0.55);
    expect(routed.recallAt5).toBeGreaterThanOrEqual(0.77);
    expect(routed.serverRecallAt5).toBeGreaterThanOrEqual(0.8);
    // Before verb families, catalog synonyms, request parts and server evidence: R@5 68.3, R@1 47.1.
    const before = await evaluateRouter(
      new Router(tools, {
        strategy: new LexicalStrategy({ verbFamilies: false, catalogSynonyms: false, serverWeight: 0 }),
      }),
      queries,
    );
    expect(routed.recallAt5).toBeGreaterThan(before.recallAt5 + 0.08);
  });

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
  });
});
