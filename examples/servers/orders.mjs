#!/usr/bin/env node
// orders — an after-sales orders database as an MCP server (stdio).
//
//   ORDERS_DB=/path/to/orders.db node examples/servers/orders.mjs
//
// SQLite through switchyard/sqlite: node:sqlite on Node 22.13+ (nothing to install), else
// better-sqlite3 (an optional native module), loaded on first use, so that without it the
// server still starts, lists its tools, and answers each call with what is missing. The DB file is $ORDERS_DB, default
// ./.data/orders.db relative to the current working directory (the folder is
// created). On first start the tables are created and seeded with 5 demo
// customers (C10001 … C10005) and 40 orders whose dates are relative to today;
// if the newest order is more than 3 days old the demo data is re-seeded
// relative to today, so "the last 7 days" always has rows for C10001.
//
// Tools: query_recent_orders, get_customer. Read-only. Logs to stderr only.
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { McpServer } from "@modelcontextprotocol/server";
import { openSqlite, SqliteEngineMissing } from "switchyard/sqlite";
import {
  createLogger,
  defineTool,
  optionalInteger,
  ParamError,
  requireString,
  runStdio,
  textResult,
} from "./lib/shared.mjs";

const log = createLogger("orders");
const MAX_ROWS = 10;
const CUSTOMER_ID = /^C\d{5}$/;
const CUSTOMER_ID_EXPECTATION =
  'must be a customer id like "C10001": the letter C followed by exactly 5 digits';

