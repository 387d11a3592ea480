import { describe, expect, it } from "vitest";
import { catalogToolDescriptors } from "../../src/routing/catalog-tools.js";
import { parseTranscript, queryFromText } from "../../src/routing/conversation.js";
import { createStrategy, type StrategyName } from "../../src/routing/create-strategy.js";
import { Router } from "../../src/routing/router.js";
import { type LexicalOptions, LexicalStrategy } from "../../src/routing/strategies/lexical.js";
import { TwoStageStrategy } from "../../src/routing/strategies/two-stage.js";
import type { RoutingStrategy } from "../../src/routing/strategy.js";
import type { ToolDescriptor } from "../../src/routing/tool-descriptor.js";
import { failureOf } from "../helpers.js";
import { FLEET_TOOLS } from "./tools-fixture.js";

const ids = (tools: ReadonlyArray<{ id: string }>) => tools.map((tool) => tool.id);
const router = (options: ConstructorParameters<typeof Router>[1] = {}) =>
  new Router(FLEET_TOOLS, { offerAllUpTo: 3, ...options });

describe("ranking", () => {
  it("puts the tool a request is about first, with where it lives", async () => {
    const [best] = await router().rank("please refund my last order", { topK: 3 });
    expect(best).toMatchObject({ id: "orders_refund_order", server: "orders", name: "refund_order" });
    expect(best!.score).toBeGreaterThan(0);
  });

  it("finds tools by parameter descriptions, enum values and what their server says", () => {
    const r = router();
    expect(ids(r.rankNow("forecast in fahrenheit", { topK: 1 }))).toEqual(["weather_get_forecast"]);
    expect(ids(r.rankNow("customer C10001", { topK: 1 }))).toEqual(["orders_query_recent_orders"]);
    expect(ids(r.rankNow("what is in the allowed folders on the filesystem", { topK: 2 })).sort()).toEqual([
      "fs_list_directory",
      "fs_read_file",
    ]);
  });

  it("ranks Chinese requests against Chinese descriptions", () => {
    expect(ids(router().rankNow("帮我查一下订单123的物流", { topK: 1 }))).toEqual([
      "shop_query_order_status",
    ]);
    expect(ids(router().rankNow("请更新我的手机号", { topK: 1 }))).toEqual(["shop_update_profile"]);
  });

  it("offers each part of a several-sentence request near the top, even when one part dominates", () => {
    const tool = (id: string, description: string) => ({
      id,
      server: id.split("_")[0]!,
      name: id,
      description,
    });
    const tools: ToolDescriptor[] = [
      tool("order_refund", "Refund an order: money back for a broken or faulty item"),
      tool("order_cancel", "Cancel an order before the parcel ships"),
      tool("order_track", "Track the parcel of an order"),
      tool("order_split", "Split an order in two parcels"),
      tool("order_merge", "Merge two orders into one parcel"),
      tool("chat_notify_team", "Notify a team"),
      ...["calendar", "roster", "budget", "goals", "chat"].map((x) =>
        tool(`team_${x}`, `The ${x} of a team`),
      ),
      ...["customer", "manager", "courier", "supplier"].map((x) => tool(`notify_${x}`, `Notify a ${x}`)),
    ];
    const request =
      "Refund order 42, the blender arrived broken and faulty, I want my money back. " +
      "Cancel order 43 before the parcel ships, and split order 44 into two parcels. Notify the team.";
    const withClauses = ids(new Router(tools).rankNow(request, { topK: 3 }));
    const withoutClauses = ids(
      new Router(tools, { strategy: new LexicalStrategy({ clauseWeight: 0 }) }).rankNow(request, { topK: 3 }),
    );
    expect(withClauses[0]).toBe("order_refund");
    expect(withClauses).toContain("chat_notify_team");
    expect(withoutClauses).not.toContain("chat_notify_team");
  });

  it("returns nothing for a request that shares no word with any tool", () => {
    expect(router().rankNow("zzz qqq", { topK: 5 })).toEqual([]);
  });
});

