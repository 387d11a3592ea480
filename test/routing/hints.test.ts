import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfigFile, Switchyard } from "../../src/index.js";
import { routerFor } from "../../src/internal.js";
import { Router, type RoutingHint, type ToolDescriptor } from "../../src/routing/index.js";
import { failureOf, NODE, ROOT, runCli } from "../helpers.js";

// A shop's catalog: the returns tools never say "return" or "退货" in their descriptions, so only a hint
// can tell the router that questions about returns go to them.
const CATALOG = [
  { name: "returns_open", description: "Open an RMA for a delivered parcel and print its label" },
  { name: "returns_status", description: "Where an RMA stands: received, inspected, credited" },
  { name: "shoes_search", description: "Find shoes by size, colour and brand" },
  { name: "shoes_sizes", description: "Size guide for shoes: how shoes fit, by brand" },
  { name: "orders_list", description: "List my orders, newest first" },
  { name: "orders_track", description: "Track the parcel of an order" },
  { name: "account_address", description: "Change my delivery address" },
  { name: "account_password", description: "Change my password" },
].map((tool) => ({ ...tool, inputSchema: { type: "object", properties: { q: { type: "string" } } } }));

const TOOLS: ToolDescriptor[] = CATALOG.map((tool) => ({ id: `shop_${tool.name}`, server: "shop", ...tool }));
const HINT: RoutingHint = { when: "return|refund|退货", tools: ["shop_returns_*"] };
const RETURNS = ["shop_returns_open", "shop_returns_status"];
const ids = (tools: ReadonlyArray<{ id: string }>) => tools.map((tool) => tool.id);
/** The returns tools in the order a hint puts them: as the strategy ranks them, then in catalog order. */
const returnsFor = async (request: string): Promise<string[]> => {
  const ranked = ids(await new Router(TOOLS, { topK: 8, offerAllUpTo: 0 }).rank(request));
  return [...RETURNS].sort((a, b) => (ranked.indexOf(a) + 1 || 99) - (ranked.indexOf(b) + 1 || 99));
};

describe("routing hints", () => {
  const plain = new Router(TOOLS, { topK: 4, offerAllUpTo: 0 });
  const hinted = new Router(TOOLS, { topK: 4, offerAllUpTo: 0, hints: [HINT] });

  it("put the hinted tools first for English and Chinese requests, marked with the hint", async () => {
    for (const request of ["how do I return my shoes", "I want a Refund", "我想退货"]) {
      const ranked = await hinted.rank(request);
      const returns = await returnsFor(request);
      expect(returns).toHaveLength(2);
      expect(ids(ranked).slice(0, 2), request).toEqual(returns);
      expect(ranked[0]!.hint).toBe(HINT.when);
      expect(ranked.length).toBeLessThanOrEqual(4);
      const offered = hinted.selectNow({ latestUserMessage: request });
      expect(ids(offered).slice(0, 2), request).toEqual(returns);
      expect(offered.slice(0, 2).map((tool) => tool.hint)).toEqual([HINT.when, HINT.when]);
    }
    // Without the hint, a request about returning shoes is about shoes, and one in Chinese matches nothing.
    expect(ids(await plain.rank("how do I return my shoes")).slice(0, 2)).not.toEqual(RETURNS);
    expect(ids(plain.selectNow({ latestUserMessage: "我想退货" })).slice(0, 2)).not.toEqual(RETURNS);
  });

  it("leave a request that matches no hint as it was, and keep topK", async () => {
    for (const request of ["find running shoes in size 42", "track my parcel", "a nonreturn item"]) {
      expect(await hinted.rank(request)).toEqual(await plain.rank(request));
      expect(hinted.selectNow({ latestUserMessage: request })).toEqual(
        plain.selectNow({ latestUserMessage: request }),
      );
    }
    // The strategy ranks returns_status first here, unlike the catalog: at topK 1 that order must hold.
    expect(await returnsFor("how do I return my shoes")).toEqual([
      "shop_returns_status",
      "shop_returns_open",
    ]);
    expect(ids(await hinted.rank("how do I return my shoes", { topK: 1 }))).toEqual(
      (await returnsFor("how do I return my shoes")).slice(0, 1),
    );
  });

  it("take a /regular expression/ too, and refuse one that does not compile, naming the hint", async () => {
    const regex = new Router(TOOLS, {
      topK: 4,
      offerAllUpTo: 0,
      hints: [{ when: "/\\bRMA\\b|退(货|款)/i", tools: ["shop_returns_status", "shop_orders_*"] }],
    });
    expect(ids(await regex.rank("我要退款"))).toEqual([
      "shop_returns_status",
      "shop_orders_list",
      "shop_orders_track",
    ]);
    expect(() => new Router(TOOLS, { hints: [HINT, { when: "/([a-z/", tools: ["x"] }] })).toThrow(
      /routing\.hints\[1\]\.when: invalid regular expression/,
    );

    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-hints-"));
    try {
      const file = path.join(dir, "fleet.json");
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {},
          routing: { hints: [HINT, { when: "/(unclosed/", tools: ["a_*"] }] },
        }),
      );
      const error = await failureOf(Promise.resolve().then(() => loadConfigFile(file)));
      expect(error.code).toBe("CONFIG_INVALID");
      expect(error.message).toMatch(/routing\.hints\.1\.when|routing\.hints\[1\]\.when/);
      expect(error.message).toContain("invalid regular expression /(unclosed/");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("refuse a hint without tools or words as a bad regular expression is refused: CONFIG_INVALID naming it", () => {
    const given = (hint: unknown) => () => new Router(TOOLS, { hints: [HINT, hint as RoutingHint] });
    expect(given({ when: "refund" })).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        path: "routing.hints[1].tools",
        message: expect.stringContaining("expected an array of tool names or globs (got undefined)"),
      }),
    );
    expect(given({ tools: ["shop_*"] })).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", path: "routing.hints[1].when" }),
    );
    expect(given({ when: "refund", tools: "shop_*" })).toThrow(
      /routing\.hints\[1\]\.tools: expected an array/,
    );
    expect(given(null)).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", path: "routing.hints[1].when" }),
    );
    expect(() => new Router(TOOLS, { hints: HINT as unknown as RoutingHint[] })).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", path: "routing.hints" }),
    );
  });
});

