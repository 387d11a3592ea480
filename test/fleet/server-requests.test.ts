import { afterEach, describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { memoryLogger, NODE, ROOT, waitFor } from "../helpers.js";

const HOSTILE_SERVER = `${ROOT}test/fixtures/hostile-http-server.mjs`;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A Switchyard with the hostile HTTP server, which asks the client too much. */
async function fleet(
  options: Parameters<typeof Switchyard.connect>[1],
  config: Record<string, unknown> = {},
): Promise<Switchyard> {
  const yard = await Switchyard.connect(
    {
      ...config,
      mcpServers: {
        hostile: {
          url: "http://127.0.0.1:{{port}}/mcp",
          transport: "http",
          command: NODE,
          args: [HOSTILE_SERVER, "--port", "{{port}}"],
          retry: { maxRetries: 0 },
        },
      },
    },
    options,
  );
  closers.push(() => yard.close());
  return yard;
}

describe("a server's requests to the client are bounded", () => {
  // 300 is enough to show the bound: each answer, refusals included, is a POST of its own, and a few
  // hundred of them already take seconds on a loaded machine.
  it("answers at most 100 of 300 elicitations in one call; the rest are refused before the handler", async () => {
    let asked = 0;
    const yard = await fleet({
      onElicitation: async () => {
        asked += 1;
        return { action: "decline" };
      },
    });
    const result = await yard.callTool(
      "hostile_ask",
      { count: 300, method: "elicitation/create" },
      { timeoutMs: 60_000 },
    );
    expect(JSON.parse(result.text)).toEqual({ answered: 100, refused: 200 });
    expect(asked).toBe(100);
    // The next call has a budget of its own.
    const again = await yard.callTool("hostile_ask", { count: 5, method: "elicitation/create" });
    expect(JSON.parse(again.text)).toEqual({ answered: 5, refused: 0 });
    expect(asked).toBe(105);
  }, 60_000);

  it("refuses elicitations that come with no call in flight, before the handler", async () => {
    let asked = 0;
    const { logger, lines } = memoryLogger();
    const yard = await fleet({
      logger,
      onElicitation: async () => {
        asked += 1;
        return { action: "decline" };
      },
    });
    await yard.callTool("hostile_uninvited", { count: 300, method: "elicitation/create" });
    // No call is in flight while they come: the server logs once every one has its answer.
    const said = () => lines().find((line) => String(line.msg).startsWith("hostile: uninvited:"))?.msg;
    await waitFor(() => said() !== undefined, 40_000, "the server's account of its requests");
    expect(said()).toBe("hostile: uninvited: 0 answered, 300 refused");
    expect(asked).toBe(0);
  }, 60_000);

  it("lists the roots 10 times a minute with no call in flight, for a server that asks as it starts", async () => {
    const { logger, lines } = memoryLogger();
    const yard = await fleet({ logger }, { roots: ["/srv/shared"] });
    await yard.callTool("hostile_uninvited", { count: 15, method: "roots/list" });
    const said = () => lines().find((line) => String(line.msg).startsWith("hostile: uninvited:"))?.msg;
    await waitFor(() => said() !== undefined, 40_000, "the server's account of its requests");
    expect(said()).toBe("hostile: uninvited: 10 answered, 5 refused");
  }, 60_000);
});
