#!/usr/bin/env node
// policies — search over a small set of Chinese after-sales policy documents
// (stdio MCP server).
//
//   node examples/servers/policies.mjs
//
// Tool: search_policy. The documents are embedded below. Matching is
// Chinese-aware: the keyword is split into words with
// Intl.Segmenter('zh', { granularity: 'word' }) plus character bigrams of its
// CJK runs (ICU often splits words like 退货 into single characters), and each
// document is scored by hits in its title, tags and body. Logs to stderr only.
import { McpServer } from "@modelcontextprotocol/server";
import {
  createLogger,
  defineTool,
  optionalInteger,
  requireString,
  runStdio,
  textResult,
} from "./lib/shared.mjs";

const log = createLogger("policies");

const POLICIES = [
  {
    id: "returns",
    title: "退货政策",
    tags: ["退货", "七天无理由", "退换", "售后", "returns"],
    body:
      "订单签收后 7 天内可申请无理由退货，商品需保持完好、配件齐全、不影响二次销售。" +
      "无线蓝牙耳机、智能手表等电子产品拆封激活后不适用无理由退货，但出现质量问题可在 15 天内退货。" +
      "生鲜、定制商品及贴身衣物不支持无理由退货。退货运费：质量问题由商家承担，非质量问题由买家承担。",
  },
  {
    id: "refunds",
    title: "退款政策",
    tags: ["退款", "原路退回", "到账时间", "refunds"],
    body:
      "退货商品经仓库验收通过后发起退款，款项在 1-3 个工作日内原路退回；信用卡最长可能需要 7 个工作日到账。" +
      "未发货订单取消后立即退款。使用优惠券的订单按实付金额退款，优惠券在有效期内退回账户。",
  },
  {
    id: "exchanges",
    title: "换货政策",
    tags: ["换货", "退换", "尺码", "质量问题", "exchanges"],
    body:
      "签收后 15 天内，商品存在质量问题可申请换同款同规格商品；服装鞋类可在 7 天内免费更换一次尺码。" +
      "换货商品寄回并验收后 48 小时内发出新商品，换货往返运费由商家承担。",
  },
  {
    id: "delivery",
    title: "配送与物流政策",
    tags: ["配送", "物流", "快递", "发货", "运费", "delivery", "shipping"],
    body:
      "默认快递为顺丰，现货商品下单后 48 小时内发货。订单满 99 元包邮，偏远地区加收 10 元配送费。" +
      "物流信息可在订单详情查看；超过 7 天物流无更新可联系客服核查，确认丢件后补发或全额退款。",
  },
  {
    id: "warranty",
    title: "保修政策",
    tags: ["保修", "维修", "质保", "电子产品", "warranty", "repair"],
    body:
      "电子产品自签收之日起享受 1 年免费保修（电池、耳机电池仓等易耗件保修 6 个月）。" +
      "人为损坏、进水、私自拆机不在保修范围内。保修期内寄修往返运费由商家承担，维修周期一般为 7-10 个工作日。",
  },
  {
    id: "invoices",
    title: "发票政策",
    tags: ["发票", "电子发票", "增值税专用发票", "开票", "invoices"],
    body:
      "所有订单默认开具电子普通发票，签收后 24 小时内发送到下单邮箱。需要增值税专用发票的企业用户请在下单后 " +
      "30 天内提交开票信息。发生退货时发票需一并退回或作废，部分退货将重新开具发票。",
  },
  {
    id: "price-protection",
    title: "价格保护政策",
    tags: ["价格保护", "保价", "降价", "差价", "price protection"],
    body:
      "自签收之日起 7 天内，同一商品在本店降价（不含秒杀、限时抢购和清仓商品）可申请价格保护，差价以原支付方式退回。" +
      "每个订单限申请一次，赠品和优惠券不参与保价。",
  },
  {
    id: "membership",
    title: "会员权益说明",
    tags: ["会员", "积分", "金卡", "银卡", "权益", "membership", "points"],
    body:
      "会员分为普通、银卡、金卡三个等级，按近 12 个月消费金额评定。每消费 1 元累积 1 积分，积分可抵现（100 积分抵 1 元）。" +
      "金卡会员享受运费券、专属客服和延长 7 天退货期；银卡会员享受每月两张运费券。",
  },
  {
    id: "privacy",
    title: "隐私政策",
    tags: ["隐私", "个人信息", "数据安全", "注销账户", "privacy"],
    body:
      "我们仅为完成订单、配送和售后服务收集必要的个人信息（姓名、电话、地址），不会出售给第三方。" +
      "客服查询订单时会对手机号做脱敏处理。用户可随时申请导出或删除个人信息，注销账户后数据在 15 天内删除。",
  },
  {
    id: "electronics",
    title: "耳机及数码电子产品售后规则",
    tags: [
      "耳机",
      "蓝牙耳机",
      "无线耳机",
      "智能手表",
      "数码",
      "电子产品",
      "激活",
      "earphones",
      "electronics",
    ],
    body:
      "无线蓝牙耳机、智能手表、平板等数码电子产品：未拆封可 7 天无理由退货；已拆封激活的，非质量问题不支持无理由退货，" +
      "出于卫生原因入耳式耳机的耳塞拆封后不退换。签收 15 天内出现质量问题（如单耳无声、无法配对、充电异常）可选择退货或换货，" +
      "15 天后至 1 年内享受免费保修。申请时请提供订单号和故障视频。",
  },
  {
    id: "fresh-food",
    title: "生鲜食品售后规则",
    tags: ["生鲜", "食品", "水果", "冷链", "fresh food"],
    body:
      "生鲜食品不支持无理由退货。签收后 48 小时内发现腐坏、破损或少件，请拍照上传，核实后按比例退款或补发。" +
      "冷链商品请在签收时当面检查包装温度。",
  },
];
const TOPICS = POLICIES.map((p) => p.title);