describe("incremental updates", () => {
  it("replace one server's tools and rank exactly as a router built afresh", () => {
    const updated = router();
    const newOrders: ToolDescriptor[] = [
      { id: "orders_refund_order", server: "orders", name: "refund_order", description: "Refund an order" },
      {
        id: "orders_cancel_order",
        server: "orders",
        name: "cancel_order",
        description: "Cancel an order before shipping",
      },
    ];
    updated.updateServer("orders", newOrders);
    const fresh = new Router([...FLEET_TOOLS.filter((tool) => tool.server !== "orders"), ...newOrders]);
    for (const query of ["cancel my order", "where is my parcel", "refund", "forecast for Paris"]) {
      expect(updated.rankNow(query, { topK: 5 })).toEqual(fresh.rankNow(query, { topK: 5 }));
    }
    expect(updated.tool("orders_track_shipment")).toBeUndefined();
    expect(ids(updated.rankNow("cancel my order", { topK: 1 }))).toEqual(["orders_cancel_order"]);
    expect(updated.size).toBe(FLEET_TOOLS.length - 1);
  });

  it("remove a server's tools when it has none left", () => {
    const r = router();
    r.removeServer("weather");
    expect(r.rankNow("weather forecast", { topK: 5 }).some((tool) => tool.server === "weather")).toBe(false);
    expect(r.tools().some((tool) => tool.server === "weather")).toBe(false);
  });

  it("move a tool id given again under another server", () => {
    const r = router();
    r.updateServer("archive", [
      { id: "fs_read_file", server: "archive", name: "read_file", description: "Read a file" },
    ]);
    expect(r.tool("fs_read_file")?.server).toBe("archive");
    r.removeServer("fs");
    expect(r.tool("fs_read_file")?.server).toBe("archive");
    r.removeServer("archive");
    expect(r.tool("fs_read_file")).toBeUndefined();
  });
});

describe("selecting tools for a conversation", () => {
  it("weighs the latest user message most", async () => {
    const offered = await router().select(
      {
        latestUserMessage: "actually, refund the order instead",
        earlierUserMessages: ["what is the weather forecast in Paris?"],
      },
      { topK: 2 },
    );
    expect(offered[0]).toMatchObject({ id: "orders_refund_order", reason: "ranked" });
  });

  it("lets earlier messages count when the latest says little", async () => {
    const offered = await router().select(
      { latestUserMessage: "and in celsius?", earlierUserMessages: ["weather forecast for Oslo"] },
      { topK: 1 },
    );
    expect(ids(offered)).toEqual(["weather_get_forecast"]);
  });

  it("keeps pinned and already used tools offered, and adds topK ranked ones", async () => {
    const offered = await router({ pinned: ["fs_read_file"] }).select(
      {
        latestUserMessage: "post a message to the channel",
        usedToolNames: ["github_list_issues", "no_such_tool"],
      },
      { topK: 2, pinned: ["slack_list_channels"] },
    );
    expect(offered.map((tool) => [tool.id, tool.reason])).toEqual([
      ["fs_read_file", "pinned"],
      ["slack_list_channels", "pinned"],
      ["github_list_issues", "used"],
      ["slack_post_message", "ranked"],
      [expect.any(String), "ranked"],
    ]);
  });

  it("offers every tool when the catalog is small, best matches first", async () => {
    const small = new Router(FLEET_TOOLS.slice(0, 5));
    const offered = await small.select({ latestUserMessage: "send a message" });
    expect(offered).toHaveLength(5);
    expect(offered[0]).toMatchObject({ id: "slack_post_message", reason: "all" });
    expect(new Set(offered.map((tool) => tool.reason))).toEqual(new Set(["all"]));
  });

  it("keeps the request's own best tool in the offer when its tool needs rank other tools first", async () => {
    // A strategy that ranks by script: the request with its needs (one line more) puts the request's
    // own best, fs_read_text_file, past the first four; the request alone puts it first.
    const fused = ["kit_structured", "fs_read_file", "fs_read_media", "fs_read_many", "fs_read_text_file"];
    const scripted: RoutingStrategy = {
      name: "scripted",
      setServerTools: () => {},
      rankNow: (query, limit) =>
        (query.text.includes("\n") ? fused : ["fs_read_text_file", "fs_read_file"])
          .slice(0, limit)
          .map((id, i) => ({ id, score: 10 - i })),
      rank: async (query, { limit }) => scripted.rankNow!(query, limit),
    };
    const tools = [...fused].map((id) => ({ id, server: id.split("_")[0]!, name: id, description: id }));
    const router = new Router(tools, { strategy: scripted, offerAllUpTo: 0 });
    const withNeeds = { text: "what does my note a.txt say", needs: ["read file contents"] };
    for (const ranked of [router.rankNow(withNeeds, { topK: 4 }), await router.rank(withNeeds, { topK: 4 })])
      expect(ranked.map((tool) => tool.id)).toEqual([
        "kit_structured",
        "fs_read_text_file",
        "fs_read_file",
        "fs_read_media",
      ]);
    // Already in the first four: the fused order stands.
    expect(router.rankNow(withNeeds, { topK: 5 }).map((tool) => tool.id)).toEqual(fused);
    // No needs: one ranking, as always.
    expect(router.rankNow("what does my note a.txt say", { topK: 4 }).map((tool) => tool.id)).toEqual([
      "fs_read_text_file",
      "fs_read_file",
    ]);
  });

  it("offers nothing from an empty catalog (no server up yet), without failing", async () => {
    const empty = new Router();
    expect(await empty.select({ latestUserMessage: "list files" })).toEqual([]);
    expect(empty.selectNow({ latestUserMessage: "list files" }, { pinned: ["fs_read"] })).toEqual([]);
  });

  it("gives the same offer with or without waiting", async () => {
    const conversation = { latestUserMessage: "list open issues", usedToolNames: ["slack_post_message"] };
    const r = router();
    expect(r.selectNow(conversation, { topK: 4 })).toEqual(await r.select(conversation, { topK: 4 }));
  });

  it("refuses to rank without waiting when the strategy needs I/O", () => {
    const waiting = new Router(FLEET_TOOLS, {
      strategy: {
        name: "remote",
        setServerTools: () => {},
        rank: async () => [],
      },
    });
    expect(() => waiting.rankNow("anything")).toThrow(/remote routing strategy ranks asynchronously/);
  });
});

