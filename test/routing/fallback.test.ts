import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routerFor, Switchyard } from "../../src/index.js";
import { Router } from "../../src/routing/router.js";
import type { ToolDescriptor } from "../../src/routing/tool-descriptor.js";
import { NODE, ROOT, runCli } from "../helpers.js";

const ids = (tools: ReadonlyArray<{ id: string }>) => tools.map((tool) => tool.id);

/** A tool whose schema has `required` parameters first, then `optional` ones. */
function tool(id: string, description: string, required: string[] = [], optional: string[] = []) {
  const properties = Object.fromEntries([...required, ...optional].map((name) => [name, { type: "string" }]));
  return {
    id,
    server: id.split("_")[0]!,
    name: id.split("_").slice(1).join("_"),
    description,
    inputSchema: { type: "object", properties, required },
  } satisfies ToolDescriptor;
}

/** Nine tools over three servers; each server has a tool that needs no arguments. */
const TOOLS: ToolDescriptor[] = [
  tool("notes_create", "Create a note with a title and a body", ["title", "body"]),
  tool("notes_delete", "Delete a note", ["note_id"], ["reason"]),
  tool("notes_list", "List every note"),
  tool("notes_search", "Search the notes for a phrase", ["phrase"]),
  tool("mail_send", "Send an email", ["to", "subject", "body"]),
  tool("mail_inbox", "Show the inbox"),
  tool("mail_read", "Read one message", ["message_id"]),
  tool("calc_add", "Add two numbers", ["a", "b"]),
  tool("calc_help", "How to use the calculator"),
];

/** A router that ranks (the catalog is above `offerAllUpTo`) and offers five tools. */
const router = (options: ConstructorParameters<typeof Router>[1] = {}) =>
  new Router(TOOLS, { offerAllUpTo: 3, topK: 5, ...options });

describe("the router's fallback, when too few tools match", () => {
  it("offers topK tools for a request that shares no word with any tool: each server in turn, the tools needing the fewest arguments first", async () => {
    const offered = await router().select({ latestUserMessage: "zzz qqq" });
    expect(ids(offered)).toEqual(["notes_list", "mail_inbox", "calc_help", "notes_search", "mail_read"]);
    expect(offered.every((t) => t.reason === "fallback" && t.score === undefined)).toBe(true);
    // The same without waiting.
    expect(router().selectNow({ latestUserMessage: "zzz qqq" })).toEqual(offered);
  });

  it("keeps the few tools that matched first, then their server's other tools, then the others in turn", async () => {
    const offered = await router().select({ latestUserMessage: "add 2 and 3" });
    expect(offered.map((t) => [t.id, t.reason])).toEqual([
      ["calc_add", "ranked"],
      ["calc_help", "fallback"],
      ["notes_list", "fallback"],
      ["mail_inbox", "fallback"],
      ["notes_search", "fallback"],
    ]);
    expect(offered[0]!.score).toBeGreaterThan(0);
  });

  it("takes the servers of the tools used in the conversation first", async () => {
    const offered = await router().select({ latestUserMessage: "zzz", usedToolNames: ["mail_read"] });
    expect(offered.map((t) => [t.id, t.reason])).toEqual([
      ["mail_read", "used"],
      ["mail_inbox", "fallback"],
      ["notes_list", "fallback"],
      ["calc_help", "fallback"],
      ["mail_send", "fallback"],
      ["notes_search", "fallback"],
    ]);
  });

  it("judges by the latest message: after a change of subject, every server is offered again, not only the earlier topic's", async () => {
    const offered = await router().select({
      latestUserMessage: "zzz",
      earlierUserMessages: ["list, search or delete my notes"],
    });
    // The earlier topic's server first, its best matches first; then the others in turn.
    const notes = ids(await router().rank("list, search or delete my notes"));
    expect(offered.map((t) => [t.id, t.reason])).toEqual([
      [notes[0], "fallback"],
      ["mail_inbox", "fallback"],
      ["calc_help", "fallback"],
      [notes[1], "fallback"],
      ["mail_read", "fallback"],
    ]);
    // What the latest message matches is offered first, ranked.
    const ranked = await router().select({
      latestUserMessage: "and add 2 and 3",
      earlierUserMessages: ["list, search or delete my notes"],
    });
    // Then the fallback, a tool of each server in turn (the servers in the order the whole conversation
    // ranked them).
    expect(ranked.slice(0, 3).map((t) => [t.id, t.reason])).toEqual([
      ["calc_add", "ranked"],
      [expect.any(String), "fallback"],
      [expect.any(String), "fallback"],
    ]);
    expect(new Set(ranked.slice(1, 3).map((t) => t.id))).toEqual(new Set(["calc_help", notes[0]]));
    expect(ranked).toHaveLength(5);
  });

  it("stays out of the way when enough tools match, and when the catalog is offered whole", async () => {
    const matched = await router().select({ latestUserMessage: "list, search or delete my notes" });
    expect(matched.length).toBeGreaterThanOrEqual(3);
    expect(matched.every((t) => t.reason === "ranked")).toBe(true);

    const whole = await new Router(TOOLS).select({ latestUserMessage: "zzz" });
    expect(whole).toHaveLength(TOOLS.length);
    expect(whole.every((t) => t.reason === "all")).toBe(true);
  });

  it("is bounded by topK, comes after pinned tools, and can be turned off (minRanked: 0)", async () => {
    expect(ids(await router().select({ latestUserMessage: "zzz" }, { topK: 2 }))).toEqual([
      "notes_list",
      "mail_inbox",
    ]);
    const pinned = await router({ pinned: ["mail_send"] }).select({ latestUserMessage: "zzz" }, { topK: 2 });
    expect(pinned.map((t) => [t.id, t.reason])).toEqual([
      ["mail_send", "pinned"],
      ["notes_list", "fallback"],
      ["mail_inbox", "fallback"],
    ]);
    expect(await router({ minRanked: 0 }).select({ latestUserMessage: "zzz" })).toEqual([]);
  });

  it("follows server updates: a server that leaves is no longer offered, its new tools are", async () => {
    const r = router();
    r.removeServer("notes");
    expect(ids(await r.select({ latestUserMessage: "zzz" }))).toEqual([
      "mail_inbox",
      "calc_help",
      "mail_read",
      "calc_add",
      "mail_send",
    ]);
    r.updateServer("calc", [tool("calc_pi", "The number pi")]);
    expect(ids(await r.select({ latestUserMessage: "zzz" }, { topK: 2 }))).toEqual(["mail_inbox", "calc_pi"]);
  });
});

