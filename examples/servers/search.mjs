#!/usr/bin/env node
// search — seed 001's search server: a help-center search tool named `query`, the same name as the SQL
// server's tool (the catalog makes them search_query and sql_query).
//
//   node examples/servers/search.mjs
//
// Tool: query(keywords, max_results = 3) over six built-in help articles, scored by keyword hits in the
// title and body (Chinese matched by characters pairs). Logs to stderr only; exits when stdin closes.
import { McpServer } from "@modelcontextprotocol/server";
import {
  createLogger,
  defineTool,
  optionalInteger,
  requireString,
  runStdio,
  textResult,
} from "./lib/shared.mjs";

const log = createLogger("search");

const ARTICLES = [
  {
    id: "pair-earbuds",
    title: "蓝牙耳机如何配对",
    body: "打开耳机充电盒，长按功能键 3 秒进入配对模式，在手机蓝牙设置中选择耳机名称即可连接。",
  },
  {
    id: "watch-charge",
    title: "智能手表充不进电怎么办",
    body: "请确认磁吸充电器与表背触点对齐并清洁触点；仍无法充电请联系售后检测。",
  },
  {
    id: "invoice",
    title: "如何开具电子发票",
    body: "在订单详情页点击申请开票，填写抬头与税号，电子发票将在 1 个工作日内发送到邮箱。",
  },
  {
    id: "shipping",
    title: "配送时效说明",
    body: "默认顺丰快递，一般 1-3 天送达，偏远地区加收 10 元配送费。",
  },
  {
    id: "warranty",
    title: "数码产品保修说明",
    body: "数码产品自签收起享受一年保修，人为损坏与进水不在保修范围内。",
  },
  {
    id: "keyboard-keys",
    title: "机械键盘按键失灵处理",
    body: "拔下键帽清理轴体灰尘，或在设置中恢复出厂；多个按键失灵请申请换货。",
  },
];

/** Words of a text: latin words, and pairs of CJK characters. */
function terms(text) {
  const lower = text.toLowerCase();
  const words = lower.match(/[a-z0-9]+/g) ?? [];
  const cjk = [...lower.replace(/[^\u4e00-\u9fff]/g, "")];
  const pairs = cjk.slice(0, -1).map((char, i) => char + cjk[i + 1]);
  return [...words, ...pairs];
}

function buildServer() {
  const server = new McpServer({ name: "search", version: "1.0.0" });
  defineTool(
    server,
    "query",
    {
      title: "Search the help center",
      description:
        "Search the help-center articles by keywords and return the best matching articles (how-to guides, " +
        "troubleshooting, invoices, shipping, warranty). Use it for questions of how to do something — not for " +
        "prices, stock or counts.",
      inputSchema: {
        type: "object",
        properties: {
          keywords: { type: "string", description: "What to look for, e.g. 蓝牙耳机 配对." },
          max_results: {
            type: "integer",
            minimum: 1,
            maximum: 6,
            description: "Articles returned at most, 1 to 6. Default 3.",
          },
        },
        required: ["keywords"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    },
    async (args) => {
      const keywords = requireString(args, "keywords", { maxLength: 200 });
      const max = optionalInteger(args, "max_results", { min: 1, max: 6, defaultValue: 3 });
      const wanted = new Set(terms(keywords));
      const ranked = ARTICLES.map((article) => {
        const title = terms(article.title);
        const body = terms(article.body);
        const score =
          title.filter((t) => wanted.has(t)).length * 2 + body.filter((t) => wanted.has(t)).length;
        return { ...article, score };
      })
        .filter((article) => article.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, max);
      log(`${ranked.length} article(s) for ${JSON.stringify(keywords)}`);
      const results = ranked.map(({ id, title, body }) => ({ id, title, body }));
      const text = results.length
        ? results.map((r) => `【${r.title}】${r.body}`).join("\n")
        : `No article matched "${keywords}".`;
      return textResult(text, { keywords, results });
    },
  );
  return server;
}

runStdio(buildServer, { log });
