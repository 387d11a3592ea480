import { describe, expect, it } from "vitest";
import { createStrategy } from "../../src/routing/create-strategy.js";
import { EmbeddingsClient, EmbeddingsError } from "../../src/routing/embeddings-client.js";
import { Router } from "../../src/routing/router.js";
import { EmbeddingStrategy } from "../../src/routing/strategies/embedding.js";
import { HybridStrategy } from "../../src/routing/strategies/hybrid.js";
import { LexicalStrategy } from "../../src/routing/strategies/lexical.js";
import { startEmbeddingsServer } from "./embeddings-server.js";
import { FLEET_TOOLS } from "./tools-fixture.js";

const CONCEPTS = {
  weather: ["weather", "forecast", "rain", "sunny", "temperature"],
  danger: ["severe", "alerts", "storm", "warning"],
  money: ["refund", "money", "reimburse", "cash", "pay"],
  message: ["message", "post", "channel", "tell", "notify"],
  code: ["issue", "issues", "repository", "bug"],
  parcel: ["parcel", "shipment", "delivery"],
};
const MODEL = "concepts-1";
const ids = (tools: ReadonlyArray<{ id: string }>) => tools.map((tool) => tool.id);

describe("embedding strategy", () => {
  it("ranks by meaning where no word is shared, embedding each tool once", async () => {
    await using server = await startEmbeddingsServer(CONCEPTS);
    const router = new Router(FLEET_TOOLS, {
      strategy: new EmbeddingStrategy(
        new EmbeddingsClient({ baseURL: server.baseURL, model: MODEL, apiKey: "k-1" }),
      ),
    });
    expect(ids(await router.rank("will it rain tomorrow?", { topK: 2 }))).toEqual([
      "weather_get_forecast",
      "weather_get_alerts",
    ]);
    expect(ids(await router.rank("can I get my cash back", { topK: 1 }))).toEqual(["orders_refund_order"]);
    const toolTexts = server.requests.flatMap((request) => request.input).length - 2;
    expect(toolTexts).toBe(FLEET_TOOLS.length);
    expect(server.requests[0]).toMatchObject({ model: MODEL, authorization: "Bearer k-1" });
  });

  it("re-embeds only the tools whose text changed after a server update", async () => {
    await using server = await startEmbeddingsServer(CONCEPTS);
    const router = new Router(FLEET_TOOLS, {
      strategy: new EmbeddingStrategy(new EmbeddingsClient({ baseURL: server.baseURL, model: MODEL })),
    });
    await router.rank("storm warning");
    const weather = FLEET_TOOLS.filter((tool) => tool.server === "weather");
    router.updateServer("weather", [
      { ...weather[0]!, description: "Weather forecast for a city, rain or sunny" },
      weather[1]!,
    ]);
    const before = server.requests.length;
    await router.rank("storm warning tonight");
    expect(server.requests.slice(before).flatMap((request) => request.input)).toEqual([
      expect.stringContaining("rain or sunny"),
      "storm warning tonight",
    ]);
    // A server gone takes its tools' texts and vectors with it, in the strategy itself (the router
    // would hide a stale one).
    const strategy = new EmbeddingStrategy(new EmbeddingsClient({ baseURL: server.baseURL, model: MODEL }));
    for (const name of new Set(FLEET_TOOLS.map((tool) => tool.server)))
      strategy.setServerTools(
        name,
        FLEET_TOOLS.filter((tool) => tool.server === name),
      );
    const rain = { text: "will it rain tomorrow?" };
    expect(ids(await strategy.rank(rain, { limit: 1 }))).toEqual(["weather_get_forecast"]);
    strategy.setServerTools("weather", []);
    const left = ids(await strategy.rank(rain, { limit: 100 }));
    expect(left).toHaveLength(FLEET_TOOLS.length - weather.length);
    expect(left.filter((id) => id.startsWith("weather_"))).toEqual([]);
  });

  it("sends batches of the configured size and asks for the configured dimensions", async () => {
    await using server = await startEmbeddingsServer(CONCEPTS);
    const client = new EmbeddingsClient({
      baseURL: `${server.baseURL}/`,
      model: MODEL,
      batchSize: 5,
      dimensions: 7,
    });
    const vectors = await client.embed(["rain", "cash", "rain", "bug", "storm", "post", "parcel"]);
    expect(vectors).toHaveLength(7);
    expect(vectors[0]).toEqual(vectors[2]);
    expect(server.requests.map((request) => request.input.length)).toEqual([5, 1]);
    expect(server.requests[0]!.dimensions).toBe(7);
    expect(client.cached).toBe(6);
  });

  it("keeps at most `maxCached` vectors, dropping the least recently used", async () => {
    await using server = await startEmbeddingsServer(CONCEPTS);
    const client = new EmbeddingsClient({ baseURL: server.baseURL, model: MODEL, maxCached: 2 });
    await client.embed(["rain", "cash"]);
    await client.embed(["rain"]);
    await client.embed(["bug"]);
    expect(client.cached).toBe(2);
    await client.embed(["rain", "cash"]);
    expect(server.requests.map((request) => request.input)).toEqual([["rain", "cash"], ["bug"], ["cash"]]);
  });

  it("rejects with the URL and status when the endpoint fails", async () => {
    await using server = await startEmbeddingsServer(CONCEPTS);
    server.misbehave({ status: 503 });
    const strategy = new EmbeddingStrategy(new EmbeddingsClient({ baseURL: server.baseURL, model: MODEL }));
    strategy.setServerTools("weather", FLEET_TOOLS.slice(5, 7));
    const failure = strategy.rank({ text: "rain" }, { limit: 3 });
    await expect(failure).rejects.toBeInstanceOf(EmbeddingsError);
    await expect(failure).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining(`[POST] "${server.baseURL}/embeddings": 503`),
    });
    // The answer's body is quoted on the message's one line.
    await expect(failure).rejects.toMatchObject({
      message: expect.stringMatching(/^[^\n]*scripted failure[^\n]*$/),
    });
  });

  it("gives up after its deadline when the endpoint does not answer", async () => {
    await using server = await startEmbeddingsServer(CONCEPTS);
    server.misbehave("hang");
    const client = new EmbeddingsClient({ baseURL: server.baseURL, model: MODEL, timeoutMs: 100 });
    await expect(client.embed(["rain"])).rejects.toMatchObject({
      name: "EmbeddingsError",
      url: `${server.baseURL}/embeddings`,
    });
  });
});

