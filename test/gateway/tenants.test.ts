import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { NODE, ROOT } from "../helpers.js";
import { configFile, httpClient, startHttpGateway, textOf } from "./fleet.js";

// Tenants apart (issue 26, item 1): `switchyard serve --http` with two users (gateway.auth tokens),
// bob denied the `hr` server. What a server sends during alice's call — its log messages, its
// questions — goes to alice's session only, or to nobody when the gateway cannot tell whose call it
// is; never to bob. The servers are 2025-era stdio ones, which name no request in what they send.
// These tests run the CLI from dist/: `npm run build` first.

const TENANT = `${ROOT}test/fixtures/tenant-server.mjs`;
const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef" };

/** What a client saw arrive from the gateway. */
interface Seen {
  logs: unknown[];
  elicitations: string[];
  toolChanges: number;
}

const file = configFile({
  mcpServers: {
    hr: { command: NODE, args: [TENANT], versionNegotiation: "legacy" },
    payments: { command: NODE, args: [TENANT], versionNegotiation: "legacy" },
  },
  policy: {
    rules: [
      { id: "no-hr-for-bob", effect: "deny", users: ["bob"], servers: ["hr"] },
      { id: "staff", effect: "allow", users: ["alice", "bob"] },
    ],
  },
  gateway: {
    auth: {
      tokens: [
        { token: TOKENS.alice, user: "alice", roles: [] },
        { token: TOKENS.bob, user: "bob", roles: [] },
      ],
    },
  },
});
let gateway: Awaited<ReturnType<typeof startHttpGateway>> | undefined;
const clients: Client[] = [];

/** A 2025-11-25 session of `user` that accepts every question (`{ ok: true }`) and remembers what it saw. */
async function as(user: keyof typeof TOKENS): Promise<{ client: Client; seen: Seen }> {
  const seen: Seen = { logs: [], elicitations: [], toolChanges: 0 };
  const client = await httpClient(gateway!.url, "legacy", {
    headers: { authorization: `Bearer ${TOKENS[user]}` },
    client: {
      listChanged: {
        tools: {
          onChanged: () => {
            seen.toolChanges += 1;
          },
        },
      },
    },
    setup: (client) => {
      client.setRequestHandler("elicitation/create", async (request) => {
        seen.elicitations.push(request.params.message);
        return { action: "accept", content: { ok: true } };
      });
      client.setNotificationHandler("notifications/message", (notification) => {
        seen.logs.push(notification.params.data);
      });
    },
  });
  clients.push(client);
  return { client, seen };
}

beforeAll(async () => {
  gateway = await startHttpGateway(file);
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await gateway?.close();
});

describe("switchyard serve keeps its users apart", () => {
  it("sends a server's log messages to the session whose call caused them, never to another user's", async () => {
    const alice = await as("alice");
    const bob = await as("bob");
    expect((await bob.client.listTools()).tools.map((tool) => tool.name)).not.toContain("hr_payroll");
    // A list change reaches every live session on its standalone stream: once bob has one, his stream
    // is open, and whatever the gateway sends him after alice's payroll call arrives before the next.
    await alice.client.callTool({ name: "hr_grow", arguments: {} });
    await vi.waitFor(() => expect(bob.seen.toolChanges).toBeGreaterThanOrEqual(1), { timeout: 10_000 });

    const result = await alice.client.callTool({ name: "hr_payroll", arguments: {} });
    expect(textOf(result)).toBe("3 rows");
    await alice.client.callTool({ name: "hr_grow", arguments: {} });
    await vi.waitFor(() => expect(bob.seen.toolChanges).toBeGreaterThanOrEqual(2), { timeout: 10_000 });

    expect(bob.seen.logs).toEqual([]);
    await vi.waitFor(() =>
      expect(alice.seen.logs).toEqual([
        "payroll row: alice 7200 EUR",
        "payroll row: carol 6100 EUR",
        "payroll row: dave 5900 EUR",
      ]),
    );
  }, 30_000);

  it("asks alice, and only alice, what a server asks during her call alone", async () => {
    const alice = await as("alice");
    const bob = await as("bob");
    const result = await alice.client.callTool({
      name: "payments_pay",
      arguments: { account: "alice", amount: 50 },
    });
    expect(textOf(result)).toBe("paid 50 from alice");
    expect(alice.seen.elicitations).toEqual(["Pay 50 from alice's account?"]);
    expect(bob.seen.elicitations).toEqual([]);
  }, 30_000);

  it("asks nobody what a server asks while two users' calls are in flight on it: bob cannot confirm alice's payment", async () => {
    const alice = await as("alice");
    const bob = await as("bob");
    const paying = alice.client.callTool({
      name: "payments_pay",
      arguments: { account: "alice", amount: 900, wait: true },
    });
    // Bob's call starts once alice's waits at the server: his is the latest call on it when it asks.
    await vi.waitFor(
      async () =>
        expect(textOf(await alice.client.callTool({ name: "payments_pending", arguments: {} }))).toBe("1"),
      { timeout: 10_000 },
    );
    const holding = bob.client.callTool({ name: "payments_hold", arguments: {} });

    expect(textOf(await paying)).toBe("not paid (cancel)");
    expect(textOf(await holding)).toBe("held");
    expect(bob.seen.elicitations).toEqual([]);
    expect(alice.seen.elicitations).toEqual([]);
  }, 30_000);
});
