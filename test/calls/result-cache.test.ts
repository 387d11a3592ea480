import { afterEach, describe, expect, it } from "vitest";
import { ResultCache } from "../../src/calls/result-cache.js";
import type { CatalogEntry } from "../../src/catalog/catalog.js";
import { resolveConfig } from "../../src/config/index.js";
import { Switchyard, type SwitchyardEvent, type WireRecord } from "../../src/index.js";
import { failureOf, memoryLogger, NODE, ROOT, SDK_SERVER, startHttpServer, waitFor } from "../helpers.js";

const COUNTING_SERVER = `${ROOT}test/fixtures/counting-server.mjs`;
const alice = { user: "alice", roles: [] };
const bob = { user: "bob", roles: [] };

const opened: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((yard) => yard.close()));
});

async function yardOf(
  cache: Record<string, unknown> | undefined,
  events: SwitchyardEvent[] = [],
  options: Parameters<typeof Switchyard.connect>[1] = {},
) {
  const yard = await Switchyard.connect(
    { mcpServers: { c: { command: NODE, args: [COUNTING_SERVER], ...(cache ? { cache } : {}) } } },
    { observer: { onEvent: (event) => events.push(event) }, ...options },
  );
  opened.push(yard);
  return yard;
}

/** The calls the server saw, by tool. */
async function seen(yard: Switchyard): Promise<Record<string, number>> {
  return JSON.parse((await yard.callTool("c_seen", {})).text) as Record<string, number>;
}