describe("hybrid strategy", () => {
  it("fuses lexical and embedding rankings, so each finds what the other misses", async () => {
    await using server = await startEmbeddingsServer(CONCEPTS);
    const lexical = new Router(FLEET_TOOLS);
    const hybrid = new Router(FLEET_TOOLS, {
      strategy: createStrategy({ strategy: "hybrid", embeddings: { baseURL: server.baseURL, model: MODEL } }),
    });
    // "reimburse" is in no tool's text; "C10001" is in one parameter description and in no concept.
    const query = "reimburse customer C10001";
    expect(ids(lexical.rankNow(query, { topK: 3 }))).not.toContain("orders_refund_order");
    const fused = await hybrid.rank(query, { topK: 2 });
    expect(ids(fused).sort()).toEqual(["orders_query_recent_orders", "orders_refund_order"]);
    expect(hybrid.strategy).toBe("hybrid(lexical+embedding)");
  });

  it("falls back to the lexical ranking when the embeddings endpoint is down, and says so", async () => {
    await using server = await startEmbeddingsServer(CONCEPTS);
    server.misbehave({ status: 500 });
    const failures: string[] = [];
    const lexical = new LexicalStrategy();
    const embedding = new EmbeddingStrategy(new EmbeddingsClient({ baseURL: server.baseURL, model: MODEL }));
    const router = new Router(FLEET_TOOLS, {
      strategy: new HybridStrategy({
        strategies: [lexical, embedding],
        onError: (error, strategy) => failures.push(`${strategy}: ${(error as Error).message}`),
      }),
    });
    expect(ids(await router.rank("refund order", { topK: 1 }))).toEqual(["orders_refund_order"]);
    expect(failures).toEqual([expect.stringMatching(/^embedding: \[POST\] .* 500/)]);

    const strict = new Router(FLEET_TOOLS, {
      strategy: new HybridStrategy({ strategies: [lexical, embedding] }),
    });
    await expect(strict.rank("refund order")).rejects.toMatchObject({ status: 500 });
  });

  it("cannot be made without an embeddings endpoint", () => {
    expect(() => createStrategy({ strategy: "hybrid" })).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        message: expect.stringContaining("baseURL and model"),
      }),
    );
  });
});
