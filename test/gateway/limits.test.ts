// The gateway's limits per identity, over real HTTP with real bearer tokens (alice and bob), a real
// server and a real SQLite session store: one identity at its cap of sessions or of open streams is
// answered 429 with Retry-After while another goes on; a stream that closes frees its place; the
// store's rows stay within the cap; a stored session left unused past its idle limit is deleted and its
// id answered 404. Time is the gateway's clock, moved by the test (nothing sleeps).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGatewayAuth } from "../../src/gateway/auth.js";
import { createGateway, type Gateway, type HttpListener, listenHttp } from "../../src/gateway/index.js";
import { openStore, resolveConfig, type Store, Switchyard } from "../../src/index.js";
import { openSqlite } from "../../src/store/sqlite-engine.js";
import { sdk } from "../helpers.js";
import { httpClient, textOf } from "./fleet.js";

const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef" };
type User = keyof typeof TOKENS;

let dir: string;
let yard: Switchyard;
/** Each test's own SQLite store (the one `serve` gives its gateway), and its file. */
let store: Store;
let storeFile: string;
const stores: Store[] = [];
const open: Array<{ gateway: Gateway; listener: HttpListener }> = [];

/** A gateway with bearer tokens for alice and bob, the store, and a clock the test moves. */
async function serve(
  limits: { sessionsPerUser?: number; streamsPerUser?: number; sessionIdleMs?: number },
  clock = testClock(),
) {
  const auth = createGatewayAuth(
    {
      tokens: [
        { token: TOKENS.alice, user: "alice" },
        { token: TOKENS.bob, user: "bob" },
      ],
    },
    { resourceUrl: "http://127.0.0.1/mcp" },
  );
  const gateway = createGateway(yard, {
    authenticate: auth.authenticate,
    sessionStore: store,
    clock,
    ...limits,
  });
  const listener = await listenHttp(gateway, { port: 0 });
  open.push({ gateway, listener });
  return { url: listener.url, clock, gateway, listener };
}