// ---- Chinese-aware matching -------------------------------------------------
const HAS_SEGMENTER = typeof Intl.Segmenter === "function";
const segmenter = HAS_SEGMENTER ? new Intl.Segmenter("zh", { granularity: "word" }) : null;
const CJK_RUN = /[\p{Script=Han}]+/gu;
const STOP_WORDS = new Set([
  "的",
  "了",
  "和",
  "与",
  "及",
  "或",
  "是",
  "在",
  "吗",
  "呢",
  "怎么",
  "如何",
  "什么",
  "政策",
  "规则",
  "说明",
]);

/** Search terms for a keyword: segmenter words + CJK character bigrams, lower-cased, de-duplicated. */
function termsOf(keyword) {
  const text = keyword.toLowerCase();
  const terms = new Set();
  if (segmenter) {
    for (const s of segmenter.segment(text)) {
      if (s.isWordLike && !STOP_WORDS.has(s.segment)) terms.add(s.segment);
    }
  } else {
    for (const w of text.split(/[^\p{L}\p{N}]+/u)) if (w) terms.add(w);
  }
  for (const run of text.match(CJK_RUN) ?? []) {
    for (let i = 0; i + 2 <= run.length; i++) terms.add(run.slice(i, i + 2));
  }
  const useful = [...terms].filter((t) => !STOP_WORDS.has(t));
  // Single CJK characters are too noisy on their own unless that is all we have.
  const strong = useful.filter((t) => !/^\p{Script=Han}$/u.test(t));
  return strong.length > 0 ? strong : useful;
}

const count = (haystack, needle) => {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
};

