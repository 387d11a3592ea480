import { afterEach, describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { failureOf, raw, sdk } from "../helpers.js";

const opened: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((yard) => yard.close()));
});

describe("errors a user reads", () => {
  it("a tool of a server that failed to connect: the server is down, and why — not 'no tool named'", async () => {
    const yard = await Switchyard.connect({
      mcpServers: { orders: raw("--exit-on-initialize", "3"), s: sdk() },
    });
    opened.push(yard);
    const error = await failureOf(yard.callTool("orders_query_recent_orders", {}));
    expect(error.code).toBe("SERVER_UNAVAILABLE");
    expect(error.server).toBe("orders");
    expect(error.message).toMatch(/server orders, which is failed: .*exit code 3/);
    expect(error.message).not.toMatch(/no tool named/);
    // A name that belongs to no server stays TOOL_NOT_FOUND, with suggestions from the live catalog.
    const unknown = await failureOf(yard.callTool("s_ecko", {}));
    expect(unknown.code).toBe("TOOL_NOT_FOUND");
    expect(unknown.message).toContain("did you mean s_echo");
    expect(unknown.message).not.toMatch(/switchyard tools/);
  });

  it("INVALID_ARGUMENTS lists the problems and the parameters they are about, not the whole schema", async () => {
    const yard = await Switchyard.connect({ mcpServers: { s: sdk("--tools", "echo,add") } });
    opened.push(yard);
    const error = await failureOf(yard.callTool("s_add", { a: "x" }));
    expect(error.code).toBe("INVALID_ARGUMENTS");
    expect(error.message).toContain('"a" must be number');
    expect(error.message).toContain('missing required field "b"');
    expect(error.message).toContain("Expected: a (number, required); b (number, required)");
    expect(error.message).not.toContain('"properties"');
    const extra = await failureOf(yard.callTool("s_echo", { text: 1, colour: "red" }));
    expect(extra.message).toMatch(/Expected: text \(string, required\)/);
  });

  it("a timeout names the catalog name and the setting to raise", async () => {
    const yard = await Switchyard.connect({ mcpServers: { s: sdk() } });
    opened.push(yard);
    const error = await failureOf(
      yard.callTool("s_sleep", { ms: 2_000 }, { timeoutMs: 100, signal: new AbortController().signal }),
    );
    expect(error.code).toBe("TIMEOUT");
    expect(error.message).toContain("s_sleep (tool sleep on server s)");
    expect(error.message).toContain("raise the server's timeoutMs");
  });
});
