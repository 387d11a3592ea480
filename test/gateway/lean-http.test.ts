// The gateway's lean HTTP path (issue 29), over real HTTP to a real gateway fronting real stdio servers:
// a 2025-11-25 call that nothing is sent for before its answer is answered `application/json`; one the
// server reports progress for (or asks its client something during) gets an SSE stream carrying it; a
// notification gets 202; a call whose client goes away gives back its stream place.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClientRelay,
  createGateway,
  type Gateway,
  type HttpListener,
  listenHttp,
} from "../../src/gateway/index.js";
import { Switchyard } from "../../src/index.js";
import { NODE, ROOT } from "../helpers.js";
import { textOf } from "./fleet.js";

const FIXTURES = `${ROOT}test/fixtures`;
let yard: Switchyard;
let gateway: Gateway;
let listener: HttpListener;

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};

/** A 2025-11-25 session begun with raw HTTP: its id. */
async function initialize(url = listener.url): Promise<string> {
  const opened = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  await opened.text();
  const id = opened.headers.get("mcp-session-id");
  expect(id).toBeTruthy();
  const done = await post(id!, { jsonrpc: "2.0", method: "notifications/initialized" }, undefined, url);
  expect(done.status).toBe(202);
  return id!;
}

function post(sessionId: string, message: unknown, signal?: AbortSignal, url = listener.url) {
  return fetch(url, {
    method: "POST",
    headers: { ...HEADERS, "mcp-session-id": sessionId },
    body: JSON.stringify(message),
    ...(signal ? { signal } : {}),
  });
}

/** The JSON-RPC messages of an SSE body, in order. */
function events(body: string): Array<{ method?: string; id?: unknown; result?: unknown }> {
  return body
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

beforeAll(async () => {
  const relay = new ClientRelay();
  yard = await Switchyard.connect(
    {
      mcpServers: {
        fault: { command: NODE, args: [`${FIXTURES}/fault-server.mjs`] },
        asking: { command: NODE, args: [`${FIXTURES}/asking-server.mjs`] },
      },
    },
    relay.switchyardOptions(),
  );
  gateway = createGateway(yard, { relay });
  listener = await listenHttp(gateway, { port: 0 });
}, 30_000);

afterAll(async () => {
  await listener?.close();
  await gateway?.close();
  await yard?.close();
});

describe("the lean HTTP path (2025-11-25 sessions)", () => {
  it("answers a call that nothing is sent for before its answer with application/json", async () => {
    const session = await initialize();
    const answer = await post(session, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "fault_progress", arguments: { ms: 20, every: 5 } },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("mcp-session-id")).toBe(session);
    const body = (await answer.json()) as { id: number; result: unknown };
    expect(body.id).toBe(2);
    expect(textOf(body.result)).toContain("progressed");
  });

  it("streams a call's progress over SSE, then its answer", async () => {
    const session = await initialize();
    const answer = await post(session, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: {
        name: "fault_progress",
        arguments: { ms: 200, every: 20 },
        _meta: { progressToken: "p-3" },
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/event-stream");
    const messages = events(await answer.text());
    const progress = messages.filter((message) => message.method === "notifications/progress");
    expect(progress.length).toBeGreaterThan(0);
    expect(messages.at(-1)).toMatchObject({ id: 3, result: expect.anything() });
    expect(messages.indexOf(progress[0]!)).toBeLessThan(messages.length - 1);
  });

  it("carries a server's elicitation mid-call to the client and its answer back", async () => {
    const asked: string[] = [];
    const client = new Client(
      { name: "asker", version: "1" },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { name: "Ada", age: 30 } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      const result = await client.callTool({ name: "asking_profile", arguments: {} });
      expect(JSON.parse(textOf(result))).toMatchObject({ action: "accept", content: { name: "Ada" } });
      expect(asked).toEqual(["Who are you?"]);
    } finally {
      await client.close();
    }
  });

  it("ends a call's response with no answer when its session is deleted while it waits", async () => {
    const session = await initialize();
    const waiting = post(session, {
      jsonrpc: "2.0",
      id: 20,
      method: "tools/call",
      params: { name: "fault_work", arguments: { id: "lean-deleted", fault: "hang" } },
    });
    // The call is in: its server has it (it notes when each call for an id arrived).
    await expect
      .poll(
        async () => {
          const answer = await post(session, {
            jsonrpc: "2.0",
            id: 21,
            method: "tools/call",
            params: { name: "fault_stats", arguments: {} },
          });
          const { result } = (await answer.json()) as {
            result: { structuredContent: { times: Record<string, unknown> } };
          };
          return "lean-deleted" in result.structuredContent.times;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    const deleted = await fetch(listener.url, {
      method: "DELETE",
      headers: { ...HEADERS, "mcp-session-id": session },
    });
    expect(deleted.status).toBe(200);
    const answer = await waiting;
    expect(answer.headers.get("content-type")).toBe("text/event-stream");
    expect(events(await answer.text())).toEqual([]);
  });

  it("gives back a call's stream place when its client goes away before the answer", async () => {
    // Two places (streamsPerUser 2): two calls that hang take them both.
    const narrow = createGateway(yard, { streamsPerUser: 2 });
    const narrowListener = await listenHttp(narrow, { port: 0 });
    try {
      const url = narrowListener.url;
      const session = await initialize(url);
      const list = async (id: number) => {
        const answer = await post(session, { jsonrpc: "2.0", id, method: "tools/list" }, undefined, url);
        await answer.text();
        return answer.status;
      };
      const abort = new AbortController();
      // Held (an answer's body unread and unreferenced may be collected, which ends its stream).
      const hanging = [10, 11].map((id) =>
        post(
          session,
          {
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "fault_work", arguments: { id: `lean-${id}`, fault: "hang" } },
          },
          abort.signal,
          url,
        ).catch(() => undefined),
      );
      await expect.poll(() => list(12), { timeout: 20_000 }).toBe(429);
      abort.abort();
      await Promise.all(hanging);
      await expect.poll(() => list(13), { timeout: 20_000 }).toBe(200);
    } finally {
      await narrowListener.close();
      await narrow.close();
    }
  });
});

/** The envelope a 2026-07-28 client sends with each request. */
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 request as a client sends it (the envelope in `_meta`, the standard headers), as init. */
function modern(
  request: { id: number; method: string; params: Record<string, unknown> },
  options: { meta?: Record<string, unknown>; headers?: Record<string, string> } = {},
): RequestInit {
  const { _meta, ...params } = request.params as { _meta?: Record<string, unknown>; name?: unknown };
  const name = request.method === "tools/call" ? params.name : undefined;
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": request.method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      ...request,
      params: { ...params, _meta: options.meta ?? { ...ENVELOPE, ..._meta } },
    }),
  };
}