describe("the result cache", () => {
  it("serves a read-only tool's second identical call (keys in another order) without sending it, and records it", async () => {
    const events: SwitchyardEvent[] = [];
    const yard = await yardOf({ ttlMs: 60_000 }, events);
    const first = await yard.callTool("c_lookup", { a: 1, b: { x: 1, y: 2 } }, { identity: alice });
    const second = await yard.callTool("c_lookup", { b: { y: 2, x: 1 }, a: 1 }, { identity: alice });
    expect(first.cached).toBeUndefined();
    expect(second).toMatchObject({ cached: true, isError: false, text: first.text });
    expect(await seen(yard)).toEqual({ lookup: 1 });
    // What a caller does to its copy stays its own.
    second.text = "changed";
    (second.content[0] as { text: string }).text = "changed";
    const third = await yard.callTool("c_lookup", { a: 1, b: { x: 1, y: 2 } }, { identity: alice });
    expect(third).toMatchObject({ cached: true, text: first.text, content: first.content });
    const finished = events.filter((event) => event.type === "call_finished" && event.name === "c_lookup");
    expect(finished.map((event) => (event as { cached?: true }).cached)).toEqual([undefined, true, true]);
    // Other arguments are another call.
    await yard.callTool("c_lookup", { a: 2 }, { identity: alice });
    expect(await seen(yard)).toEqual({ lookup: 2 });
  });

  it("keeps each identity's results apart", async () => {
    const yard = await yardOf({ ttlMs: 60_000 });
    await yard.callTool("c_lookup", { q: 1 }, { identity: alice });
    const bobs = await yard.callTool("c_lookup", { q: 1 }, { identity: bob });
    expect(bobs.cached).toBeUndefined();
    expect(await seen(yard)).toEqual({ lookup: 2 });
    expect((await yard.callTool("c_lookup", { q: 1 }, { identity: bob })).cached).toBe(true);
    expect(await seen(yard)).toEqual({ lookup: 2 });
  });

  it("asks the policy first: a call it refuses is refused though its result is cached", async () => {
    const yard = await Switchyard.connect({
      mcpServers: { c: { command: NODE, args: [COUNTING_SERVER], cache: { ttlMs: 60_000 } } },
      policy: { default: "allow", rules: [{ effect: "deny", roles: ["guest"], tools: ["c_lookup"] }] },
    });
    opened.push(yard);
    await yard.callTool("c_lookup", { q: 1 }, { identity: alice });
    // The same user id, as a guest: the key would match, the policy refuses before the cache is asked.
    const refused = await failureOf(
      yard.callTool("c_lookup", { q: 1 }, { identity: { user: "alice", roles: ["guest"] } }),
    );
    expect(refused.code).toBe("POLICY_DENIED");
    expect((await yard.callTool("c_lookup", { q: 1 }, { identity: alice })).cached).toBe(true);
  });

  it("sends the call again once ttlMs has passed", async () => {
    const yard = await yardOf({ ttlMs: 100 });
    await yard.callTool("c_lookup", { q: 1 });
    await new Promise((resolve) => setTimeout(resolve, 150)); // at least the ttl
    const again = await yard.callTool("c_lookup", { q: 1 });
    expect(again.cached).toBeUndefined();
    expect(await seen(yard)).toEqual({ lookup: 2 });
  });

  it("serves a result until ttlMs after it was kept, not at ttlMs (an injected clock)", () => {
    let now = 1_000;
    const cache = new ResultCache({ ttlMs: 500, maxEntries: 10, tools: [] }, () => now);
    const entry = { annotations: { readOnlyHint: true } } as unknown as CatalogEntry;
    const key = cache.keyOf("lookup", entry, { b: 1, a: 2 }, alice)!;
    expect(cache.keyOf("lookup", entry, { a: 2, b: 1 }, alice)).toBe(key);
    expect(cache.keyOf("lookup", entry, { a: 2, b: 1 }, bob)).not.toBe(key);
    expect(cache.keyOf("lookup", undefined, { a: 2, b: 1 }, alice)).toBeUndefined();
    cache.set(key, { isError: false, content: [], text: "kept" });
    now += 499;
    expect(cache.get(key)?.text).toBe("kept");
    now += 1;
    expect(cache.get(key)).toBeUndefined();
  });

  it("caches a tool without readOnlyHint only when cache.tools names it", async () => {
    const plain = await yardOf({ ttlMs: 60_000 });
    await plain.callTool("c_scan", { q: 1 });
    expect((await plain.callTool("c_scan", { q: 1 })).cached).toBeUndefined();
    expect(await seen(plain)).toEqual({ scan: 2 });

    const named = await yardOf({ ttlMs: 60_000, tools: ["sc*"] });
    await named.callTool("c_scan", { q: 1 });
    expect((await named.callTool("c_scan", { q: 1 })).cached).toBe(true);
    expect(await seen(named)).toEqual({ scan: 1 });
  });

  it("keeps no error result", async () => {
    const yard = await yardOf({ ttlMs: 60_000 });
    await yard.callTool("c_broken", { q: 1 });
    const again = await yard.callTool("c_broken", { q: 1 });
    expect(again).toMatchObject({ isError: true });
    expect(again.cached).toBeUndefined();
    expect(await seen(yard)).toEqual({ broken: 2 });
  });

  it("is emptied when the server says its tools changed", async () => {
    const { logger, lines } = memoryLogger();
    const yard = await yardOf({ ttlMs: 60_000 }, [], { logger });
    await yard.callTool("c_lookup", { q: 1 });
    expect((await yard.callTool("c_lookup", { q: 1 })).cached).toBe(true);
    await yard.callTool("c_announce", {});
    await waitFor(() => lines().some((line) => line.msg === "tool list changed"), 5_000, "the listing again");
    const after = await yard.callTool("c_lookup", { q: 1 });
    expect(after.cached).toBeUndefined();
    expect(await seen(yard)).toMatchObject({ lookup: 2 });
  });

  it("is emptied when the server's pins change (switchyard trust)", async () => {
    const yard = await yardOf({ ttlMs: 60_000 });
    await yard.callTool("c_lookup", { q: 1 });
    expect((await yard.callTool("c_lookup", { q: 1 })).cached).toBe(true);
    yard.trust("c");
    expect((await yard.callTool("c_lookup", { q: 1 })).cached).toBeUndefined();
    expect(await seen(yard)).toEqual({ lookup: 2 });
  });

  it("drops the least recently used result past maxEntries", async () => {
    const yard = await yardOf({ ttlMs: 60_000, maxEntries: 2 });
    await yard.callTool("c_lookup", { q: 1 });
    await yard.callTool("c_lookup", { q: 2 });
    expect((await yard.callTool("c_lookup", { q: 1 })).cached).toBe(true); // q1 now most recent
    await yard.callTool("c_lookup", { q: 3 }); // pushes out q2
    expect((await yard.callTool("c_lookup", { q: 1 })).cached).toBe(true);
    expect((await yard.callTool("c_lookup", { q: 2 })).cached).toBeUndefined();
    expect(await seen(yard)).toEqual({ lookup: 4 });
  });

  it("costs nothing and changes nothing without a cache section", async () => {
    const yard = await yardOf(undefined);
    await yard.callTool("c_lookup", { q: 1 });
    expect((await yard.callTool("c_lookup", { q: 1 })).cached).toBeUndefined();
    expect(await seen(yard)).toEqual({ lookup: 2 });
  });

  it("works the same over Streamable HTTP (a tool named in cache.tools)", async () => {
    const http = await startHttpServer(NODE, [SDK_SERVER, "--http", "0"]);
    try {
      const wire: WireRecord[] = [];
      const yard = await Switchyard.connect(
        {
          mcpServers: { s: { url: http.url, transport: "http", cache: { ttlMs: 60_000, tools: ["echo"] } } },
        },
        { wireTrace: (record) => wire.push(record) },
      );
      opened.push(yard);
      const sent = () =>
        wire.filter(
          (r) => r.direction === "to-server" && (r.message as { method?: string }).method === "tools/call",
        ).length;
      const first = await yard.callTool("s_echo", { text: "hi" });
      const second = await yard.callTool("s_echo", { text: "hi" });
      expect(second).toMatchObject({ cached: true, text: first.text });
      expect(sent()).toBe(1);
    } finally {
      await http.close();
    }
  });

  it("is a server key the config checks: ttlMs is required", () => {
    const config = resolveConfig(
      { mcpServers: { c: { command: "x", cache: { ttlMs: 1000, tools: ["a*"] } } } },
      { baseDir: "/cfg", env: {} },
    );
    expect(config.servers[0]!.cache).toEqual({ ttlMs: 1000, maxEntries: 1000, tools: ["a*"] });
    expect(() =>
      resolveConfig(
        { mcpServers: { c: { command: "x", cache: { maxEntries: 5 } } } },
        { baseDir: "/cfg", env: {} },
      ),
    ).toThrow(/cache/);
  });
});

