#!/usr/bin/env node
// sql — seed 001's database server: a read-only SQL tool named `query`, the same name as the search
// server's tool (the catalog makes them sql_query and search_query).
//
//   node examples/servers/sql.mjs
//
// An in-memory SQLite database of 8 products (sku, name, category, price, stock), through switchyard/sqlite
// (node:sqlite, or better-sqlite3 on a Node without it).
// Tool: query(sql, max_rows = 20) — one SELECT statement, run read-only; anything else is an error.
// Logs to stderr only; exits when stdin closes.
import { McpServer } from "@modelcontextprotocol/server";
import { openSqlite, SqliteEngineMissing } from "switchyard/sqlite";
import {
  createLogger,
  defineTool,
  optionalInteger,
  requireString,
  runStdio,
  textResult,
  toolError,
} from "./lib/shared.mjs";

const log = createLogger("sql");

const PRODUCTS = [
  ["SKU-1001", "无线蓝牙耳机", "数码", 299, 42],
  ["SKU-1002", "智能手表", "数码", 1299, 7],
  ["SKU-1003", "Type-C 快充数据线", "配件", 39.9, 310],
  ["SKU-1004", "机械键盘", "外设", 459, 0],
  ["SKU-1005", "降噪头戴耳机", "数码", 899, 5],
  ["SKU-1006", "移动电源 20000mAh", "配件", 159, 88],
  ["SKU-1007", "蓝牙音箱", "数码", 399, 12],
  ["SKU-1008", "笔记本支架", "外设", 129, 3],
];

let missing = "";
function openDatabase() {
  let db;
  try {
    db = openSqlite(":memory:");
  } catch (err) {
    if (!(err instanceof SqliteEngineMissing)) throw err;
    missing = err.message;
    return undefined;
  }
  db.exec(
    "CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, category TEXT, price REAL, stock INTEGER)",
  );
  const insert = db.prepare("INSERT INTO products VALUES (?, ?, ?, ?, ?)");
  for (const row of PRODUCTS) insert.run(...row);
  return db;
}

const db = openDatabase();
if (!db) log(`no SQLite here, every query answers with an error: ${missing}`);

function buildServer() {
  const server = new McpServer({ name: "sql", version: "1.0.0" });
  defineTool(
    server,
    "query",
    {
      title: "Query the product database (SQL)",
      description:
        "Run one read-only SQL SELECT statement over the shop's product database: table products(sku, name, " +
        "category, price, stock). Use it for counts, prices, stock levels and lists of products — structured data, " +
        "not help articles.",
      inputSchema: {
        type: "object",
        properties: {
          sql: {
            type: "string",
            description: "One SQL SELECT statement, e.g. SELECT name, stock FROM products WHERE stock < 10.",
          },
          max_rows: {
            type: "integer",
            minimum: 1,
            maximum: 100,
            description: "Rows returned at most, 1 to 100. Default 20.",
          },
        },
        required: ["sql"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    },
    async (args) => {
      const sql = requireString(args, "sql", { maxLength: 2_000 });
      const maxRows = optionalInteger(args, "max_rows", { min: 1, max: 100, defaultValue: 20 });
      if (!db) return toolError(`the product database is unavailable: ${missing}`);
      if (!/^\s*select\b/i.test(sql) || sql.replace(/;\s*$/, "").includes(";"))
        return toolError("only one SELECT statement is allowed (this tool is read-only)");
      try {
        const statement = db.prepare(sql);
        const rows = statement.all().slice(0, maxRows);
        log(`${rows.length} row(s) for ${sql}`);
        return textResult(`${rows.length} row(s)\n${JSON.stringify(rows)}`, { rows, count: rows.length });
      } catch (error) {
        return toolError(`SQL error: ${error.message}`);
      }
    },
  );
  return server;
}

runStdio(buildServer, { log, cleanup: () => db?.close() });