describe("the lean HTTP path (2026-07-28 requests)", () => {
  it("answers a call that nothing is sent for before its answer with application/json, in one write", async () => {
    const answer = await fetch(
      listener.url,
      modern({
        id: 30,
        method: "tools/call",
        params: { name: "fault_progress", arguments: { ms: 20, every: 5 } },
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    const text = await answer.text();
    // Its length known and sent (the web Response's body was streamed chunked, with none).
    expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    const body = JSON.parse(text) as { id: number; result: unknown };
    expect(body.id).toBe(30);
    expect(textOf(body.result)).toContain("progressed");
  });

  it("streams a call's progress over SSE, then its answer", async () => {
    const answer = await fetch(
      listener.url,
      modern({
        id: 31,
        method: "tools/call",
        params: {
          name: "fault_progress",
          arguments: { ms: 200, every: 20 },
          _meta: { progressToken: "p-31" },
        },
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/event-stream");
    const messages = events(await answer.text());
    const progress = messages.filter((message) => message.method === "notifications/progress");
    expect(progress.length).toBeGreaterThan(0);
    expect(messages.at(-1)).toMatchObject({ id: 31, result: expect.anything() });
    expect(messages.indexOf(progress[0]!)).toBeLessThan(messages.length - 1);
  });

  it("cancels a call at its server when its client goes away before the answer", async () => {
    const stats = async (id: number) => {
      const answer = await fetch(
        listener.url,
        modern({ id, method: "tools/call", params: { name: "fault_stats", arguments: {} } }),
      );
      const { result } = (await answer.json()) as {
        result: { structuredContent: { cancelled: unknown[]; times: Record<string, unknown> } };
      };
      return result.structuredContent;
    };
    const before = (await stats(40)).cancelled.length;
    const abort = new AbortController();
    const hanging = fetch(listener.url, {
      ...modern({
        id: 41,
        method: "tools/call",
        params: { name: "fault_work", arguments: { id: "modern-gone", fault: "hang" } },
      }),
      signal: abort.signal,
    }).catch(() => undefined);
    await expect.poll(async () => "modern-gone" in (await stats(42)).times, { timeout: 20_000 }).toBe(true);
    abort.abort();
    await hanging;
    await expect.poll(async () => (await stats(43)).cancelled.length, { timeout: 20_000 }).toBe(before + 1);
  });

  it("answers a malformed request with the SDK's error, as the web handler does", async () => {
    const call = { id: 32, method: "tools/call", params: { name: "fault_progress", arguments: { ms: 1 } } };
    const { "io.modelcontextprotocol/clientCapabilities": _, ...noCapabilities } = ENVELOPE;
    const cases = [
      modern(call, { meta: noCapabilities }), // the envelope lacks a required key
      modern(call, { headers: { "mcp-method": "tools/list" } }), // the header and the body disagree
      modern(call, { meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }),
    ];
    for (const init of cases) {
      const lean = await fetch(listener.url, init);
      const text = await lean.text();
      // Served lean (one write, its length sent) …
      expect(lean.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
      // … with the status and JSON-RPC error the SDK's web handler gives the same request.
      const web = await gateway.handle(new Request(listener.url, init));
      expect(lean.status).toBe(web.status);
      expect(lean.status).toBeGreaterThanOrEqual(400);
      const error = JSON.parse(text) as { id: unknown; error: { code: number } };
      expect(error).toEqual(await web.json());
      expect(error.error.code).toBeLessThan(0);
    }
  });
});
