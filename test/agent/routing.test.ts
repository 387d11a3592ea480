import { afterEach, describe, expect, it } from "vitest";
import { type ChatMessage, createAgent, routerFor, routeTools, Switchyard } from "../../src/index.js";
import { LexicalStrategy } from "../../src/routing/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { raw } from "../helpers.js";

const opened: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((yard) => yard.close()));
});

/** `n` tool names `<stem>_<letter>` for the raw fixture's `--tools`. */
const names = (stem: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${stem}_${String.fromCharCode(97 + i)}`).join(",");

/**
 * 69 tools over three servers (20 named tools each, plus the fixture's crash, sleep and add_tool):
 * `wx` matches "weather forecast" best, `sky` matches "weather", `sea` nothing. `wx` does not restart.
 */
async function fleet(): Promise<Switchyard> {
  const yard = await Switchyard.connect({
    mcpServers: {
      wx: { ...raw("--tools", names("weather_forecast", 20)), restart: { maxRestarts: 0 } },
      sky: raw("--tools", names("weather_map", 20)),
      sea: raw("--tools", names("tide_table", 20)),
    },
  });
  opened.push(yard);
  expect(yard.tools()).toHaveLength(69);
  return yard;
}

/** Crash `wx` and wait until it is down for good (no restarts). */
async function bringDown(yard: Switchyard): Promise<void> {
  await expect(yard.callTool("wx_crash", {})).rejects.toMatchObject({ code: "SERVER_UNAVAILABLE" });
  for (let i = 0; i < 100 && yard.servers().find((s) => s.name === "wx")!.status !== "failed"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(yard.servers().find((s) => s.name === "wx")!.status).toBe("failed");
}

const question: ChatMessage[] = [{ role: "user", content: "What is the weather forecast?" }];
const servers = (ids: readonly string[]) => [...new Set(ids.map((id) => id.split("_")[0]))].sort();

describe("routing over a live fleet", () => {
  it("keeps offering topK tools from the servers left when one goes down (a strategy instance given)", async () => {
    const yard = await fleet();
    const select = routeTools(yard, { topK: 5, strategy: new LexicalStrategy() });
    const before = await select({ messages: question, usedTools: new Set() });
    expect(before).toHaveLength(5);
    expect(servers(before)).toEqual(["wx"]);

    await bringDown(yard);
    const after = await select({ messages: question, usedTools: new Set() });
    expect(after).toHaveLength(5);
    expect(servers(after)).toEqual(["sky"]);
  });

  it("gives one router per host and routing section, which follows the catalog server by server", async () => {
    const yard = await fleet();
    const routing = { topK: 5, strategy: "lexical" as const };
    const router = routerFor(yard, routing);
    expect(routerFor(yard, routing)).toBe(router);
    expect(router.size).toBe(69);
    const updated: string[] = [];
    const updateServer = router.updateServer.bind(router);
    router.updateServer = (server, tools) => {
      updated.push(`${server}:${tools.length}`);
      updateServer(server, tools);
    };

    const select = routeTools(yard, router);
    await bringDown(yard);
    const after = await select({ messages: question, usedTools: new Set() });
    expect(after).toHaveLength(5);
    expect(servers(after)).toEqual(["sky"]);
    // Only the server that changed was replaced in the index: nothing was rebuilt.
    expect(updated).toEqual(["wx:0"]);
    expect(router.size).toBe(46);

    await yard.reconnect();
    expect(yard.servers().find((s) => s.name === "wx")!.status).toBe("ready");
    const back = await select({ messages: question, usedTools: new Set() });
    expect(servers(back)).toEqual(["wx"]);
    expect(updated).toEqual(["wx:0", "wx:23"]);
    expect(routerFor(yard, routing)).toBe(router);
  });

  it("createAgent tells onRoutingWarning of a pinned id the catalog lacks, once, when it builds the router", async () => {
    const yard = await fleet();
    const warnings: string[] = [];
    const routing = { pinned: ["wx_weather_forecast_a", "wx_weather_forcast_b"] };
    const options = {
      model: new ScriptedModel([]),
      onRoutingWarning: (message: string) => warnings.push(message),
    };
    createAgent(yard, { routing }, options);
    createAgent(yard, { routing }, options);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^routing\.pinned\[1\]: no tool "wx_weather_forcast_b" in the catalog \(did you mean wx_weather_forecast_b\?\)/,
      ),
    ]);
  });
});
