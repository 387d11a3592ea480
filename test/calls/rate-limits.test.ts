import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { NODE, ROOT, startHttpServer } from "../helpers.js";

// A server's "not now" (HTTP 429 or 503 with Retry-After) is waited for within the call's deadline,
// and a client-side `rateLimit` spreads calls: both checked on the server's own clock, by lower bounds.
const FAULT_SERVER = `${ROOT}test/fixtures/fault-server.mjs`;

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

async function yardOf(server: Record<string, unknown>, transport: "http" | "stdio" = "http") {
  let entry: Record<string, unknown> = { command: NODE, args: [FAULT_SERVER] };
  if (transport === "http") {
    const http = await startHttpServer(NODE, [FAULT_SERVER, "--http", "0"]);
    opened.push(http);
    entry = { url: http.url, transport: "http" };
  }
  const yard = await Switchyard.connect({ mcpServers: { h: { ...entry, ...server } } });
  opened.push(yard);
  expect(yard.servers()[0]!.status, yard.servers()[0]!.error).toBe("ready");
  return yard;
}

/** When the server saw each call for `id` (its own clock). */
async function timesOf(yard: Switchyard, id: string): Promise<number[]> {
  const stats = (await yard.callTool("h_stats", {})).structuredContent as { times: Record<string, number[]> };
  return stats.times[id] ?? [];
}

describe("a server that says when to come back (Retry-After)", () => {
  it("a 429 with Retry-After: 1 is waited for, then the call is sent again and succeeds", async () => {
    const yard = await yardOf({ retry: { maxRetries: 0, backoffMs: 10 } });
    const result = await yard.callTool("h_work", { id: "a", fault: "limited", retryAfter: 1 });
    expect(result.content).toEqual([{ type: "text", text: "done a" }]);
    const [first, second] = await timesOf(yard, "a");
    expect(second! - first!).toBeGreaterThanOrEqual(900);
    const state = yard.servers()[0]!;
    expect(state.breaker).toBe("closed");
  });

  it("an HTTP-date in Retry-After is waited for too", async () => {
    const yard = await yardOf({});
    await yard.callTool("h_work", { id: "d", fault: "limited", retryAfter: 2, date: true });
    const [first, second] = await timesOf(yard, "d");
    // An HTTP-date has whole seconds: two seconds ahead is at least one second away.
    expect(second! - first!).toBeGreaterThanOrEqual(900);
  });

  it("a 503 with Retry-After is waited for alike, and never counts against the breaker", async () => {
    const yard = await yardOf({ circuitBreaker: { failureThreshold: 1, cooldownMs: 60_000 } });
    await yard.callTool("h_work", { id: "u", fault: "limited", status: 503, retryAfter: 1 });
    const [first, second] = await timesOf(yard, "u");
    expect(second! - first!).toBeGreaterThanOrEqual(900);
    expect(yard.servers()[0]!.breaker).toBe("closed");
  });

  it("past the call's deadline fails RATE_LIMITED, saying when to try again", async () => {
    const yard = await yardOf({ circuitBreaker: { failureThreshold: 1, cooldownMs: 60_000 } });
    for (const status of [429, 503]) {
      const id = `late${status}`;
      const error = await yard
        .callTool("h_work", { id, fault: "limited", status, retryAfter: 30 }, { timeoutMs: 1_000 })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "RATE_LIMITED", server: "h", delivery: "transient", status });
      const { retryAfterMs, message } = error as { retryAfterMs: number; message: string };
      expect(retryAfterMs).toBeGreaterThan(25_000);
      expect(message).toMatch(/server h .*HTTP \d{3}.*try again in 30 s \(after \d{4}-\d\d-\d\dT/);
      expect(await timesOf(yard, id)).toHaveLength(1);
    }
    expect(yard.servers()[0]!.breaker).toBe("closed");
  });
});