describe("routing hints over a real fleet", () => {
  let dir: string;
  let config: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "switchyard-hints-fleet-"));
    const catalog = path.join(dir, "catalog.json");
    writeFileSync(catalog, JSON.stringify(CATALOG));
    config = path.join(dir, "fleet.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          shop: { command: NODE, args: [`${ROOT}test/fixtures/catalog-server.mjs`, "--catalog", catalog] },
        },
        routing: { topK: 4, offerAllUpTo: 0, hints: [HINT] },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the agent's router puts the hinted tools first", async () => {
    await using yard = await Switchyard.fromFile(config);
    const router = routerFor(yard, loadConfigFile(config).routing);
    expect(ids(await router.select({ latestUserMessage: "我想退货" })).slice(0, 2)).toEqual(RETURNS);
  });

  it("a pinned id or hint glob that names no tool of the catalog is a warning, told once when the router is built", async () => {
    await using yard = await Switchyard.fromFile(config);
    const routing = {
      offerAllUpTo: 0,
      pinned: ["shop_orders_list", "shop_retuns_open"],
      hints: [
        { when: HINT.when, tools: [...HINT.tools] },
        { when: "parcel", tools: ["shop_orders_track", "courier_*"] },
      ],
    };
    const warnings: string[] = [];
    const router = routerFor(yard, routing, { onWarning: (message) => warnings.push(message) });
    expect(warnings).toEqual([
      'routing.pinned[1]: no tool "shop_retuns_open" in the catalog (did you mean shop_returns_open?); a server that is down or not started yet may list it later',
      'routing.hints[1].tools[1]: "courier_*" matches no tool of the catalog; a server that is down or not started yet may list it later',
    ]);
    // The same router for the same section: nothing is told twice.
    expect(routerFor(yard, routing, { onWarning: (message) => warnings.push(message) })).toBe(router);
    expect(warnings).toHaveLength(2);
    // Still only skipped where it is missing: the router offers what it has.
    const offered = await router.select({ latestUserMessage: "where is my parcel" });
    expect(offered[0]).toMatchObject({ id: "shop_orders_list", reason: "pinned" });
    expect(offered[1]).toMatchObject({ id: "shop_orders_track", hint: "parcel" });
    expect(new Router(TOOLS, { hints: [HINT], pinned: ["shop_orders_list"] }).unmatched()).toEqual([]);
  });

  it("switchyard route shows the hint: a line on stderr, 'hint' in the table, hint in --json", async () => {
    const table = await runCli(["--config", config, "route", "how do I return my shoes"]);
    expect(table.code).toBe(0);
    const rows = table.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^RANK\s+TOOL\s+SERVER\s+SCORE\s+DESCRIPTION$/);
    const [first, second] = await returnsFor("how do I return my shoes");
    expect(rows[1]).toMatch(new RegExp(`^1\\s+${first}\\s+shop\\s+hint\\b`));
    expect(rows[2]).toMatch(new RegExp(`^2\\s+${second}\\s+shop\\s+hint\\b`));
    expect(table.stderr).toContain(`hint: return|refund|退货 → ${first}, ${second}`);

    const json = await runCli(["--config", config, "--json", "route", "我想退货"]);
    expect(json.code).toBe(0);
    const entries = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(entries.slice(0, 2)).toEqual([
      expect.objectContaining({ name: "shop_returns_open", hint: HINT.when }),
      expect.objectContaining({ name: "shop_returns_status", hint: HINT.when }),
    ]);

    const other = await runCli(["--config", config, "route", "find shoes in size 42"]);
    expect(other.code).toBe(0);
    expect(other.stdout).not.toContain("hint");
    expect(other.stderr).not.toContain("hint:");
  });
});
