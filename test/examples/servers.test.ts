import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfigFile, Switchyard } from "../../src/index.js";
import { openSqlite } from "../../src/store/sqlite-engine.js";
import { ROOT } from "../helpers.js";

let yard: Switchyard;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "switchyard-examples-"));
  const config = loadConfigFile(path.join(ROOT, "examples/fleet.json"), {
    ...process.env,
    SWITCHYARD_DATA_DIR: dataDir,
  });
  yard = await Switchyard.connect(config);
}, 60_000);

afterAll(async () => {
  await yard?.close();
});

/** A fingerprint of every row of the orders database. */
function fingerprint(): string {
  const db = openSqlite(path.join(dataDir, "orders.db"), { readonly: true });
  try {
    const rows = [
      ...db.prepare("SELECT * FROM customers ORDER BY id").all(),
      ...db.prepare("SELECT * FROM orders ORDER BY order_id").all(),
    ];
    return createHash("sha256").update(JSON.stringify(rows)).digest("hex");
  } finally {
    db.close();
  }
}

describe("the example fleet", () => {
  it("connects every server: stdio, a Python server on 2024-11-05, and hasher over Streamable HTTP", () => {
    const states = Object.fromEntries(yard.servers().map((s) => [s.name, s]));
    for (const name of ["orders", "policies", "environment", "geo", "hasher", "inventory"]) {
      expect(states[name], name).toMatchObject({ status: "ready" });
    }
    expect(states.inventory).toMatchObject({ transport: "stdio", protocolVersion: "2024-11-05" });
    expect(states.hasher).toMatchObject({ transport: "http" });
  });
});

describe("orders (SQLite)", () => {
  it("returns C10001's orders of the last 7 days, newest first, at most 10 rows plus a count of the rest", async () => {
    const week = await yard.callTool("orders_query_recent_orders", { customer_id: "C10001", days: 7 });
    expect(week.isError).toBe(false);
    const rows = week.structuredContent!.rows as Array<{ created_at: string; product_name: string }>;
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const cutoff = Date.now() - 7 * 86_400_000;
    for (const row of rows) expect(Date.parse(row.created_at)).toBeGreaterThan(cutoff - 86_400_000);
    expect([...rows].sort((a, b) => b.created_at.localeCompare(a.created_at))).toEqual(rows);

    const year = await yard.callTool("orders_query_recent_orders", { customer_id: "C10001", days: 365 });
    const {
      rows: all,
      total,
      more,
    } = year.structuredContent as { rows: unknown[]; total: number; more: number };
    expect(all.length).toBeLessThanOrEqual(10);
    expect(more).toBe(total - all.length);
  });

  it("stops injection attempts and bad days at the schema, before anything reaches the server", async () => {
    const before = fingerprint();
    for (const customer_id of ["C10001' OR '1'='1", "C10001; DROP TABLE orders; --", "c10001"]) {
      await expect(
        yard.callTool("orders_query_recent_orders", { customer_id, days: 7 }),
      ).rejects.toMatchObject({
        code: "INVALID_ARGUMENTS",
        message: expect.stringContaining('"customer_id" must match pattern'),
      });
    }
    for (const days of [-7, 0, 100_000]) {
      await expect(
        yard.callTool("orders_query_recent_orders", { customer_id: "C10001", days }),
      ).rejects.toMatchObject({
        code: "INVALID_ARGUMENTS",
        message: expect.stringContaining('"days" must be'),
      });
    }
    expect(fingerprint()).toBe(before);
  });

  it("rejects the same input itself when a client skips validation, with clear tool errors, changing nothing", async () => {
    const before = fingerprint();
    await using direct = await directClient("orders", { ORDERS_DB: path.join(dataDir, "orders.db") });
    for (const customer_id of ["C10001' OR '1'='1", "C10001; DROP TABLE orders; --"]) {
      const result = await direct.callTool("query_recent_orders", { customer_id, days: 7 });
      expect(result.isError, customer_id).toBe(true);
      expect(result.text).toMatch(/customer_id/);
    }
    for (const days of [-7, 0, 100_000, 7.5]) {
      const result = await direct.callTool("query_recent_orders", { customer_id: "C10001", days });
      expect(result.isError, String(days)).toBe(true);
      expect(result.text).toMatch(/days/);
    }
    expect(fingerprint()).toBe(before);
  });
});

describe("policies", () => {
  it("finds the earphone and returns policies for a Chinese product name", async () => {
    const result = await yard.callTool("policies_search_policy", { keyword: "无线蓝牙耳机", max_results: 3 });
    const titles = (result.structuredContent!.results as Array<{ title: string }>).map((r) => r.title);
    expect(titles[0]).toBe("耳机及数码电子产品售后规则");
    expect(titles).toContain("退货政策");
    expect((await yard.callTool("policies_search_policy", { keyword: " " })).isError).toBe(true);
  });
});

describe("environment and geo", () => {
  it("give deterministic data and name the valid area codes for an unknown one", async () => {
    const first = await yard.callTool("environment_get_environment_status", { area_code: "BJ-CY" });
    const again = await yard.callTool("environment_get_environment_status", { area_code: "BJ-CY" });
    expect(first.isError).toBe(false);
    expect(again.text).toBe(first.text);
    await expect(
      yard.callTool("environment_get_environment_status", { area_code: "XX-YY" }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      message: expect.stringContaining('"BJ-CY"'),
    });
    await using direct = await directClient("environment");
    const unknown = await direct.callTool("get_environment_status", { area_code: "XX-YY" });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain("BJ-CY");
  });

  it("check latitude, longitude and radius bounds, in the schema and in the server", async () => {
    expect((await yard.callTool("geo_simulate_geolocation", { lat: 39.9, lng: 116.4 })).isError).toBe(false);
    await using direct = await directClient("geo");
    for (const args of [
      { lat: 91, lng: 0 },
      { lat: 0, lng: -181 },
      { lat: 0, lng: 0, radius: 0 },
    ]) {
      await expect(yard.callTool("geo_simulate_geolocation", args)).rejects.toMatchObject({
        code: "INVALID_ARGUMENTS",
      });
      const result = await direct.callTool("simulate_geolocation", args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(result.text).toMatch(/^invalid parameter: /);
    }
  });
});

describe("hasher (Streamable HTTP) and inventory (Python, 2024-11-05)", () => {
  it("hash text with SHA-256 over HTTP", async () => {
    const result = await yard.callTool("hasher_hash_text", { text: "hello" });
    expect(result.text).toContain(createHash("sha256").update("hello").digest("hex"));
  });

  it("check stock, and report an unknown SKU as a tool error", async () => {
    const skus = await yard.callTool("inventory_list_skus", {});
    expect(skus.text).toContain("SKU-1001");
    expect((await yard.callTool("inventory_check_stock", { sku: "SKU-1001" })).isError).toBe(false);
    expect((await yard.callTool("inventory_check_stock", { sku: "SKU-0000" })).isError).toBe(true);
  });
});

/** One example server with Switchyard's argument checks out of the way, to test the server's own. */
async function directClient(server: string, env: Record<string, string> = {}) {
  const { Client } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const client = new Client({ name: "direct", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, `examples/servers/${server}.mjs`)],
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: "ignore",
    }),
  );
  return {
    async callTool(name: string, args: Record<string, unknown>) {
      const result = (await client.callTool({ name, arguments: args })) as {
        isError?: boolean;
        content: Array<{ type: string; text?: string }>;
      };
      return { isError: result.isError === true, text: result.content.map((c) => c.text ?? "").join("\n") };
    },
    [Symbol.asyncDispose]: () => client.close(),
  };
}