// ---- dates: all dates are UTC; created_at is ISO-8601 text ---------------
const DAY_MS = 86_400_000;
const todayUtc = () => new Date().toISOString().slice(0, 10); // YYYY-MM-DD
const addDays = (isoDate, n) =>
  new Date(Date.parse(`${isoDate}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

// ---- demo data -----------------------------------------------------------
const CUSTOMERS = [
  {
    id: "C10001",
    name: "张伟",
    city: "北京",
    member_level: "金卡会员",
    phone: "138****1024",
    registered_days_ago: 900,
  },
  {
    id: "C10002",
    name: "王芳",
    city: "上海",
    member_level: "银卡会员",
    phone: "139****2048",
    registered_days_ago: 640,
  },
  {
    id: "C10003",
    name: "李娜",
    city: "广州",
    member_level: "普通会员",
    phone: "137****4096",
    registered_days_ago: 410,
  },
  {
    id: "C10004",
    name: "刘洋",
    city: "深圳",
    member_level: "金卡会员",
    phone: "136****8192",
    registered_days_ago: 1200,
  },
  {
    id: "C10005",
    name: "陈静",
    city: "杭州",
    member_level: "普通会员",
    phone: "135****1638",
    registered_days_ago: 75,
  },
];

// C10001's orders are written out so the demo is predictable: three in the
// last 7 days (newest: 无线蓝牙耳机), one 12 days ago, the rest older.
// [days_ago, time (UTC), product_name, amount (CNY), status]
const C10001_ORDERS = [
  [1, "09:12:33", "无线蓝牙耳机", 299.0, "已签收"],
  [4, "20:45:10", "智能手表", 1299.0, "已发货"],
  [6, "13:05:47", "Type-C 快充数据线", 39.9, "已签收"],
  [12, "11:30:00", "机械键盘", 459.0, "已签收"],
  [23, "16:22:18", "移动电源", 149.0, "退货中"],
  [37, "08:58:02", "便携榨汁杯", 129.0, "已退款"],
  [61, "21:14:55", "空气净化器滤芯", 269.0, "已签收"],
  [95, "10:40:29", "降噪头戴式耳机", 1599.0, "已签收"],
  [140, "15:03:41", "电动牙刷", 199.0, "已签收"],
  [188, "19:27:06", "笔记本电脑支架", 89.0, "已签收"],
  [250, "12:16:38", "智能体脂秤", 159.0, "已取消"],
  [330, "17:49:20", "保温杯", 79.0, "已签收"],
];
const PRODUCTS = [
  ["无线蓝牙耳机", 299.0],
  ["智能手表", 1299.0],
  ["机械键盘", 459.0],
  ["移动电源", 149.0],
  ["平板电脑保护套", 69.0],
  ["扫地机器人", 1899.0],
  ["电热水壶", 139.0],
  ["护眼台灯", 219.0],
  ["运动跑鞋", 499.0],
  ["智能音箱", 349.0],
  ["真丝枕套", 189.0],
  ["咖啡机", 1099.0],
];
const STATUSES = ["已签收", "已签收", "已签收", "已发货", "待发货", "退货中", "已退款", "已取消"];

/** Deterministic PRNG (mulberry32) so the generated orders never change. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The 40 demo orders with created_at computed relative to `today`. */
function demoOrders(today) {
  const rows = C10001_ORDERS.map(([daysAgo, time, product_name, amount, status]) => ({
    customer_id: "C10001",
    daysAgo,
    time,
    product_name,
    amount,
    status,
  }));
  const rand = prng(20240611);
  const others = ["C10002", "C10003", "C10004", "C10005"];
  for (let i = 0; rows.length < 40; i++) {
    const [product_name, amount] = PRODUCTS[Math.floor(rand() * PRODUCTS.length)];
    const seconds = Math.floor(rand() * DAY_MS) / 1000;
    const time = new Date(Math.floor(seconds) * 1000).toISOString().slice(11, 19);
    rows.push({
      customer_id: others[i % others.length],
      daysAgo: 1 + Math.floor(rand() * 180),
      time,
      product_name,
      amount,
      status: STATUSES[Math.floor(rand() * STATUSES.length)],
    });
  }
  // Order ids follow creation order (oldest first), like a real sequence.
  rows.sort(
    (x, y) =>
      y.daysAgo - x.daysAgo || x.time.localeCompare(y.time) || x.customer_id.localeCompare(y.customer_id),
  );
  return rows.map((r, i) => ({
    order_id: `SO${String(202401 + i).padStart(8, "0")}`,
    customer_id: r.customer_id,
    product_name: r.product_name,
    amount: r.amount,
    status: r.status,
    created_at: `${addDays(today, -r.daysAgo)}T${r.time}Z`,
  }));
}

// ---- database ------------------------------------------------------------
/** mkdir -p, one level at a time (Node 20's recursive mkdirSync can spin forever on e.g. /proc paths). */
function makeDirs(dir) {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeDirs(parent);
  try {
    mkdirSync(dir);
  } catch (err) {
    if (err.code !== "EEXIST") throw err;
  }
}

// ---- SQLite: node:sqlite where this Node has it (22.13+), else better-sqlite3 --------
// switchyard/sqlite picks the engine and loads it on first use; without either the server still starts
// and answers each call with what to do.
class MissingDependency extends Error {}

function openDatabase() {
  const file = resolve(process.cwd(), process.env.ORDERS_DB || "./.data/orders.db");
  makeDirs(dirname(file));
  let db;
  try {
    db = openSqlite(file);
  } catch (err) {
    if (!(err instanceof SqliteEngineMissing)) throw err;
    throw new MissingDependency(`the orders example keeps its data in SQLite: ${err.message}`);
  }
  db.pragma("busy_timeout = 5000"); // several servers may share the file
  db.pragma("foreign_keys = ON");
  db.exec(`
    CREATE TABLE IF NOT EXISTS customers (
      id            TEXT PRIMARY KEY,
      name          TEXT NOT NULL,
      city          TEXT NOT NULL,
      member_level  TEXT NOT NULL,
      phone         TEXT NOT NULL,
      registered_at TEXT NOT NULL          -- ISO date, UTC
    );
    CREATE TABLE IF NOT EXISTS orders (
      order_id     TEXT PRIMARY KEY,
      customer_id  TEXT NOT NULL REFERENCES customers(id),
      product_name TEXT NOT NULL,
      amount       REAL NOT NULL,          -- CNY
      status       TEXT NOT NULL,
      created_at   TEXT NOT NULL           -- ISO-8601 timestamp, UTC, e.g. 2025-01-31T09:12:33Z
    );
    CREATE INDEX IF NOT EXISTS orders_by_customer_date ON orders (customer_id, created_at);
  `);
  ensureFreshDemoData(db, file);
  return { db, file };
}

function ensureFreshDemoData(db, file) {
  // BEGIN IMMEDIATE: concurrent starts seed only once.
  const seeded = db.immediate(() => {
    const today = todayUtc();
    const newest = db.prepare("SELECT MAX(created_at) AS newest FROM orders").get().newest;
    if (newest !== null && newest >= addDays(today, -3)) return null; // fresh enough: leave it alone
    db.prepare("DELETE FROM orders").run();
    db.prepare("DELETE FROM customers").run();
    const insertCustomer = db.prepare(
      "INSERT INTO customers (id, name, city, member_level, phone, registered_at) VALUES (@id, @name, @city, @member_level, @phone, @registered_at)",
    );
    // Exactly the statement's names (node:sqlite refuses a name the statement does not have).
    for (const { registered_days_ago: daysAgo, ...c } of CUSTOMERS)
      insertCustomer.run({ ...c, registered_at: addDays(today, -daysAgo) });
    const insertOrder = db.prepare(
      "INSERT INTO orders (order_id, customer_id, product_name, amount, status, created_at) VALUES (@order_id, @customer_id, @product_name, @amount, @status, @created_at)",
    );
    const orders = demoOrders(today);
    for (const o of orders) insertOrder.run(o);
    return { newest, count: orders.length };
  });
  if (seeded === null) log(`using ${file}`);
  else if (seeded.newest === null) log(`created ${file} with ${seeded.count} demo orders`);
  else
    log(`re-seeded ${file}: newest order was ${seeded.newest}, demo dates are now relative to ${todayUtc()}`);
}

/** The database and its statements, opened on first use; throws MissingDependency without an engine. */
let opened;
function database() {
  if (opened) return opened;
  const { db, file } = openDatabase();
  const stmt = {
    customer: db.prepare("SELECT id, name, city, member_level, registered_at FROM customers WHERE id = ?"),
    customerStats: db.prepare(
      "SELECT COUNT(*) AS order_count, COALESCE(SUM(amount), 0) AS total_spent, MAX(created_at) AS last_order_at FROM orders WHERE customer_id = ?",
    ),
    recent: db.prepare(
      `SELECT order_id, product_name, amount, status, created_at
         FROM orders
        WHERE customer_id = ? AND created_at >= ?
        ORDER BY created_at DESC, order_id DESC
        LIMIT ?`,
    ),
    recentCount: db.prepare("SELECT COUNT(*) AS total FROM orders WHERE customer_id = ? AND created_at >= ?"),
  };
  opened = { db, file, stmt };
  return opened;
}

// Open (and seed) at start, as before; without a SQLite engine, start anyway and say so on each call.
try {
  database();
} catch (err) {
  if (err instanceof MissingDependency) log(err.message);
  else {
    log(`cannot open the orders database (set ORDERS_DB to a writable path): ${err.message}`);
    process.exit(1);
  }
}

function customerIdArg(args) {
  return requireString(args, "customer_id", {
    pattern: CUSTOMER_ID,
    expectation: CUSTOMER_ID_EXPECTATION,
    maxLength: 32,
  });
}

function findCustomer(customerId) {
  const { db, stmt } = database();
  const customer = stmt.customer.get(customerId);
  if (!customer) {
    const known = db
      .prepare("SELECT id FROM customers ORDER BY id")
      .all()
      .map((c) => c.id);
    throw new ParamError(
      `invalid parameter: customer_id "${customerId}" does not exist; known customers: ${known.join(", ")}`,
    );
  }
  return customer;
}

// ---- tools -----------------------------------------------------------------
const ORDER_ROW = {
  type: "object",
  properties: {
    order_id: { type: "string", description: "Order number, e.g. SO00202410" },
    product_name: { type: "string", description: "Product name (Chinese)" },
    amount: { type: "number", description: "Order amount in CNY (yuan)" },
    status: {
      type: "string",
      description: "Order status, e.g. 已签收 (delivered), 已发货 (shipped), 退货中 (return in progress)",
    },
    created_at: { type: "string", description: "When the order was placed, ISO-8601 UTC timestamp" },
  },
  required: ["order_id", "product_name", "amount", "status", "created_at"],
  additionalProperties: false,
};

function buildServer() {
  const server = new McpServer({ name: "orders", version: "1.0.0" });

  defineTool(
    server,
    "query_recent_orders",
    {
      title: "Query recent orders",
      description:
        "List a customer's orders placed in the last N days (today and the N-1 days before it, UTC), newest first. " +
        "Returns at most 10 orders; `more` tells how many further orders in the window were not listed. " +
        "Use the product_name of an order to look up the matching after-sales policy.",
      inputSchema: {
        type: "object",
        properties: {
          customer_id: {
            type: "string",
            pattern: "^C\\d{5}$",
            description: 'Customer id: the letter C followed by exactly 5 digits, e.g. "C10001".',
          },
          days: {
            type: "integer",
            minimum: 1,
            maximum: 365,
            default: 30,
            description: "How many days back to look, 1 to 365 (1 = today only). Default 30.",
          },
        },
        required: ["customer_id"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          customer_id: { type: "string" },
          days: { type: "integer" },
          rows: { type: "array", items: ORDER_ROW, description: "At most 10 orders, newest first" },
          total: { type: "integer", description: "Number of orders in the window" },
          more: { type: "integer", description: "Orders in the window that are not listed in rows" },
        },
        required: ["customer_id", "days", "rows", "total", "more"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const customerId = customerIdArg(args);
      const days = optionalInteger(args, "days", { min: 1, max: 365, defaultValue: 30 });
      const customer = findCustomer(customerId);
      const since = addDays(todayUtc(), -(days - 1)); // ISO date; compared with ISO timestamps as text
      const { stmt } = database();
      const rows = stmt.recent.all(customerId, since, MAX_ROWS);
      const { total } = stmt.recentCount.get(customerId, since);
      const more = Math.max(0, total - rows.length);
      const summary =
        total === 0
          ? `${customerId} (${customer.name}) has no orders in the last ${days} day(s) (since ${since}, UTC).`
          : `${customerId} (${customer.name}) has ${total} order(s) in the last ${days} day(s) (since ${since}, UTC); ` +
            `showing ${rows.length}, newest first${more ? `; ${more} more not shown` : ""}.`;
      return textResult(`${summary}\n${JSON.stringify(rows)}`, {
        customer_id: customerId,
        days,
        rows,
        total,
        more,
      });
    },
  );

  defineTool(
    server,
    "get_customer",
    {
      title: "Get customer",
      description:
        "Look up a customer's profile by customer id: name, city, membership level, registration date, " +
        "and a summary of all their orders (count, total spent, date of the last order).",
      inputSchema: {
        type: "object",
        properties: {
          customer_id: {
            type: "string",
            pattern: "^C\\d{5}$",
            description: 'Customer id: the letter C followed by exactly 5 digits, e.g. "C10001".',
          },
        },
        required: ["customer_id"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          customer_id: { type: "string" },
          name: { type: "string" },
          city: { type: "string" },
          member_level: { type: "string", description: "Membership level, e.g. 金卡会员 (gold)" },
          registered_at: { type: "string", description: "Registration date, ISO date (UTC)" },
          order_count: { type: "integer" },
          total_spent: { type: "number", description: "Sum of all order amounts, CNY" },
          last_order_at: {
            type: ["string", "null"],
            description: "ISO timestamp of the newest order, or null",
          },
        },
        required: [
          "customer_id",
          "name",
          "city",
          "member_level",
          "registered_at",
          "order_count",
          "total_spent",
          "last_order_at",
        ],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const customerId = customerIdArg(args);
      const c = findCustomer(customerId);
      const stats = database().stmt.customerStats.get(customerId);
      const record = {
        customer_id: c.id,
        name: c.name,
        city: c.city,
        member_level: c.member_level,
        registered_at: c.registered_at,
        order_count: stats.order_count,
        total_spent: Math.round(stats.total_spent * 100) / 100,
        last_order_at: stats.last_order_at,
      };
      const summary = `${c.id} ${c.name} (${c.city}, ${c.member_level}), ${record.order_count} order(s) totalling ¥${record.total_spent}.`;
      return textResult(`${summary}\n${JSON.stringify(record)}`, record);
    },
  );

  return server;
}

runStdio(buildServer, { log, cleanup: () => opened?.db.close() });