/** A wall clock that stands still until the test moves it. */
function testClock() {
  let now = Date.now();
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

const headersOf = (user: User, sessionId?: string): Record<string, string> => ({
  authorization: `Bearer ${TOKENS[user]}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
  ...(sessionId ? { "mcp-session-id": sessionId } : {}),
});

/** A 2025-11-25 `initialize` and `notifications/initialized`: the session's id, or the refusal. */
async function initialize(url: string, user: User): Promise<{ id?: string; refusal?: Response }> {
  const opened = await fetch(url, {
    method: "POST",
    headers: headersOf(user),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: user, version: "1" } },
    }),
  });
  if (!opened.ok) return { refusal: opened };
  await opened.text();
  const id = opened.headers.get("mcp-session-id")!;
  const done = await post(url, user, id, { jsonrpc: "2.0", method: "notifications/initialized" });
  expect(done.status).toBe(202);
  return { id };
}

function post(url: string, user: User, sessionId: string, message: unknown, signal?: AbortSignal) {
  return fetch(url, {
    method: "POST",
    headers: headersOf(user, sessionId),
    body: JSON.stringify(message),
    ...(signal ? { signal } : {}),
  });
}

/** `tools/list` in a session: its status (the body read). */
async function listIn(url: string, user: User, sessionId: string): Promise<number> {
  const answer = await post(url, user, sessionId, { jsonrpc: "2.0", id: 2, method: "tools/list" });
  await answer.text();
  return answer.status;
}

/** The session's GET stream (server-to-client messages), held open until `abort`. */
async function getStream(url: string, user: User, sessionId: string) {
  const abort = new AbortController();
  const response = await fetch(url, { headers: headersOf(user, sessionId), signal: abort.signal });
  return { response, close: () => abort.abort() };
}

/** A refusal's status, Retry-After and JSON-RPC error. */
async function refusalOf(response: Response) {
  const body = (await response.json()) as { error: { code: number; message: string; data?: unknown } };
  return { status: response.status, retryAfter: response.headers.get("retry-after"), error: body.error };
}

/** Rows of `gateway_sessions` for a user, read from the SQLite file itself. */
function storedRows(user: string): number {
  const db = openSqlite(storeFile, { readonly: true });
  try {
    return (
      db.prepare("SELECT COUNT(*) AS n FROM gateway_sessions WHERE user_id = ?").get(user) as { n: number }
    ).n;
  } finally {
    db.close();
  }
}

/** Bob, as an SDK client: he initializes and calls a tool. */
async function bobCalls(url: string): Promise<string> {
  const client = await httpClient(url, "legacy", { headers: { authorization: `Bearer ${TOKENS.bob}` } });
  try {
    return textOf(await client.callTool({ name: "sdk_echo", arguments: { text: "bob is in" } }));
  } finally {
    await client.close();
  }
}

beforeEach(async () => {
  storeFile = path.join(dir, `store-${stores.length}.db`);
  store = await openStore({ path: storeFile });
  stores.push(store);
});

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-gateway-limits-"));
  yard = await Switchyard.connect({ mcpServers: { sdk: sdk("--tools", "echo") } });
}, 30_000);

afterAll(async () => {
  for (const { gateway, listener } of open) {
    await listener.close();
    await gateway.close();
  }
  await yard?.close();
  for (const one of stores) await one.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("sessions per identity", () => {
  it("alice past her cap is answered 429 with Retry-After, the store keeps no more of hers, and bob still gets in", async () => {
    const { url } = await serve({ sessionsPerUser: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await initialize(url, "alice")).id!);
    const { refusal } = await initialize(url, "alice");
    expect(refusal).toBeDefined();
    const { status, retryAfter, error } = await refusalOf(refusal!);
    expect(status).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(error.message).toMatch(/alice/);
    expect(error.message).toMatch(/gateway\.limits\.sessionsPerUser/);
    expect(error.message).toMatch(/DELETE/);
    expect(error.data).toMatchObject({ limit: "sessionsPerUser", max: 3 });
    // Many more from the one token: every one refused, the table holds her 3.
    for (let i = 0; i < 20; i++) expect((await initialize(url, "alice")).refusal?.status).toBe(429);
    expect(storedRows("alice")).toBe(3);
    // Her sessions still work, and bob is not held up by her.
    for (const id of ids) expect(await listIn(url, "alice", id)).toBe(200);
    expect(await bobCalls(url)).toContain("bob is in");
  });

  it("a session of hers unused for long gives its place to her new one (a client that never said DELETE does not lock her out)", async () => {
    const { url, clock } = await serve({ sessionsPerUser: 2 });
    const [first, second] = [(await initialize(url, "alice")).id!, (await initialize(url, "alice")).id!];
    expect((await initialize(url, "alice")).refusal?.status).toBe(429);
    clock.advance(11 * 60_000);
    expect(await listIn(url, "alice", second)).toBe(200); // used again: the first is unused longest
    const third = (await initialize(url, "alice")).id;
    expect(third).toBeDefined();
    expect(await listIn(url, "alice", first)).toBe(404);
    expect(await listIn(url, "alice", second)).toBe(200);
    expect(await store.gatewaySession(first)).toBeUndefined();
  });
});

describe("open streams per identity", () => {
  it("alice's GET streams and calls in flight past her cap are 429; closing one frees its place; bob goes on", async () => {
    const { url } = await serve({ sessionsPerUser: 5, streamsPerUser: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await initialize(url, "alice")).id!);
    const one = await getStream(url, "alice", ids[0]!);
    const two = await getStream(url, "alice", ids[1]!);
    expect([one.response.status, two.response.status]).toEqual([200, 200]);
    const third = await getStream(url, "alice", ids[2]!);
    const { status, retryAfter, error } = await refusalOf(third.response);
    expect(status).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(error.message).toMatch(/gateway\.limits\.streamsPerUser/);
    expect(error.data).toMatchObject({ limit: "streamsPerUser", max: 2 });
    // A call of hers is a stream too: refused while her two GET streams are open.
    expect((await post(url, "alice", ids[2]!, { jsonrpc: "2.0", id: 3, method: "tools/list" })).status).toBe(
      429,
    );
    expect(await bobCalls(url)).toContain("bob is in");
    // Her first stream closes: its place is hers again.
    one.close();
    await expect
      .poll(async () => {
        const again = await getStream(url, "alice", ids[2]!);
        if (again.response.status === 200) again.close();
        else await again.response.text();
        return again.response.status;
      })
      .toBe(200);
    two.close();
  });

  it("a call in flight holds its place until it ends (or its client goes)", async () => {
    const slowYard = await Switchyard.connect({ mcpServers: { sdk: sdk("--tools", "echo") } });
    const auth = createGatewayAuth(
      { tokens: [{ token: TOKENS.alice, user: "alice" }] },
      { resourceUrl: "http://127.0.0.1/mcp" },
    );
    const gateway = createGateway(slowYard, { authenticate: auth.authenticate, streamsPerUser: 1 });
    const listener = await listenHttp(gateway, { port: 0 });
    try {
      const id = (await initialize(listener.url, "alice")).id!;
      const abort = new AbortController();
      const sleeping = post(
        listener.url,
        "alice",
        id,
        {
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: { name: "sdk_sleep", arguments: { ms: 60_000 } },
        },
        abort.signal,
      );
      // The call holds alice's one place until it is answered (its answer is JSON, or an SSE stream
      // once the server sends something first: either way the response is open until the call ends).
      await expect.poll(() => listIn(listener.url, "alice", id), { timeout: 20_000 }).toBe(429);
      abort.abort();
      await sleeping.catch(() => {});
      await expect.poll(() => listIn(listener.url, "alice", id)).toBe(200);
    } finally {
      await listener.close();
      await gateway.close();
      await slowYard.close();
    }
  });
});

describe("stored sessions expire", () => {
  it("a session unused past sessionIdleMs is answered 404 and its row deleted", async () => {
    const { url, clock } = await serve({ sessionIdleMs: 60 * 60_000 });
    const id = (await initialize(url, "alice")).id!;
    clock.advance(30 * 60_000);
    expect(await listIn(url, "alice", id)).toBe(200); // used within the limit: kept
    clock.advance(2 * 60 * 60_000);
    const answer = await post(url, "alice", id, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(answer.status).toBe(404);
    expect(await answer.text()).toContain("Session not found");
    expect(await store.gatewaySession(id)).toBeUndefined();
    expect(storedRows("alice")).toBe(0);
  });

  it("a gateway that starts deletes the rows that have expired, without being asked for them", async () => {
    const clock = testClock();
    const long = new Date(clock.now() - 2 * 60 * 60_000).toISOString();
    const recent = new Date(clock.now() - 10 * 60_000).toISOString();
    const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: {} };
    await store.saveGatewaySession({ id: "old", user: "alice", createdAt: long, usedAt: long, initialize });
    await store.saveGatewaySession({
      id: "new",
      user: "alice",
      createdAt: recent,
      usedAt: recent,
      initialize,
    });
    await serve({ sessionIdleMs: 60 * 60_000 }, clock);
    await expect.poll(() => store.gatewaySession("old")).toBeUndefined();
    expect(await store.gatewaySession("new")).toBeDefined();
  });
});

describe("the config", () => {
  it("takes gateway.limits and refuses a limit that is not a positive integer", () => {
    const config = resolveConfig(
      {
        mcpServers: {},
        gateway: { limits: { sessionsPerUser: 5, streamsPerUser: 10, sessionIdleMs: 60_000 } },
      },
      { baseDir: dir, env: {} },
    );
    expect(config.gateway?.limits).toEqual({ sessionsPerUser: 5, streamsPerUser: 10, sessionIdleMs: 60_000 });
    expect(() =>
      resolveConfig(
        { mcpServers: {}, gateway: { limits: { streamsPerUser: 0 } } },
        { baseDir: dir, env: {} },
      ),
    ).toThrow(/gateway\.limits\.streamsPerUser/);
  });
});
