// Sealed 2025-11-25 sessions against real `switchyard serve --http` processes with no store: the session
// travels in its `Mcp-Session-Id` (gateway.sessionKey, from the environment), so a replica that never saw
// it serves it. A: key K1. B: key K2, K1 as a previous key (a rotation). C: as B, sessions sealed for 5 s
// (time enough, on a loaded machine, to use one before it expires). An altered id, an expired one,
// another user's, and one sealed by a key a replica does not accept are refused, each with the status
// and a message that says what to do.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type HttpServer, NODE, sdk, startHttpServer } from "../helpers.js";

const K1 = "the-first-session-key-of-this-test-0001";
const K2 = "the-second-session-key-of-this-test-0002";
const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";
const MAX_AGE_MS = 5_000;

let dir: string;
const servers: HttpServer[] = [];
let a: string;
let b: string;
let c: string;

/** A `serve --http` whose session keys come from its environment, as a deployment gives them. */
async function replica(name: string, keys: { key: string; previous?: string; maxAgeMs?: number }) {
  const config = join(dir, `${name}.config.json`);
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { sdk: sdk("--tools", "echo") },
      store: false,
      gateway: {
        auth: {
          tokens: [
            { token: ALICE, user: "alice" },
            { token: BOB, user: "bob" },
          ],
        },
        sessionKey: "${SWITCHYARD_SESSION_KEY}",
        ...(keys.previous ? { previousSessionKeys: ["${SWITCHYARD_PREVIOUS_SESSION_KEY}"] } : {}),
        ...(keys.maxAgeMs ? { limits: { sessionMaxAgeMs: keys.maxAgeMs } } : {}),
      },
    }),
  );
  const served = await startHttpServer(NODE, [CLI, "--config", config, "serve", "--http", "0"], {
    env: {
      SWITCHYARD_SESSION_KEY: keys.key,
      ...(keys.previous ? { SWITCHYARD_PREVIOUS_SESSION_KEY: keys.previous } : {}),
    },
    urlFrom: (output) => /serving .* at (http:\/\/\S+)/.exec(output)?.[1],
  });
  servers.push(served);
  return served.url;
}

/** One JSON-RPC request as `token`, in session `sessionId` when given. */
async function post(url: string, token: string, body: object, sessionId?: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2025-11-25",
      ...(sessionId ? { "mcp-session-id": sessionId } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...body }),
  });
  const text = await response.text();
  // A JSON answer, or the one `data:` line of an SSE answer.
  const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "null");
  return {
    status: response.status,
    sessionId: response.headers.get("mcp-session-id"),
    body: JSON.parse(json),
  };
}

/** Begin a session at `url` as `token`: its sealed id. */
async function begin(url: string, token = ALICE): Promise<string> {
  const opened = await post(url, token, {
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "sealed", version: "1" } },
  });
  expect(opened.status).toBe(200);
  const id = opened.sessionId!;
  expect(id).toMatch(/^sy1\./);
  await post(url, token, { method: "notifications/initialized" }, id);
  return id;
}

const listTools = (url: string, token: string, sessionId: string) =>
  post(url, token, { id: 2, method: "tools/list" }, sessionId);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "switchyard-sealed-"));
  // One after another: three starting at once on a loaded machine can take longer than a start may.
  a = await replica("a", { key: K1 });
  b = await replica("b", { key: K2, previous: K1 });
  c = await replica("c", { key: K2, previous: K1, maxAgeMs: MAX_AGE_MS });
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("sealed sessions across serve --http replicas with no store", () => {
  it("a 2025-11-25 client's session begun at one replica is served by one that never saw it", async () => {
    const urls = [a, b];
    let next = 0;
    const sent: string[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(a), {
      requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      // Round-robin over the two: every other request goes to the replica that did not begin the session.
      fetch: (_input, init) => {
        const url = urls[next++ % urls.length]!;
        sent.push(url);
        return fetch(url, init);
      },
    });
    const client = new Client({ name: "sealed-round-robin", version: "1" });
    const errors: string[] = [];
    client.onerror = (error) => errors.push(error.message);
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    expect(transport.sessionId).toMatch(/^sy1\./);
    for (let i = 0; i < 4; i += 1) {
      const result = await client.callTool({ name: "sdk_echo", arguments: { text: `r${i}` } });
      expect(JSON.stringify(result.content)).toContain(`r${i}`);
    }
    await client.close();
    expect(new Set(sent)).toEqual(new Set(urls));
    expect(errors.filter((message) => /404|Session not found|403/.test(message))).toEqual([]);
  }, 60_000);

  it("a request straight to a replica that never saw the session is served: it opens the id with its previous key", async () => {
    const id = await begin(a);
    // B has never seen it and has no store: it opens the id with its previous key and replays initialize.
    const listed = await listTools(b, ALICE, id);
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.map((tool: { name: string }) => tool.name)).toContain("sdk_echo");
  }, 30_000);

  it("an altered session id is 404 with a message that says to start a new session", async () => {
    const id = await begin(a);
    // One character of the ciphertext changed: the AEAD's tag no longer verifies.
    const at = id.length - 30;
    const altered = `${id.slice(0, at)}${id[at] === "A" ? "B" : "A"}${id.slice(at + 1)}`;
    for (const url of [a, b]) {
      const refused = await listTools(url, ALICE, altered);
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe(-32001);
      expect(refused.body.error.message).toMatch(/not sealed by any key this gateway accepts/);
      expect(refused.body.error.message).toMatch(/initialize again without an Mcp-Session-Id/);
    }
  }, 30_000);

  it("alice's session presented with bob's token is 403, at the replica that began it and at another", async () => {
    const id = await begin(a, ALICE);
    for (const url of [b, a]) {
      const refused = await listTools(url, BOB, id);
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/belongs to another user/);
      expect(refused.body.error.message).toMatch(/start your own session/);
      expect(refused.body.error.message).not.toContain("alice");
    }
    expect((await listTools(b, ALICE, id)).status).toBe(200);
  }, 30_000);

  it("a session past its sealed expiry is 404 at the replica that holds it and at one that never saw it", async () => {
    const id = await begin(c);
    expect((await listTools(b, ALICE, id)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, MAX_AGE_MS + 200));
    for (const url of [c, b]) {
      const refused = await listTools(url, ALICE, id);
      expect(refused.status).toBe(404);
      expect(refused.body.error.message).toMatch(
        /this session expired at .*gateway\.limits\.sessionMaxAgeMs/,
      );
      expect(refused.body.error.message).toMatch(/initialize again/);
    }
  }, 30_000);

  it("a previous key opens sessions but never seals them: B's new sessions are K2's, which A does not accept", async () => {
    const id = await begin(b);
    expect((await listTools(c, ALICE, id)).status).toBe(200);
    const refused = await listTools(a, ALICE, id);
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toMatch(/not sealed by any key this gateway accepts/);
  }, 30_000);
});