describe("identical calls at once (the result cache coalesces them)", () => {
  it("sends one request for identical calls in flight together; the others get a copy of its result, cached: true", async () => {
    const yard = await yardOf({ ttlMs: 60_000 });
    const args = { q: "same", ms: 300 };
    const results = await Promise.all(
      [0, 1, 2, 3].map(() => yard.callTool("c_lookup", args, { identity: alice })),
    );
    expect(await seen(yard)).toEqual({ lookup: 1 });
    expect(new Set(results.map((result) => result.text)).size).toBe(1);
    expect(results.filter((result) => result.cached === true)).toHaveLength(3);
    // Each has its own copy.
    results[1]!.text = "changed";
    expect(results[2]!.text).toBe(results[0]!.text);
    // Another identity, or other arguments, is another request.
    await Promise.all([
      yard.callTool("c_lookup", args, { identity: bob }),
      yard.callTool("c_lookup", { ...args, q: "other" }, { identity: alice }),
    ]);
    expect(await seen(yard)).toEqual({ lookup: 3 });
  });

  it("hands its failure to each waiter and keeps none: the next call is sent again", async () => {
    const yard = await Switchyard.connect({
      mcpServers: {
        c: { command: NODE, args: [COUNTING_SERVER], cache: { ttlMs: 60_000 }, retry: { maxRetries: 0 } },
      },
    });
    opened.push(yard);
    const args = { q: "bad", ms: 300, fail: true };
    const failures = await Promise.all([0, 1, 2].map(() => failureOf(yard.callTool("c_lookup", args))));
    expect(await seen(yard)).toEqual({ lookup: 1 });
    for (const failure of failures) expect(failure.message).toContain("lookup failed (call 1)");
    await failureOf(yard.callTool("c_lookup", args));
    expect(await seen(yard)).toEqual({ lookup: 2 });
    // A tool's error result alike: shared by the calls at once, kept for none.
    const broken = await Promise.all([0, 1].map(() => yard.callTool("c_broken", { ms: 300 })));
    expect(broken.map((result) => result.isError)).toEqual([true, true]);
    expect((await yard.callTool("c_broken", { ms: 300 })).cached).toBeUndefined();
    expect(await seen(yard)).toEqual({ lookup: 2, broken: 2 });
  });

  it("a waiter whose own deadline passes first fails TIMEOUT without sending; the first call still answers", async () => {
    const yard = await yardOf({ ttlMs: 60_000 });
    const first = yard.callTool("c_lookup", { q: "slow", ms: 2_000 });
    const waiter = await failureOf(yard.callTool("c_lookup", { q: "slow", ms: 2_000 }, { timeoutMs: 200 }));
    expect(waiter).toMatchObject({ code: "TIMEOUT", delivery: "not_sent" });
    expect(waiter.message).toContain("waited for an identical call in flight");
    expect((await first).isError).toBe(false);
    expect(await seen(yard)).toEqual({ lookup: 1 });
  });
});
