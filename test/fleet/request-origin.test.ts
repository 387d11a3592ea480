import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ElicitationRequest } from "../../src/client-answers.js";
import type { ServerLogMessage } from "../../src/fleet/client-requests.js";
import { withRequestOrigin } from "../../src/fleet/request-origin.js";
import { Switchyard } from "../../src/index.js";
import { NODE, ROOT } from "../helpers.js";

// Below the gateway: what a 2025-era server sends (log messages, elicitation) is handed on with the
// origin of the request it belongs to — the one whose own stream it came on (Streamable HTTP), else the
// one origin in flight on that server — or none when nothing is in flight, or several origins are and
// the server names none of them (stdio).

const TENANT = `${ROOT}test/fixtures/tenant-server.mjs`;
const alice = { who: "alice" };
const bob = { who: "bob" };

let yard: Switchyard;
const logs: ServerLogMessage[] = [];
const asked: ElicitationRequest[] = [];

beforeAll(async () => {
  yard = await Switchyard.connect(
    {
      mcpServers: {
        payments: { command: NODE, args: [TENANT], versionNegotiation: "legacy" },
        // The same server over Streamable HTTP: a call's log messages come on that call's own stream.
        web: {
          url: "http://127.0.0.1:{{port}}/mcp",
          command: NODE,
          args: [TENANT, "--http", "{{port}}"],
          versionNegotiation: "legacy",
        },
      },
    },
    {
      onServerLog: (log) => void logs.push(log),
      onElicitation: async (request) => {
        asked.push(request);
        return { action: "accept", content: { ok: true } };
      },
    },
  );
}, 30_000);

afterAll(async () => {
  await yard?.close();
});

const text = (result: { text: string }) => result.text;

describe("the origin of what a server sends", () => {
  it("is the origin of the one call in flight: its log messages and its question", async () => {
    logs.length = 0;
    asked.length = 0;
    await withRequestOrigin(alice, () => yard.callTool("payments_payroll", {}));
    expect(logs.map((log) => [log.data, log.origin])).toEqual([
      ["payroll row: alice 7200 EUR", alice],
      ["payroll row: carol 6100 EUR", alice],
      ["payroll row: dave 5900 EUR", alice],
    ]);
    const paid = await withRequestOrigin(bob, () =>
      yard.callTool("payments_pay", { account: "bob", amount: 5 }),
    );
    expect(text(paid)).toBe("paid 5 from bob");
    expect(asked.map((request) => request.origin)).toEqual([bob]);
  });

  it("is none for a log message sent with nothing in flight", async () => {
    logs.length = 0;
    await withRequestOrigin(alice, () => yard.callTool("payments_later", {}));
    await vi.waitFor(() => expect(logs.map((log) => log.data)).toEqual(["after the call"]));
    expect(logs[0]!.origin).toBeUndefined();
  });

  it("is none for a question asked while two origins' calls are in flight, even on a server started during one of them", async () => {
    // Started again inside alice's work: its process and streams must not carry her origin.
    await withRequestOrigin(alice, () => yard.reconnect({ failedOnly: false }));
    asked.length = 0;
    const paying = withRequestOrigin(alice, () =>
      yard.callTool("payments_pay", { account: "alice", amount: 900, wait: true }),
    );
    await vi.waitFor(async () => expect(text(await yard.callTool("payments_pending", {}))).toBe("1"));
    const holding = withRequestOrigin(bob, () => yard.callTool("payments_hold", {}));
    expect(text(await paying)).toBe("paid 900 from alice"); // this handler accepts whatever it is asked
    expect(text(await holding)).toBe("held");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.origin).toBeUndefined();
  });

  it("is the origin whose request's own stream a message came on, with another origin's call in flight (Streamable HTTP)", async () => {
    logs.length = 0;
    const payroll = withRequestOrigin(alice, () => yard.callTool("web_payroll", { wait: true }));
    await vi.waitFor(async () => expect(text(await yard.callTool("web_pending", {}))).toBe("1"));
    const holding = withRequestOrigin(bob, () => yard.callTool("web_hold", {}));
    expect(text(await payroll)).toBe("3 rows");
    expect(text(await holding)).toBe("held");
    expect(logs.map((log) => [log.server, log.data, log.origin])).toEqual([
      ["web", "payroll row: alice 7200 EUR", alice],
      ["web", "payroll row: carol 6100 EUR", alice],
      ["web", "payroll row: dave 5900 EUR", alice],
    ]);
  });

  it("is the one origin in flight once another origin's call was given up on (timed out, cancelled)", async () => {
    // alice's hold times out: the server is told to cancel it and will never answer it, so it is no
    // longer in flight — bob's call, alone now, owns what the server sends during it.
    await expect(
      withRequestOrigin(alice, () => yard.callTool("payments_hold", {}, { timeoutMs: 300 })),
    ).rejects.toMatchObject({ code: "TIMEOUT" });
    logs.length = 0;
    expect(text(await withRequestOrigin(bob, () => yard.callTool("payments_payroll", {})))).toBe("3 rows");
    expect(logs.map((log) => log.origin)).toEqual([bob, bob, bob]);
  });

  it("is none for log messages while two origins' calls are in flight on a stdio server", async () => {
    logs.length = 0;
    const payroll = withRequestOrigin(alice, () => yard.callTool("payments_payroll", { wait: true }));
    await vi.waitFor(async () => expect(text(await yard.callTool("payments_pending", {}))).toBe("1"));
    const holding = withRequestOrigin(bob, () => yard.callTool("payments_hold", {}));
    expect(text(await payroll)).toBe("3 rows");
    expect(text(await holding)).toBe("held");
    expect(logs.map((log) => [log.data, log.origin])).toEqual([
      ["payroll row: alice 7200 EUR", undefined],
      ["payroll row: carol 6100 EUR", undefined],
      ["payroll row: dave 5900 EUR", undefined],
    ]);
  });
});