const MEMORY = `${ROOT}node_modules/@modelcontextprotocol/server-memory/dist/index.js`;
const EVERYTHING = `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;

describe("the fallback over real servers (server-memory and server-everything: 22 tools)", () => {
  let dir: string;
  let config: string;
  const request = "keep in mind that Alice likes tea";

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "switchyard-fallback-"));
    config = path.join(dir, "fleet.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: NODE,
            args: [MEMORY],
            env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") },
          },
          everything: { command: NODE, args: [EVERYTHING] },
        },
      }),
    );
  });

  let yard: Switchyard | undefined;
  afterAll(async () => {
    await yard?.close();
  });

  it("offers topK tools, server-memory's among them, for a request that matches no tool", async () => {
    yard = await Switchyard.fromFile(config);
    expect(yard.tools().length).toBeGreaterThan(20);
    const offered = await routerFor(yard).select({ latestUserMessage: request });
    expect(offered).toHaveLength(12);
    expect(offered.every((t) => t.reason === "fallback")).toBe(true);
    expect(ids(offered)).toEqual(expect.arrayContaining(["memory_create_entities", "memory_read_graph"]));
    expect(new Set(offered.map((t) => t.server))).toEqual(new Set(["memory", "everything"]));
  });

  it("switchyard route shows the fallback: score null in --json, 'fallback' in the table, a note on stderr", async () => {
    const json = await runCli(["--config", config, "--json", "route", request]);
    expect(json.code).toBe(0);
    const entries = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(entries).toHaveLength(12);
    for (const entry of entries) {
      expect(Object.keys(entry).sort()).toEqual(["name", "score", "server", "tool"]);
      expect(entry.score).toBeNull();
    }
    expect(entries).toContainEqual({
      name: "memory_create_entities",
      server: "memory",
      tool: "create_entities",
      score: null,
    });
    expect(json.stderr).toContain(`nothing matched "${request}"; offering the fallback: 12 tools of servers`);

    const table = await runCli(["--config", config, "route", request, "--top", "4"]);
    expect(table.code).toBe(0);
    const rows = table.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^RANK\s+TOOL\s+SERVER\s+SCORE\s+DESCRIPTION$/);
    expect(rows).toHaveLength(5);
    for (const row of rows.slice(1)) expect(row).toMatch(/^\d\s+\S+\s+(memory|everything)\s+fallback\s/);
    expect(table.stderr).toContain("offering the fallback: 4 tools of servers");

    // A request that matches a little: the matches first, with their scores, then the fallback.
    const few = await runCli(["--config", config, "--json", "route", "a tiny image please"]);
    const offered = JSON.parse(few.stdout) as Array<{ name: string; score: number | null }>;
    expect(offered[0]).toMatchObject({ name: "everything_get-tiny-image", score: expect.any(Number) });
    expect(offered).toHaveLength(12);
    const scored = offered.filter((entry) => entry.score !== null).length;
    expect(scored).toBeLessThan(3);
    expect(offered.slice(scored).every((entry) => entry.score === null)).toBe(true);
    expect(few.stderr).toMatch(
      new RegExp(
        `only ${scored} of \\d+ tools matched "a tiny image please"; offering the fallback beside them: ${12 - scored} tools`,
      ),
    );
  });
});
