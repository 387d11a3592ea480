// How a call was served reaches the gateway's client (issue 27): `switchyard serve --http` from dist/
// (`npm run build` first) in front of a real HTTP server that answers 429 with Retry-After, a real
// Streamable HTTP server killed under its fallback, and a server with a result cache. A call that ends
// RATE_LIMITED is a tool error naming the server and when to try again (its text, and
// `_meta["switchyard/retryAfterMs"]`); a result a fallback served or the cache kept says so in its `_meta`.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, NODE, ROOT, startHttpServer } from "../helpers.js";
import { configFile, type Era, httpClient, startHttpGateway, textOf } from "./fleet.js";

/** What Switchyard put in a result's `_meta` (the SDK adds its own keys to 2026-07-28 results). */
const ours = (result: { _meta?: Record<string, unknown> | undefined }) =>
  Object.fromEntries(Object.entries(result._meta ?? {}).filter(([key]) => key.startsWith("switchyard/")));

const FIXTURES = `${ROOT}test/fixtures`;

let limited: HttpServer;
let primary: HttpServer;
let gateway: Awaited<ReturnType<typeof startHttpGateway>>;

beforeAll(async () => {
  limited = await startHttpServer(NODE, [`${FIXTURES}/fault-server.mjs`, "--http", "0"]);
  primary = await startHttpServer(NODE, [`${FIXTURES}/twin-server.mjs`, "--name", "primary", "--http", "0"]);
  const file = configFile({
    mcpServers: {
      limited: { url: limited.url, transport: "http", timeoutMs: 1_000 },
      primary: { url: primary.url, transport: "http", fallback: "backup", retry: { maxRetries: 0 } },
      backup: { command: NODE, args: [`${FIXTURES}/twin-server.mjs`, "--name", "backup"] },
      kept: {
        command: NODE,
        args: [`${FIXTURES}/fault-server.mjs`, "--name", "kept"],
        cache: { ttlMs: 600_000 },
      },
    },
  });
  gateway = await startHttpGateway(file);
  // The primary was listed when the gateway started; now it is down.
  await primary.close();
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await limited?.close();
  await primary?.close();
});

describe.each<Era>(["legacy", "modern"])(
  "how a call was served, told to the gateway's client (%s)",
  (era) => {
    let client: Client;
    beforeAll(async () => {
      client = await httpClient(gateway.url, era);
    });
    afterAll(async () => {
      await client?.close();
    });

    it("a call the server keeps answering 429 past its deadline is a RATE_LIMITED tool error naming the server and when to try again", async () => {
      const result = await client.callTool({
        name: "limited_work",
        arguments: { id: `late-${era}`, fault: "limited", retryAfter: 30 },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^RATE_LIMITED: .*server limited .*HTTP 429.*try again in 30 s/);
      const retryAfterMs = ours(result)["switchyard/retryAfterMs"];
      expect(retryAfterMs).toBeGreaterThan(25_000);
      expect(retryAfterMs).toBeLessThanOrEqual(30_000);
    });

    it("a call its fallback served says which server served it", async () => {
      const result = await client.callTool({ name: "primary_lookup", arguments: { key: era } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe(`backup: ${era}`);
      expect(ours(result)).toEqual({ "switchyard/servedBy": "backup" });
    });

    it("a result from the cache says so; one the server answered says nothing", async () => {
      const first = await client.callTool({ name: "kept_read", arguments: { id: `c-${era}` } });
      const second = await client.callTool({ name: "kept_read", arguments: { id: `c-${era}` } });
      expect(textOf(first)).toBe(`done c-${era}`);
      expect(ours(first)).toEqual({});
      expect(textOf(second)).toBe(`done c-${era}`);
      expect(ours(second)).toEqual({ "switchyard/cached": true });
    });
  },
);
