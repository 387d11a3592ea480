import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  ClientRelay,
  createGateway,
  type Gateway,
  type HttpListener,
  listenHttp,
} from "../../src/gateway/index.js";
import { type Identity, Switchyard } from "../../src/index.js";
import { EVERYTHING, NODE, ROOT } from "../helpers.js";
import { type Era, httpClient, textOf } from "./fleet.js";

// One gateway, several clients: what each may list and call is its identity's, as the policy says.
// Who a request is for comes from the `authenticate` hook; here a test header names the user (the
// gateway's real authentication, tokens and OAuth, is tested in auth.test.ts).

const POLICY = {
  rules: [
    { id: "admins", effect: "allow", roles: ["admin"] },
    { id: "guests-echo", effect: "allow", users: ["guest"], tools: ["echo"] },
  ],
};
const IDENTITIES: Record<string, Identity> = {
  root: { user: "root", roles: ["admin"] },
  guest: { user: "guest", roles: [] },
};

let yard: Switchyard;
const gateways: Array<{ gateway: Gateway; listener: HttpListener }> = [];

/** A gateway over the one Switchyard, served on a free port, who each request is for read from `x-test-user`. */
async function serve(mode: "all" | "search", maxSessions?: number): Promise<string> {
  const gateway = createGateway(yard, {
    mode,
    ...(maxSessions !== undefined ? { maxSessions } : {}),
    authenticate: (request) => {
      const user = request.headers.get("x-test-user");
      if (user === null) return undefined;
      return IDENTITIES[user] ?? new Response("unknown user", { status: 403 });
    },
  });
  const listener = await listenHttp(gateway, { port: 0 });
  gateways.push({ gateway, listener });
  return listener.url;
}

beforeAll(async () => {
  const relay = new ClientRelay();
  yard = await Switchyard.connect(
    {
      mcpServers: {
        everything: { command: NODE, args: [EVERYTHING] },
        // Fails for good when it crashes, until yard.reconnect().
        fault: {
          command: NODE,
          args: [`${ROOT}test/fixtures/fault-server.mjs`],
          restart: { maxRestarts: 0 },
        },
      },
      policy: POLICY,
    },
    { ...relay.switchyardOptions(), identity: { user: "nobody", roles: [] } },
  );
}, 60_000);

afterAll(async () => {
  for (const { gateway, listener } of gateways) {
    await listener.close();
    await gateway.close();
  }
  await yard?.close();
});

