import type { Tool } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { assignToolName, baseToolName, TOOL_NAME_PATTERN } from "../../src/catalog/naming.js";
import { resolveConfig } from "../../src/index.js";

const tool = (name: string, description = `does ${name}`): Tool => ({
  name,
  description,
  inputSchema: { type: "object" },
});

function catalogOf(servers: Record<string, object>, tools: Record<string, Tool[]>) {
  const config = resolveConfig({ mcpServers: servers }, { env: {} });
  const catalog = new Catalog(config.servers);
  catalog.load(new Map(Object.entries(tools)));
  return catalog;
}

describe("tool names", () => {
  it("prefix the namespace and replace characters providers reject", () => {
    expect(baseToolName("orders", "query_recent_orders")).toBe("orders_query_recent_orders");
    expect(baseToolName("my.server", "get/weather v2")).toBe("my_server_get_weather_v2");
    expect(baseToolName(false, "查询订单")).toBe("____");
  });

  it("shorten long names to 64 characters with a stable hash", () => {
    const long = baseToolName("namespace", "x".repeat(100));
    expect(long).toMatch(TOOL_NAME_PATTERN);
    expect(long).toHaveLength(64);
    expect(baseToolName("namespace", "x".repeat(100))).toBe(long);
  });

  it("make a clashing name unique and deterministic", () => {
    const taken = new Set(["a_echo"]);
    const first = assignToolName({ namespace: "a", server: "b", tool: "echo" }, taken);
    expect(first).not.toBe("a_echo");
    expect(first).toMatch(TOOL_NAME_PATTERN);
    expect(assignToolName({ namespace: "a", server: "b", tool: "echo" }, taken)).toBe(first);
  });
});

describe("catalog", () => {
  it("keeps two servers' identical tools apart and maps names back through the table", () => {
    const catalog = catalogOf(
      { a: { command: "x" }, b: { command: "x" } },
      { a: [tool("echo")], b: [tool("echo")] },
    );
    expect(catalog.entries().map((e) => [e.name, e.server, e.tool])).toEqual([
      ["a_echo", "a", "echo"],
      ["b_echo", "b", "echo"],
    ]);
  });

  it("gives unique names even without namespaces, the same on every build", () => {
    const build = () =>
      catalogOf(
        { a: { command: "x", namespace: false }, b: { command: "x", namespace: false } },
        { b: [tool("echo")], a: [tool("echo"), tool("ec.ho")] },
      )
        .entries()
        .map((e) => `${e.name}=${e.server}/${e.tool}`);
    const names = build();
    expect(names).toHaveLength(3);
    expect(new Set(names.map((n) => n.split("=")[0])).size).toBe(3);
    // Both want echo: neither has it (the server that sorts first used to take it).
    expect(names.some((name) => name.startsWith("echo="))).toBe(false);
    expect(names).toContain("ec_ho=a/ec.ho");
    expect(build()).toEqual(names);
    for (const name of names) expect(name.split("=")[0]).toMatch(TOOL_NAME_PATTERN);
  });

  it("never maps a name back by splitting it", () => {
    const catalog = catalogOf(
      { a_b: { command: "x" }, a: { command: "x" } },
      { a_b: [tool("c")], a: [tool("b_c")] },
    );
    const entries = catalog.entries().map((e) => [e.name, e.server, e.tool]);
    expect(entries).toHaveLength(2);
    // Both would be a_b_c, each in its own server's namespace: neither has it, and each name maps back.
    expect(catalog.get("a_b_c")).toBeUndefined();
    for (const [name, server, tool] of entries) {
      expect(name).toMatch(/^a_b_c_[0-9a-f]{8}$/);
      expect(catalog.get(name!)).toMatchObject({ server, tool });
    }
    expect(entries.map((e) => `${e[1]}/${e[2]}`).sort()).toEqual(["a/b_c", "a_b/c"]);
  });

  it("applies allow and deny globs on the server's own tool names", () => {
    const catalog = catalogOf(
      { db: { command: "x", tools: { allow: ["query_*", "get?"], deny: ["*_raw"] } } },
      { db: [tool("query_orders"), tool("query_raw"), tool("drop_table"), tool("get1"), tool("get12")] },
    );
    expect(catalog.entries().map((e) => e.tool)).toEqual(["get1", "query_orders"]);
  });

  it("uses description overrides from the config", () => {
    const catalog = catalogOf(
      { db: { command: "x", descriptions: { query_orders: "Use for order questions." } } },
      { db: [tool("query_orders"), tool("other")] },
    );
    expect(catalog.get("db_query_orders")!.description).toBe("Use for order questions.");
    expect(catalog.get("db_other")!.description).toBe("does other");
  });

  it("keeps names stable when a server's list changes, even if a new tool would have taken a name", () => {
    const catalog = catalogOf(
      { a: { command: "x", namespace: false }, b: { command: "x", namespace: false } },
      { a: [], b: [tool("echo")] },
    );
    expect(catalog.get("echo")!.server).toBe("b");
    catalog.setServerTools("a", [tool("echo"), tool("new_tool")]);
    expect(catalog.get("echo")!.server).toBe("b");
    const aEcho = catalog.entries().find((e) => e.server === "a" && e.tool === "echo")!;
    expect(aEcho.name).not.toBe("echo");
    catalog.setServerTools("a", [tool("new_tool")]);
    expect(catalog.entries().some((e) => e.server === "a" && e.tool === "echo")).toBe(false);
    catalog.setServerTools("a", [tool("echo"), tool("new_tool")]);
    expect(catalog.entries().find((e) => e.server === "a" && e.tool === "echo")!.name).toBe(aEcho.name);
  });

  it("suggests close names for a typo", () => {
    const catalog = catalogOf(
      { orders: { command: "x" } },
      { orders: [tool("query_recent_orders"), tool("refund")] },
    );
    expect(catalog.suggest("orders_query_recent_order")).toEqual(["orders_query_recent_orders"]);
  });
});