describe("transcripts", () => {
  it("read role-prefixed lines as a conversation whose latest user turn leads", () => {
    const conversation = parseTranscript(
      'user: weather in Paris?\nsystem: [weather_get_forecast(city="Paris")]\nsystem: Sunny,\n25 degrees\nuser: now refund order 7',
    );
    expect(conversation).toEqual({
      latestUserMessage: "now refund order 7",
      earlierUserMessages: ["weather in Paris?"],
      otherMessages: ['[weather_get_forecast(city="Paris")]', "Sunny,\n25 degrees"],
    });
    expect(
      ids(router().rankNow(queryFromText("user: weather in Paris?\nuser: now refund order 7"), { topK: 1 })),
    ).toEqual(["orders_refund_order"]);
  });

  it("leave plain requests plain", () => {
    expect(parseTranscript("refund order 7\nuser: not a turn opener")).toBeUndefined();
    expect(queryFromText("refund order 7")).toEqual({ text: "refund order 7" });
  });
});

describe("lexical options", () => {
  it("change field weights: with the description left out, only names match", () => {
    const namesOnly = new Router(FLEET_TOOLS, {
      strategy: new LexicalStrategy({
        fieldWeights: { description: 0, params: 0, enums: 0, server: 0, serverDescription: 0 },
      }),
    });
    expect(namesOnly.rankNow("give the money back", { topK: 3 })).toEqual([]);
    expect(ids(namesOnly.rankNow("refund", { topK: 3 }))).toEqual(["orders_refund_order"]);
  });

  it("are checked when the strategy is made, as route eval --lexical checks them: a typo names the option it meant", () => {
    const made = (lexical: unknown) => () => createStrategy({ lexical: lexical as LexicalOptions });
    expect(made({ objectFamiles: false })).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        path: "objectFamiles",
        message: expect.stringContaining("did you mean objectFamilies?"),
      }),
    );
    // Whatever the strategy: an option no ranking reads is still a mistake to be told of.
    expect(() =>
      createStrategy({ strategy: "plain-bm25", lexical: { clauseWeigth: 0 } as unknown as LexicalOptions }),
    ).toThrow(/did you mean clauseWeight/);
    expect(() => new LexicalStrategy({ k1: "x" } as unknown as LexicalOptions)).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", path: "k1" }),
    );
    expect(() => new LexicalStrategy({ tokenizer: { stem: 1 } } as unknown as LexicalOptions)).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", path: "tokenizer.stem" }),
    );
    expect(createStrategy({ lexical: { clauseWeight: 0 } }).name).toBe("lexical");
  });

  it("an unknown strategy's name gets the one it most likely meant", () => {
    expect(() => createStrategy({ strategy: "lexcial" as StrategyName })).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        message: expect.stringContaining('unknown routing strategy "lexcial" (did you mean lexical?)'),
      }),
    );
  });
});