describe("a client-side rate limit (rateLimit)", () => {
  it.each(["http", "stdio"] as const)(
    "spreads calls (%s): perSecond 2 with a burst of 1 sends 5 calls ≥ ~0.5 s apart",
    async (transport) => {
      const yard = await yardOf({ rateLimit: { perSecond: 2, burst: 1 } }, transport);
      await Promise.all(["0", "1", "2", "3", "4"].map((n) => yard.callTool("h_work", { id: `r${n}` })));
      const times = (await Promise.all(["0", "1", "2", "3", "4"].map((n) => timesOf(yard, `r${n}`)))).flat();
      times.sort((a, b) => a - b);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(400);
    },
  );

  it("a call whose token comes after its deadline fails RATE_LIMITED at once", async () => {
    const yard = await yardOf({ rateLimit: { perMinute: 1 } });
    await yard.callTool("h_work", { id: "m0" });
    const error = await yard.callTool("h_work", { id: "m1" }, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "RATE_LIMITED", server: "h", tool: "work", serverFault: false });
    expect((error as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(30_000);
    expect((error as Error).message).toContain("rateLimit");
  });
  it("calls that waited for the fleet-wide slot together still reach the server spaced by its rateLimit", async () => {
    const yard = await Switchyard.connect({
      limits: { inFlight: 1 },
      mcpServers: {
        h: { command: NODE, args: [FAULT_SERVER], rateLimit: { perSecond: 1 } },
        g: { command: NODE, args: [FAULT_SERVER] },
      },
    });
    opened.push(yard);
    // g holds the one fleet slot for 3 s while four calls to h queue for it.
    const slow = yard.callTool("g_work", { id: "g", fault: "slow", ms: 3_000 }, { timeoutMs: 30_000 });
    await delay(200);
    const calls = [0, 1, 2, 3].map((i) => yard.callTool("h_work", { id: `s${i}` }, { timeoutMs: 30_000 }));
    await Promise.all([slow, ...calls]);
    const times = (await Promise.all([0, 1, 2, 3].map((i) => timesOf(yard, `s${i}`)))).flat();
    times.sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(900);
  });

  it("a call waiting for its rateLimit turn holds no fleet slot (limits.inFlight 1): another server's call goes first", async () => {
    const yard = await Switchyard.connect({
      limits: { inFlight: 1 },
      mcpServers: {
        h: { command: NODE, args: [FAULT_SERVER], rateLimit: { perMinute: 20 } },
        g: { command: NODE, args: [FAULT_SERVER] },
      },
    });
    opened.push(yard);
    const finished: string[] = [];
    const done = (what: string) => () => finished.push(what);
    // The second call to h has its turn 3 s after the first; it must not sit on the one fleet slot.
    const first = yard.callTool("h_work", { id: "t0" }).then(done("h first"));
    const second = yard.callTool("h_work", { id: "t1" }, { timeoutMs: 30_000 }).then(done("h second"));
    await first;
    await delay(200);
    await yard.callTool("g_work", { id: "c" }).then(done("g"));
    await second;
    expect(finished).toEqual(["h first", "g", "h second"]);
  });
});

describe("a call waiting out a Retry-After holds no slot while it sleeps", () => {
  it("other calls to the same server (maxConcurrency 1) and to another (limits.inFlight 1) go on meanwhile", async () => {
    const http = await startHttpServer(NODE, [FAULT_SERVER, "--http", "0"]);
    opened.push(http);
    const yard = await Switchyard.connect({
      limits: { inFlight: 1 },
      mcpServers: {
        h: { url: http.url, transport: "http", maxConcurrency: 1 },
        g: { command: NODE, args: [FAULT_SERVER] },
      },
    });
    opened.push(yard);
    // A second client of the same server, with its own slots, to see what the server saw.
    const observer = await Switchyard.connect({ mcpServers: { h: { url: http.url, transport: "http" } } });
    opened.push(observer);
    const finished: string[] = [];
    // Refused twice, 2 s each: the first refusal comes on the fast path, the second once the call is
    // back through the queue and the fleet-wide limit — the wait that must hold neither.
    const limited = yard
      .callTool("h_work", { id: "a", fault: "limited", retryAfter: 2, times: 2 }, { timeoutMs: 60_000 })
      .then((result) => {
        finished.push("a");
        return result;
      });
    while ((await timesOf(observer, "a")).length < 2) await delay(50);
    const others = [
      yard.callTool("h_work", { id: "b" }).then(() => finished.push("b h")),
      yard.callTool("g_work", { id: "c" }).then(() => finished.push("c g")),
    ];
    await Promise.all([limited, ...others]);
    expect((await limited).content).toEqual([{ type: "text", text: "done a" }]);
    expect(finished.at(-1)).toBe("a");
    expect(await timesOf(observer, "a")).toHaveLength(3);
    expect(yard.servers().map((server) => server.inFlight)).toEqual([0, 0]);
  });
});
