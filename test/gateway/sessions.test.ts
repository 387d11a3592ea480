// 2025-11-25 HTTP sessions kept in the store: two gateways over one SQLite store stand for two replicas
// (or one gateway before and after a restart). A session begun at one is taken up by the other; it
// stays its user's; a session the client ended, or one left unused too long, is gone everywhere; and a
// store that fails leaves the session working where it began.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway, type HttpListener, listenHttp } from "../../src/gateway/index.js";
import { openStore, type Store, Switchyard } from "../../src/index.js";
import { sdk } from "../helpers.js";

let dir: string;
let store: Store;
let yard: Switchyard;
const open: Array<{ gateway: Gateway; listener: HttpListener }> = [];

/** A gateway over the one Switchyard and the store; `x-test-user` names who a request is for. */
async function replica(sessionStore: Store | undefined = store) {
  const errors: unknown[] = [];
  const gateway = createGateway(yard, {
    ...(sessionStore ? { sessionStore, onSessionStoreError: (error: unknown) => errors.push(error) } : {}),
    authenticate: (request) => {
      const user = request.headers.get("x-test-user");
      return user === null ? undefined : { user, roles: [] };
    },
  });
  const listener = await listenHttp(gateway, { port: 0 });
  open.push({ gateway, listener });
  return { gateway, listener, url: listener.url, errors };
}

/**
 * A 2025-11-25 SDK client whose requests go, in turn, to each of `urls` (a round-robin balancer),
 * as `user`; `sent` has the URL of every request.
 */
function roundRobin(urls: string[], user = "alice") {
  const sent: string[] = [];
  let next = 0;
  const transport = new StreamableHTTPClientTransport(new URL(urls[0]!), {
    fetch: (input, init) => {
      const url = urls[next++ % urls.length]!;
      sent.push(url);
      const headers = new Headers(init?.headers);
      headers.set("x-test-user", user);
      void input;
      return fetch(url, { ...init, headers });
    },
  });
  return { client: new Client({ name: "sessions-test", version: "1" }), transport, sent };
}

/** One `tools/list` POST with a session id, as `user`, straight to a gateway. */
function listWith(url: string, sessionId: string, user = "alice") {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25",
      "x-test-user": user,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-gateway-sessions-"));
  store = await openStore({ path: path.join(dir, "store.db") });
  yard = await Switchyard.connect({ mcpServers: { sdk: sdk("--tools", "echo") } });
});

afterAll(async () => {
  for (const { gateway, listener } of open) {
    await listener.close();
    await gateway.close();
  }
  await yard?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("2025-11-25 sessions kept in the store", () => {
  it("a session begun at one gateway is taken up by another that shares the store, request after request", async () => {
    const [a, b] = [await replica(), await replica()];
    const { client, transport, sent } = roundRobin([a.url, b.url]);
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    for (let i = 0; i < 4; i += 1) {
      const result = await client.callTool({ name: "sdk_echo", arguments: { text: `hi ${i}` } });
      expect(JSON.stringify(result.content)).toContain(`hi ${i}`);
    }
    expect(new Set(sent)).toEqual(new Set([a.url, b.url]));
    const stored = await store.gatewaySession(transport.sessionId!);
    expect(stored).toMatchObject({ id: transport.sessionId, user: "alice" });
    expect(stored?.initialize).toMatchObject({ method: "initialize" });
    await client.close();
  });

  it("is taken up after the gateway that began it is closed (a restart, or a replica gone)", async () => {
    const first = await replica();
    const { client, transport } = roundRobin([first.url]);
    await client.connect(transport);
    const id = transport.sessionId!;
    await first.listener.close();
    await first.gateway.close();
    const second = await replica();
    const answer = await listWith(second.url, id);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain("sdk_echo");
  });

  it("stays its user's: another user's request with its id is refused at the gateway that takes it up", async () => {
    const [a, b] = [await replica(), await replica()];
    const { client, transport } = roundRobin([a.url], "alice");
    await client.connect(transport);
    // Both at once at a gateway that does not hold it yet: the owner's is taken up, the other refused.
    const [other, owner] = await Promise.all([
      listWith(b.url, transport.sessionId!, "mallory"),
      listWith(b.url, transport.sessionId!, "alice"),
    ]);
    expect(other.status).toBe(403);
    expect(await other.text()).toContain("another user");
    expect(owner.status).toBe(200);
    expect(await owner.text()).toContain("sdk_echo");
    expect((await listWith(b.url, transport.sessionId!, "mallory")).status).toBe(403);
    await client.close();
  });

  it("a session the client ended (DELETE) is gone at every gateway", async () => {
    const [a, b] = [await replica(), await replica()];
    const { client, transport } = roundRobin([a.url]);
    await client.connect(transport);
    const id = transport.sessionId!;
    await transport.terminateSession();
    await client.close();
    await expect.poll(() => store.gatewaySession(id)).toBeUndefined();
    const answer = await listWith(b.url, id);
    expect(answer.status).toBe(404);
    expect(await answer.text()).toContain("Session not found");
  });

  it("a session unused past the idle limit is not taken up, and is forgotten", async () => {
    const b = await replica();
    const old = new Date(Date.now() - 25 * 60 * 60_000).toISOString();
    await store.saveGatewaySession({
      id: "stale-session",
      user: "alice",
      createdAt: old,
      usedAt: old,
      initialize: {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "old", version: "1" },
        },
      },
    });
    expect((await listWith(b.url, "stale-session")).status).toBe(404);
    await expect.poll(() => store.gatewaySession("stale-session")).toBeUndefined();
    expect((await listWith(b.url, "no-such-session")).status).toBe(404);
  });

  it("a store that fails leaves the session working where it began, and says so", async () => {
    const broken = await openStore({ path: path.join(dir, "broken.db") });
    await broken.close(); // every write now fails
    const a = await replica(broken);
    const { client, transport } = roundRobin([a.url]);
    await client.connect(transport);
    const result = await client.callTool({ name: "sdk_echo", arguments: { text: "still here" } });
    expect(JSON.stringify(result.content)).toContain("still here");
    expect(a.errors.length).toBeGreaterThan(0);
    expect(String(a.errors[0])).toMatch(/store/i);
    await client.close();
  });
});