describe("two-stage strategy", () => {
  it("offers the tools of the servers a request names before other servers' tools", async () => {
    const twoStage = new Router(FLEET_TOOLS, { strategy: new TwoStageStrategy({ servers: 1 }) });
    const lexical = new Router(FLEET_TOOLS);
    const query = "list things in slack";
    expect(ids(await twoStage.rank(query, { topK: 3 }))).toEqual([
      "slack_list_channels",
      "slack_post_message",
      expect.stringMatching(/_list_/),
    ]);
    expect(ids(lexical.rankNow(query, { topK: 3 }))[1]).not.toBe("slack_post_message");
    twoStage.removeServer("slack");
    expect(ids(await twoStage.rank(query, { topK: 3 })).some((id) => id.startsWith("slack_"))).toBe(false);
  });
});

describe("what the router is given", () => {
  // Values a JavaScript caller (or a cast) can pass: each must be refused naming what it should be.
  const anyRouter = (tools: unknown, options?: unknown) =>
    new Router(tools as ToolDescriptor[], options as ConstructorParameters<typeof Router>[1]);
  const r = router();
  const bad = <T>(value: unknown) => value as T;

  it("refuses a query that is neither a string nor a RoutingQuery, naming the method and the argument", async () => {
    for (const query of [undefined, 42, null, {}, { text: 3 }, ["refund"]]) {
      expect(() => r.rankNow(bad(query))).toThrow(
        expect.objectContaining({
          code: "INVALID_INPUT",
          message: expect.stringMatching(/^Router\.rankNow: query must be a string/),
        }),
      );
      await expect(r.rank(bad(query))).rejects.toMatchObject({
        code: "INVALID_INPUT",
        message: expect.stringMatching(/^Router\.rank: query must be a string/),
      });
    }
    expect(() => r.rankNow(bad({ text: "refund", needs: "refund" }))).toThrow(
      /query\.needs must be an array of strings/,
    );
    expect(() => r.rankNow(bad({ text: "refund", context: ["x"] }))).toThrow(
      /query\.context must be an array of \{ text/,
    );
  });

  it("refuses a conversation without latestUserMessage, and says to use rank() for plain text", async () => {
    for (const conversation of [{}, "refund", undefined, { latestUserMessage: 1 }]) {
      expect(() => r.selectNow(bad(conversation))).toThrow(
        expect.objectContaining({
          code: "INVALID_INPUT",
          message: expect.stringContaining("conversation must be { latestUserMessage"),
        }),
      );
      await expect(r.select(bad(conversation))).rejects.toMatchObject({
        code: "INVALID_INPUT",
        message: expect.stringMatching(/^Router\.select: .*use rank\(\)/),
      });
    }
    expect(() => r.selectNow(bad({ latestUserMessage: "x", usedToolNames: "orders_refund_order" }))).toThrow(
      /conversation\.usedToolNames must be an array of strings/,
    );
  });

  it("refuses tools that are not an array of { id, server, name }, naming the tool", () => {
    expect(() => anyRouter(null)).toThrow(
      expect.objectContaining({
        code: "INVALID_INPUT",
        message: expect.stringMatching(/^new Router: tools must be an array/),
      }),
    );
    expect(() => anyRouter([{ server: "a", name: "x" }])).toThrow(
      /tools\[0\]\.id must be a non-empty string \(got undefined\)/,
    );
    expect(() => anyRouter([{ id: "a_x", server: "a" }])).toThrow(
      /tools\[0\] \(a_x\)\.name must be a non-empty string/,
    );
    expect(() => anyRouter([{ id: "a_x", name: "x" }])).toThrow(
      /tools\[0\] \(a_x\)\.server must be a string/,
    );
    expect(() => anyRouter([{ id: "a_x", server: "a", name: "x", description: 7 }])).toThrow(
      /\.description must be a string/,
    );
    expect(() => router().updateServer("orders", bad({ id: "x" }))).toThrow(
      /^Router\.updateServer: tools must be an array/,
    );
    // updateServer takes the tools as the server's: their own `server` may be left out.
    const updated = router();
    updated.updateServer("orders", [bad<ToolDescriptor>({ id: "orders_x", name: "x" })]);
    expect(updated.tool("orders_x")?.server).toBe("orders");
    expect(() => updated.updateServer(bad(undefined), [])).toThrow(/server must be the server's name/);
  });

  it("refuses a topK that is not a whole number above 0, instead of ranking nothing", async () => {
    for (const topK of [0, -3, 2.5, Number.NaN, "x"]) {
      expect(() => anyRouter(FLEET_TOOLS, { topK })).toThrow(
        expect.objectContaining({
          code: "INVALID_INPUT",
          message: expect.stringContaining("topK must be a whole number above 0"),
        }),
      );
      expect(() => r.rankNow("refund", { topK: bad(topK) })).toThrow(/^Router\.rankNow: topK must be/);
      await expect(r.rank("refund", { topK: bad(topK) })).rejects.toMatchObject({ code: "INVALID_INPUT" });
      await expect(r.select({ latestUserMessage: "refund" }, { topK: bad(topK) })).rejects.toMatchObject({
        code: "INVALID_INPUT",
      });
    }
    expect(() => anyRouter(FLEET_TOOLS, { offerAllUpTo: -1 })).toThrow(
      /offerAllUpTo must be a whole number of 0 or more/,
    );
    expect(ids(r.rankNow("refund", { topK: 1 }))).toEqual(["orders_refund_order"]);
  });

  it("refuses pinned ids that are not an array of strings", () => {
    expect(() => anyRouter(FLEET_TOOLS, { pinned: "orders_refund_order" })).toThrow(
      expect.objectContaining({
        code: "INVALID_INPUT",
        message: expect.stringContaining("pinned must be an array of tool ids"),
      }),
    );
    expect(() =>
      r.selectNow({ latestUserMessage: "refund" }, { pinned: bad("orders_refund_order") }),
    ).toThrow(/^Router\.selectNow: pinned must be an array/);
  });

  it("rejects rank() and select() with CANCELLED when the signal has already fired, ranking nothing", async () => {
    const controller = new AbortController();
    controller.abort(new Error("user left"));
    const error = await failureOf(r.rank("refund", { signal: controller.signal }));
    expect(error).toMatchObject({
      code: "CANCELLED",
      message: expect.stringMatching(/^Router\.rank: cancelled/),
    });
    expect((error.cause as Error).message).toBe("user left");
    await expect(
      r.select({ latestUserMessage: "refund" }, { signal: controller.signal }),
    ).rejects.toMatchObject({
      code: "CANCELLED",
    });
    await expect(r.rank("refund", { signal: bad("soon") })).rejects.toMatchObject({ code: "INVALID_INPUT" });
  });
});

describe("catalog descriptors", () => {
  const catalog = [
    { name: "orders_refund_order", server: "orders", tool: "refund_order", description: "Refund an order" },
  ];

  it("carry what each server says about itself, given as a Map by server name", () => {
    const about = new Map([["orders", { title: "Orders", description: "The shop's orders" }]]);
    expect(catalogToolDescriptors(catalog, about)).toEqual([
      {
        id: "orders_refund_order",
        server: "orders",
        name: "refund_order",
        description: "Refund an order",
        serverTitle: "Orders",
        serverDescription: "The shop's orders",
      },
    ]);
  });

  it("refuse yard.servers()' list for servers, saying what to pass instead", () => {
    // What yard.servers() returns: each server's status.
    const status = [{ name: "orders", status: "ready", transport: "stdio", tools: 1 }];
    expect(() => catalogToolDescriptors(catalog, status as never)).toThrow(
      expect.objectContaining({
        code: "INVALID_INPUT",
        message: expect.stringMatching(
          /^catalogToolDescriptors: servers must be a Map of server name → \{ title\?, description\? \}.*yard\.servers\(\) is their status.*new Map\(yard\.servers\(\)\.map/,
        ),
      }),
    );
    expect(() => catalogToolDescriptors([{ name: "x", server: "s" }] as never)).toThrow(
      /tools\[0\]\.tool must be a string \(got undefined\); pass catalog entries/,
    );
  });
});