function score(policy, keyword, terms) {
  const title = policy.title.toLowerCase();
  const body = policy.body.toLowerCase();
  const tags = policy.tags.map((t) => t.toLowerCase());
  let s = 0;
  const matched = [];
  for (const term of terms) {
    const weight = term.length >= 3 ? 1.5 : 1; // longer terms are more specific
    let hit = 0;
    if (title.includes(term)) hit += 6;
    if (tags.includes(term)) hit += 5;
    else if (tags.some((t) => t.includes(term))) hit += 3;
    hit += Math.min(count(body, term), 3);
    if (hit > 0) matched.push(term);
    s += hit * weight;
  }
  const whole = keyword.toLowerCase();
  if (title.includes(whole) || tags.includes(whole)) s += 10;
  else if (body.includes(whole)) s += 5;
  return { score: Math.round(s * 10) / 10, matched };
}

// ---- server ------------------------------------------------------------------
function buildServer() {
  const server = new McpServer({ name: "policies", version: "1.0.0" });

  defineTool(
    server,
    "search_policy",
    {
      title: "Search after-sales policies",
      description:
        "Search the shop's after-sales policy documents (in Chinese) by keyword and return the best matches, full text included. " +
        "Topics: returns 退货, refunds 退款, exchanges 换货, delivery 配送/物流, warranty 保修, invoices 发票, " +
        "price protection 价格保护, membership 会员, privacy 隐私, electronics/earphones 耳机/数码, fresh food 生鲜. " +
        "The keyword can be a topic or a product name (e.g. 无线蓝牙耳机) — product names find the rules that apply to them. " +
        "Chinese keywords work best; the English topic words above also match.",
      inputSchema: {
        type: "object",
        properties: {
          keyword: {
            type: "string",
            minLength: 1,
            maxLength: 100,
            description:
              "What to search for, in Chinese: a topic (退货, 退款, 保修 …) or a product name (无线蓝牙耳机). Not empty.",
          },
          max_results: {
            type: "integer",
            minimum: 1,
            maximum: 10,
            default: 3,
            description: "Maximum number of documents to return, 1 to 10. Default 3.",
          },
        },
        required: ["keyword"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          keyword: { type: "string" },
          total_matches: { type: "integer", description: "Documents that matched at all" },
          results: {
            type: "array",
            items: {
              type: "object",
              properties: {
                id: { type: "string" },
                title: { type: "string" },
                tags: { type: "array", items: { type: "string" } },
                body: { type: "string" },
                score: { type: "number", description: "Relevance score, higher is better" },
              },
              required: ["id", "title", "tags", "body", "score"],
              additionalProperties: false,
            },
          },
          available_topics: { type: "array", items: { type: "string" }, description: "All policy titles" },
        },
        required: ["keyword", "total_matches", "results", "available_topics"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const keyword = requireString(args, "keyword", {
        maxLength: 100,
        expectation:
          'must be a non-empty search keyword, e.g. "退货" or a product name such as "无线蓝牙耳机"',
      });
      const maxResults = optionalInteger(args, "max_results", { min: 1, max: 10, defaultValue: 3 });
      const terms = termsOf(keyword);
      const ranked = POLICIES.map((p) => ({ p, ...score(p, keyword, terms) }))
        .filter((r) => r.score > 0)
        .sort((a, b) => b.score - a.score);
      const results = ranked
        .slice(0, maxResults)
        .map(({ p, score: s }) => ({ id: p.id, title: p.title, tags: p.tags, body: p.body, score: s }));
      const structured = { keyword, total_matches: ranked.length, results, available_topics: TOPICS };
      if (results.length === 0) {
        return textResult(
          `No policy matched "${keyword}". Available topics: ${TOPICS.join("、")}. Try one of these as the keyword.`,
          structured,
        );
      }
      const text = [
        `${ranked.length} policy document(s) matched "${keyword}"; showing ${results.length}, best first.`,
        ...results.map((r) => `【${r.title}】(${r.id}) ${r.body}`),
      ].join("\n");
      return textResult(text, structured);
    },
  );

  return server;
}

if (!HAS_SEGMENTER) log("Intl.Segmenter is unavailable: matching with character bigrams only");
runStdio(buildServer, { log });