describe.each<Era>(["legacy", "modern"])("policy per client over Streamable HTTP (%s)", (era) => {
  let url: string;
  const clients: Client[] = [];
  const as = async (user: string) => {
    const client = await httpClient(url, era, { headers: { "x-test-user": user } });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    url = await serve("all");
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  it("lists each client what its identity may call, from one gateway", async () => {
    const root = await as("root");
    const guest = await as("guest");
    const rootTools = (await root.listTools()).tools.map((tool) => tool.name);
    const guestTools = (await guest.listTools()).tools.map((tool) => tool.name);
    expect(rootTools).toEqual(expect.arrayContaining(["everything_echo", "everything_get-sum"]));
    expect(guestTools).toEqual(["everything_echo"]);
  });

  it("admits each client's calls by its identity: a denied call is a tool error naming the rule's outcome", async () => {
    const root = await as("root");
    const guest = await as("guest");
    expect(textOf(await guest.callTool({ name: "everything_echo", arguments: { message: "hi" } }))).toBe(
      "Echo: hi",
    );
    expect(textOf(await root.callTool({ name: "everything_get-sum", arguments: { a: 1, b: 2 } }))).toContain(
      "3",
    );
    const denied = await guest.callTool({ name: "everything_get-sum", arguments: { a: 1, b: 2 } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toMatch(/^POLICY_DENIED: .*denied to user guest.*policy's default/);
  });

  it("a request without an identity is the gateway's (here: nobody, whom no rule allows)", async () => {
    const anonymous = await httpClient(url, era);
    clients.push(anonymous);
    expect((await anonymous.listTools()).tools).toEqual([]);
  });

  it("a refusal from the hook is the answer: the request is not served", async () => {
    await expect(as("mallory")).rejects.toThrow(/403|unknown user/);
  });
});

describe.each<Era>(["legacy", "modern"])("search mode (%s)", (era) => {
  let url: string;
  const clients: Client[] = [];
  const as = async (user: string) => {
    const client = await httpClient(url, era, { headers: { "x-test-user": user } });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    url = await serve("search");
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  it("offers search_tools and call_tool instead of the catalog", async () => {
    const root = await as("root");
    expect((await root.listTools()).tools.map((tool) => tool.name)).toEqual(["search_tools", "call_tool"]);
  });

  it("search_tools finds catalog tools with their schemas; call_tool calls one through the pipeline", async () => {
    const root = await as("root");
    const found = await root.callTool({ name: "search_tools", arguments: { query: "add two numbers sum" } });
    const tools = (found.structuredContent as { tools: Array<{ name: string; inputSchema: unknown }> }).tools;
    expect(tools.map((tool) => tool.name)).toContain("everything_get-sum");
    expect(textOf(found)).toContain("everything_get-sum");
    const sum = await root.callTool({
      name: "call_tool",
      arguments: { name: "everything_get-sum", arguments: { a: "4", b: 5 } },
    });
    expect(textOf(sum)).toContain("9");
  });

  it("names only what the caller may call, and call_tool applies the policy", async () => {
    const guest = await as("guest");
    const found = await guest.callTool({
      name: "search_tools",
      arguments: { query: "add two numbers sum", limit: 20 },
    });
    const names = (found.structuredContent as { tools: Array<{ name: string }> }).tools.map(
      (tool) => tool.name,
    );
    expect(names.every((name) => name === "everything_echo")).toBe(true);
    const denied = await guest.callTool({
      name: "call_tool",
      arguments: { name: "everything_get-sum", arguments: { a: 1, b: 2 } },
    });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain("POLICY_DENIED");
  });

  it("bad search and call arguments are tool errors; a catalog name is an unknown tool here (-32602)", async () => {
    const root = await as("root");
    const noQuery = await root.callTool({ name: "search_tools", arguments: {} });
    expect(noQuery.isError).toBe(true);
    expect(textOf(noQuery)).toContain('needs a "query"');
    const noName = await root.callTool({ name: "call_tool", arguments: { arguments: {} } });
    expect(noName.isError).toBe(true);
    expect(textOf(noName)).toContain('needs "name"');
    // A name the catalog lacks: the host is pointed at search_tools, the one way it has to find tools.
    await expect(
      root.callTool({ name: "call_tool", arguments: { name: "no_such_tool" } }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(
        /no tool named no_such_tool in the catalog; find tools with search_tools$/,
      ),
    });
    await expect(
      root.callTool({ name: "call_tool", arguments: { name: "everything_ecko" } }),
    ).rejects.toMatchObject({ message: expect.stringContaining("did you mean everything_echo?") });
    await expect(
      root.callTool({ name: "everything_echo", arguments: { message: "x" } }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("search_tools and call_tool"),
    });
  });
});

describe.each<Era>(["legacy", "modern"])("the listing follows the fleet (%s)", (era) => {
  it("a server that failed and is reconnected comes back into the client's list, and it is told", async () => {
    const url = await serve("all");
    let tools: string[] = [];
    const root = await httpClient(url, era, {
      headers: { "x-test-user": "root" },
      client: {
        listChanged: {
          tools: {
            onChanged: (_error, items) => {
              tools = (items ?? []).map((item) => item.name);
            },
          },
        },
      },
    });
    try {
      await root.callTool({ name: "fault_work", arguments: { id: era, fault: "crash" } });
      await vi.waitFor(() => expect(tools.length > 0 && !tools.includes("fault_work")).toBe(true), {
        timeout: 15_000,
      });
      await yard.reconnect();
      await vi.waitFor(() => expect(tools).toContain("fault_work"), { timeout: 15_000 });
      expect(textOf(await root.callTool({ name: "fault_work", arguments: { id: era } }))).toBe(`done ${era}`);
    } finally {
      await root.close();
    }
  });
});

describe("2025-11-25 sessions", () => {
  it("are kept up to maxSessions: a new one past it ends the one unused longest (its client gets 404)", async () => {
    const url = await serve("all", 2);
    const first = await httpClient(url, "legacy", { headers: { "x-test-user": "root" } });
    const second = await httpClient(url, "legacy", { headers: { "x-test-user": "root" } });
    try {
      await first.listTools(); // the first is now the most recently used
      const third = await httpClient(url, "legacy", { headers: { "x-test-user": "root" } });
      await third.listTools();
      await first.listTools();
      await expect(second.listTools()).rejects.toThrow(/Session not found|404/);
      await third.close();
    } finally {
      await first.close();
      await second.close().catch(() => {});
    }
  });
});
