// Context budget (issue 13), in tokens: what offering tools costs on synthetic catalogs of 50, 500 and
// 5,000 tools in tool-search mode, per-step routing and offering everything; how often consecutive
// requests share their prefix byte for byte (prompt caching); the agent loop's own time per step at
// 5,000 tools; and a scripted 30-step run over the example fleet with large results, with and without
// each context mechanism (shaping, handles, same-call collapse, compaction). Switchyard only. Tokens are
// counted on what the scripted OpenAI-compatible server received, with gpt-4o's tokenizer (o200k).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path, { join } from "node:path";
import { tokenCounterFor } from "../../src/context/tokens.js";
import {
  type AgentConfig,
  type AgentEvent,
  type AgentOptions,
  createAgent,
  OpenAIChatModel,
  Switchyard,
} from "../../src/index.js";
import type { ChatMessage, ModelTool } from "../../src/models/model.js";
import { toModelParameters } from "../../src/models/tool-schema.js";
import {
  type ReceivedRequest,
  ScriptedModel,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from "../../src/testing/index.js";
import { REPO } from "../paths.js";
import type { Row, ScenarioResult } from "../report.js";
import { median, type RoundPolicy, runRounds } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

const CATALOG_SERVER = join(REPO, "test/fixtures/catalog-server.mjs");
const MODEL = "gpt-4o";
const counter = tokenCounterFor(MODEL);
const SIZES = [50, 500, 5_000];
/** Goals of issue 13. */
const GOAL_SEARCH_TOKENS = 1_500;
const GOAL_SAVING_AT_500 = 0.9;
const GOAL_OVERHEAD_MS = 1;

// --- Synthetic catalogs -------------------------------------------------------------------------

const DOMAINS = [
  { server: "crm", title: "the CRM", zh: "客户管理" },
  { server: "billing", title: "billing", zh: "计费" },
  { server: "shipping", title: "shipping and logistics", zh: "物流" },
  { server: "inventory", title: "the warehouse inventory", zh: "库存" },
  { server: "hr", title: "human resources", zh: "人事" },
  { server: "calendar", title: "the team calendar", zh: "日程" },
  { server: "support", title: "customer support", zh: "客服" },
  { server: "analytics", title: "analytics", zh: "数据分析" },
  { server: "storage", title: "file storage", zh: "文件存储" },
  { server: "marketing", title: "marketing", zh: "市场营销" },
];
const VERBS = [
  ["create", "创建", "Create"],
  ["update", "更新", "Update"],
  ["delete", "删除", "Delete"],
  ["get", "查询", "Get"],
  ["list", "列出", "List"],
  ["archive", "归档", "Archive"],
  ["restore", "恢复", "Restore"],
  ["export", "导出", "Export"],
  ["import", "导入", "Import"],
  ["approve", "审批", "Approve"],
  ["reject", "驳回", "Reject"],
  ["assign", "分配", "Assign"],
  ["merge", "合并", "Merge"],
  ["tag", "标记", "Tag"],
  ["schedule", "安排", "Schedule"],
  ["cancel", "取消", "Cancel"],
  ["duplicate", "复制", "Duplicate"],
  ["lock", "锁定", "Lock"],
  ["share", "共享", "Share"],
  ["audit", "审计", "Audit"],
] as const;
const OBJECTS = [
  ["invoice", "发票"],
  ["contact", "联系人"],
  ["order", "订单"],
  ["shipment", "运单"],
  ["ticket", "工单"],
  ["contract", "合同"],
  ["meeting", "会议"],
  ["report", "报表"],
  ["campaign", "营销活动"],
  ["document", "文档"],
  ["employee", "员工"],
  ["product", "商品"],
  ["payment", "付款"],
  ["refund", "退款"],
  ["coupon", "优惠券"],
  ["warehouse", "仓库"],
  ["supplier", "供应商"],
  ["budget", "预算"],
  ["dashboard", "仪表盘"],
  ["folder", "文件夹"],
  ["lead", "销售线索"],
  ["quote", "报价单"],
  ["subscription", "订阅"],
  ["survey", "问卷"],
  ["badge", "工牌"],
] as const;

interface SyntheticTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Catalog name (`<server>_<name>`), English and Chinese queries that ask for it. */
  id: string;
  query: string;
  queryZh: string;
}

/** Tool `index` of a domain: a verb and an object, described in English with a Chinese gloss. */
function syntheticTool(domainIndex: number, index: number): SyntheticTool {
  const domain = DOMAINS[domainIndex]!;
  const [verb, verbZh, Verb] = VERBS[index % VERBS.length]!;
  const [object, objectZh] = OBJECTS[(Math.floor(index / VERBS.length) + domainIndex * 3) % OBJECTS.length]!;
  const name = `${verb}_${object}`;
  return {
    name,
    description:
      `${Verb} a ${object} in ${domain.title}. Use it when the user asks to ${verb} a ${object} ` +
      `(${domain.zh}：${verbZh}${objectZh}). Returns the ${object}'s id, status and the time of the change.`,
    inputSchema: {
      type: "object",
      properties: {
        [`${object}_id`]: {
          type: "string",
          description: `The ${object}'s id, e.g. "${object.slice(0, 2).toUpperCase()}-1042"`,
        },
        status: {
          type: "string",
          enum: ["draft", "active", "on_hold", "closed"],
          description: "Status filter or new status",
        },
        note: { type: "string", description: "A note kept with the change, for the audit log" },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 100,
          description: "Most records returned (list-like calls)",
        },
      },
      required: [`${object}_id`],
    },
    id: `${domain.server}_${name}`,
    query: `${verb} ${object} in ${domain.server}`,
    queryZh: `在${domain.zh}系统里${verbZh}${objectZh}`,
  };
}

/** A catalog of `size` tools over up to 10 servers (at most 500 tools each). */
function syntheticCatalog(size: number): Map<string, SyntheticTool[]> {
  const servers = Math.min(DOMAINS.length, Math.max(1, Math.ceil(size / 50)));
  const perServer = Math.ceil(size / servers);
  const catalog = new Map<string, SyntheticTool[]>();
  for (let d = 0; d < servers; d++) {
    const count = Math.min(perServer, size - d * perServer);
    catalog.set(
      DOMAINS[d]!.server,
      Array.from({ length: count }, (_, i) => syntheticTool(d, i)),
    );
  }
  return catalog;
}

/** Connect to the catalog: one fixture server process per domain. */
async function serveCatalog(catalog: Map<string, SyntheticTool[]>, dir: string): Promise<Switchyard> {
  const mcpServers: Record<string, { command: string; args: string[] }> = {};
  for (const [server, tools] of catalog) {
    const file = join(dir, `${server}-${tools.length}.json`);
    writeFileSync(
      file,
      JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))),
    );
    mcpServers[server] = { command: process.execPath, args: [CATALOG_SERVER, "--catalog", file] };
  }
  return Switchyard.connect({ mcpServers });
}

// --- What the model received ---------------------------------------------------------------------

const modelTools = (request: ReceivedRequest): ModelTool[] =>
  (request.tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description ?? "",
    parameters: tool.function.parameters,
  }));
const toolTokens = (request: ReceivedRequest) => counter.countTools(modelTools(request));
/** The request's messages back in Switchyard's form, for the token counter. */
function chatMessages(request: ReceivedRequest): ChatMessage[] {
  return request.messages.map((message): ChatMessage => {
    const content = typeof message.content === "string" ? message.content : "";
    if (message.role === "tool") return { role: "tool", toolCallId: String(message.tool_call_id), content };
    if (message.role === "assistant") {
      const calls = (message.tool_calls ?? []) as Array<{
        id: string;
        function: { name: string; arguments: string };
      }>;
      return {
        role: "assistant",
        content,
        ...(calls.length
          ? {
              toolCalls: calls.map((c) => ({
                id: c.id,
                name: c.function.name,
                arguments: c.function.arguments,
              })),
            }
          : {}),
      };
    }
    return { role: message.role === "system" ? "system" : "user", content };
  });
}
const messageTokens = (request: ReceivedRequest) => counter.countMessages(chatMessages(request));

/**
 * Share of consecutive requests whose prompt prefix is byte-identical: the later request's tools array
 * starts with the earlier one's tools, and its messages with the earlier one's messages (system prompt
 * included), each element serialized the same.
 */
function prefixStability(requests: readonly ReceivedRequest[]): { stable: number; pairs: number } {
  let stable = 0;
  for (let i = 1; i < requests.length; i++) {
    const [before, after] = [requests[i - 1]!, requests[i]!];
    const startsWith = (a: readonly unknown[] = [], b: readonly unknown[] = []) =>
      a.length >= b.length && b.every((item, k) => JSON.stringify(item) === JSON.stringify(a[k]));
    if (startsWith(after.tools, before.tools) && startsWith(after.messages, before.messages)) stable += 1;
  }
  return { stable, pairs: requests.length - 1 };
}

const call = (id: string, name: string, args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ id, name, arguments: args }],
});
const argsFor = (tool: SyntheticTool, n: number) => ({
  [`${tool.name.split("_").slice(1).join("_")}_id`]: `ID-${n}`,
});

interface OfferRun {
  requests: ReceivedRequest[];
  /** Whether each target was offered when the model called it. */
  found: boolean[];
}

/**
 * One scripted run: in search mode the model searches for A (English), calls it, searches for B
 * (Chinese), calls it, calls A again and answers; in the other modes it calls A, B, A and answers.
 */
async function offerRun(
  yard: Switchyard,
  mode: "search" | "route",
  [a, b]: [SyntheticTool, SyntheticTool],
): Promise<OfferRun> {
  const script: ScriptedReply[] =
    mode === "search"
      ? [
          call("s1", "search_tools", { query: a.query }),
          call("c1", a.id, argsFor(a, 1)),
          call("s2", "search_tools", { query: b.queryZh }),
          call("c2", b.id, argsFor(b, 2)),
          call("c3", a.id, argsFor(a, 3)),
          { content: "Done." },
        ]
      : [
          call("c1", a.id, argsFor(a, 1)),
          call("c2", b.id, argsFor(b, 2)),
          call("c3", a.id, argsFor(a, 3)),
          { content: "Done." },
        ];
  const server = await startScriptedOpenAIServer(script);
  try {
    const config: AgentConfig = { routing: { mode }, agent: { nudge: false, maxSteps: 10 } };
    const agent = createAgent(yard, config, {
      model: new OpenAIChatModel({ baseURL: server.baseURL, model: MODEL }),
    });
    const result = await agent.run(`Please ${a.query}, then ${b.queryZh}.`);
    const refused = new Set(result.calls.filter((c) => c.error?.code === "REFUSED").map((c) => c.name));
    return { requests: [...server.requests], found: [a, b].map((tool) => !refused.has(tool.id)) };
  } finally {
    await server.close();
  }
}

/** The agent's own time per step (run minus model minus tool time), in-process model, 22 steps. */
async function loopOverhead(
  yard: Switchyard,
  mode: "search" | "route",
  target: SyntheticTool,
): Promise<number> {
  const CALLS = 20;
  const script = (_request: unknown, index: number): ScriptedReply => {
    const offset = mode === "search" ? 1 : 0;
    if (mode === "search" && index === 0) return call("s", "search_tools", { query: target.query });
    if (index < CALLS + offset) return call(`c${index}`, target.id, argsFor(target, index));
    return { content: "done" };
  };
  let modelMs = 0;
  let toolMs = 0;
  const onEvent = (event: AgentEvent) => {
    if (event.type === "model_answered") modelMs += event.ms;
    if (event.type === "call_finished") toolMs += event.ms;
  };
  const agent = createAgent(
    yard,
    {
      routing: { mode },
      agent: { nudge: false, maxSteps: CALLS + 5, maxIdenticalCalls: CALLS, maxCallsPerTool: 0 },
    },
    { model: new ScriptedModel(script, MODEL), onEvent },
  );
  const started = performance.now();
  const result = await agent.run(`Please ${target.query}.`);
  const total = performance.now() - started;
  if (result.stopReason !== "answer")
    throw new Error(`overhead run stopped with ${result.stopReason}: ${result.error}`);
  return (total - modelMs - toolMs) / result.steps;
}

// --- The example fleet, 30 steps with large results ------------------------------------------------

/** A context mechanism the 30-step run switches: its agent options (the others stay at their defaults). */
export interface ContextVariant {
  label: string;
  options: Partial<AgentOptions>;
}

const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(0)}%`;
const fmt = (value: number) => Math.round(value).toLocaleString("en-US");

export async function contextBudget(
  context: ScenarioContext,
  options: { id: string; title: string; policy: RoundPolicy; variants: readonly ContextVariant[] },
): Promise<ScenarioResult> {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-bench-context-"));
  const rows: Row[] = [];
  const lines: string[] = [];
  try {
    // Tool offers per catalog size.
    lines.push(
      "  Tokens of the tools array per request (gpt-4o tokenizer), one scripted run per mode: search A, call A, search B (in Chinese), call B, call A, answer",
      `  ${"catalog".padEnd(8)} ${"everything".padStart(10)} ${"routed max".padStart(10)} ${"search max".padStart(10)} ${"search mean".padStart(11)} ${"vs everything".padStart(13)} ${"prefix-stable (search)".padStart(22)} ${"prefix-stable (routed)".padStart(22)}  found`,
    );
    let overhead: { search: number[]; route: number[] } = { search: [], route: [] };
    for (const size of SIZES) {
      const catalog = syntheticCatalog(size);
      const all = [...catalog.values()].flat();
      const targets: [SyntheticTool, SyntheticTool] = [all[7]!, all[all.length - 3]!];
      context.log(`context: ${size} tools …`);
      const yard = await serveCatalog(catalog, dir);
      try {
        if (yard.tools().length !== size)
          throw new Error(`expected ${size} tools, got ${yard.tools().length}`);
        // Everything: the whole catalog as the agent converts it (at 5,000 tools it does not fit the window).
        const everythingTokens = counter.countTools(
          yard.tools().map((tool) => ({
            name: tool.name,
            description: tool.description,
            parameters: toModelParameters(tool.inputSchema),
          })),
        );
        const routed = await offerRun(yard, "route", targets);
        const search = await offerRun(yard, "search", targets);
        const routedTokens = routed.requests.map(toolTokens);
        const searchTokens = search.requests.map(toolTokens);
        const searchMax = Math.max(...searchTokens);
        const searchMean = searchTokens.reduce((s, v) => s + v, 0) / searchTokens.length;
        const saving = 1 - searchMax / everythingTokens;
        const stableSearch = prefixStability(search.requests);
        const stableRouted = prefixStability(routed.requests);
        lines.push(
          `  ${fmt(size).padEnd(8)} ${fmt(everythingTokens).padStart(10)} ${fmt(Math.max(...routedTokens)).padStart(10)} ${fmt(searchMax).padStart(10)} ${fmt(searchMean).padStart(11)} ${`−${(saving * 100).toFixed(1)}%`.padStart(13)} ${`${pct(stableSearch.stable, stableSearch.pairs)} (${stableSearch.stable}/${stableSearch.pairs})`.padStart(22)} ${`${pct(stableRouted.stable, stableRouted.pairs)} (${stableRouted.stable}/${stableRouted.pairs})`.padStart(22)}  ${search.found.filter(Boolean).length}/2`,
        );
        rows.push(
          {
            id: `everything-${size}`,
            label: `offer everything, ${size} tools (tokens)`,
            median: everythingTokens,
            samples: 1,
          },
          {
            id: `routed-${size}`,
            label: `per-step routing, ${size} tools (max tokens)`,
            median: Math.max(...routedTokens),
            samples: routedTokens.length,
            extra: `prefix-stable ${stableRouted.stable}/${stableRouted.pairs}`,
          },
          {
            id: `search-${size}`,
            label: `tool search, ${size} tools (max tokens)`,
            median: searchMax,
            samples: searchTokens.length,
            extra: `mean ${fmt(searchMean)}, −${(saving * 100).toFixed(1)}% vs everything, prefix-stable ${stableSearch.stable}/${stableSearch.pairs}, found ${search.found.filter(Boolean).length}/2${searchMax <= GOAL_SEARCH_TOKENS ? "" : " (over the 1,500 goal)"}`,
          },
        );
        if (size === 500 && saving < GOAL_SAVING_AT_500)
          lines.push(`  (below the goal of ${GOAL_SAVING_AT_500 * 100}% less at 500 tools)`);
        if (size === 5_000) {
          context.log("context: loop overhead at 5,000 tools …");
          // A first run of each warms up the JIT, the tokenizer's ranks and the router's caches.
          await loopOverhead(yard, "search", targets[0]);
          await loopOverhead(yard, "route", targets[0]);
          await runRounds(rounds(context, options.policy), async () => {
            overhead.search.push(await loopOverhead(yard, "search", targets[0]));
            overhead.route.push(await loopOverhead(yard, "route", targets[0]));
          });
        }
      } finally {
        await yard.close();
      }
    }
    lines.push(
      "",
      `  Agent loop's own time per step at 5,000 tools (run minus model minus tool time; in-process model, 21–22 steps; median of ${overhead.search.length} runs; goal ≤ ${GOAL_OVERHEAD_MS} ms)`,
      `    tool search ${median(overhead.search).toFixed(3)} ms (range ${Math.min(...overhead.search).toFixed(3)}–${Math.max(...overhead.search).toFixed(3)}); per-step routing ${median(overhead.route).toFixed(3)} ms (range ${Math.min(...overhead.route).toFixed(3)}–${Math.max(...overhead.route).toFixed(3)})`,
    );
    rows.push(
      {
        id: "overhead-search-5000",
        label: "loop overhead per step, tool search, 5,000 tools (ms)",
        median: median(overhead.search),
        samples: overhead.search.length,
      },
      {
        id: "overhead-route-5000",
        label: "loop overhead per step, per-step routing, 5,000 tools (ms)",
        median: median(overhead.route),
        samples: overhead.route.length,
      },
    );
    overhead = { search: [], route: [] };

    lines.push("", ...(await fleetRun(context, options.variants, rows)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    id: options.id,
    title: options.title,
    unit: "tokens",
    method: "tokens counted on what the scripted OpenAI-compatible server received (gpt-4o tokenizer)",
    rows,
    table: lines.join("\n"),
  };
}

/** The window of the 30-step run: the default for models Switchyard does not know (qwen-class, 32k). */
const FLEET_WINDOW_TOKENS = 32_768;
/** Characters of each large result (a JSON report of ~6,000 tokens). */
const LARGE_RESULT_CHARS = 24_000;

/** The example fleet (examples/fleet.json, absolute paths) plus a `reports` server with large results. */
async function exampleFleet(dir: string): Promise<Switchyard> {
  const examples = join(REPO, "examples");
  const fleet = JSON.parse(readFileSync(join(examples, "fleet.json"), "utf8")) as {
    mcpServers: Record<string, { args?: string[]; env?: Record<string, string> }>;
  };
  for (const entry of Object.values(fleet.mcpServers)) {
    if (entry.args)
      entry.args = entry.args.map((arg) => (arg.startsWith("servers/") ? join(examples, arg) : arg));
    if (entry.env?.ORDERS_DB) entry.env.ORDERS_DB = join(dir, "orders.db");
  }
  const reports = join(dir, "reports.json");
  const customer = { customer_id: { type: "string", description: 'Customer id, e.g. "C10001"' } };
  writeFileSync(
    reports,
    JSON.stringify([
      {
        name: "export_order_history",
        description: "Export a customer's whole order history with every line item, as JSON.",
        inputSchema: { type: "object", properties: customer, required: ["customer_id"] },
      },
      {
        name: "search_logs",
        description: "Search the after-sales service logs; returns every matching log entry.",
        inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      },
      {
        name: "list_inventory_snapshot",
        description: "The warehouse inventory snapshot: every SKU with its stock per warehouse.",
        inputSchema: { type: "object", properties: {} },
      },
    ]),
  );
  fleet.mcpServers.reports = {
    command: process.execPath,
    args: [CATALOG_SERVER, "--catalog", reports, "--result-chars", String(LARGE_RESULT_CHARS)],
  } as never;
  const file = join(dir, "fleet.json");
  writeFileSync(file, JSON.stringify(fleet));
  return Switchyard.fromFile(file);
}

/**
 * The calls of the 30-step run, in cycles of 10 (then an answer): small results and large ones; each
 * cycle asks about another customer, and repeats one large call with the same arguments.
 */
function fleetCall(index: number): [string, Record<string, unknown>] {
  const customer = `C1000${1 + Math.floor(index / 10)}`;
  const calls: Array<[string, Record<string, unknown>]> = [
    ["orders_query_recent_orders", { customer_id: customer, days: 30 }],
    ["reports_export_order_history", { customer_id: customer }],
    [
      "policies_search_policy",
      { keyword: ["退货", "保修", "发票"][Math.floor(index / 10) % 3], max_results: 10 },
    ],
    ["reports_search_logs", { query: `refund failed ${customer}` }],
    ["environment_get_environment_status", { area_code: "BJ-CY" }],
    ["reports_export_order_history", { customer_id: customer }],
    ["orders_get_customer", { customer_id: customer }],
    ["reports_list_inventory_snapshot", {}],
    ["geo_simulate_geolocation", { lat: 31.2304, lng: 121.4737 }],
    ["hasher_hash_text", { text: `SO0020241${index}` }],
  ];
  return calls[index % calls.length]!;
}
const FLEET_STEPS = 30;

async function fleetRun(
  context: ScenarioContext,
  variants: readonly ContextVariant[],
  rows: Row[],
): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-bench-fleet-"));
  context.log("context: 30-step run over the example fleet …");
  const yard = await exampleFleet(dir);
  const lines = [
    `  Scripted ${FLEET_STEPS}-step run over the example fleet + a reports server (results of ${fmt(LARGE_RESULT_CHARS)} characters), window ${fmt(FLEET_WINDOW_TOKENS)} tokens: tokens sent per request (messages + tools)`,
    `  ${"variant".padEnd(52)} ${"total".padStart(9)} ${"mean/step".padStart(9)} ${"peak".padStart(8)} ${"peak/window".padStart(11)}  per step (every 5th)`,
  ];
  const report = (label: string, perStep: readonly number[]) => {
    const total = perStep.reduce((s, v) => s + v, 0);
    const peak = Math.max(...perStep);
    lines.push(
      `  ${label.padEnd(52)} ${fmt(total).padStart(9)} ${fmt(total / perStep.length).padStart(9)} ${fmt(peak).padStart(8)} ${pct(peak, FLEET_WINDOW_TOKENS).padStart(11)}  ${perStep
        .filter((_, i) => i % 5 === 0 || i === perStep.length - 1)
        .map(fmt)
        .join(" ")}`,
    );
    rows.push({
      id: `fleet-${label}`,
      label: `30 steps, ${label} (total tokens)`,
      median: total,
      samples: perStep.length,
      extra: `peak ${fmt(peak)} = ${pct(peak, FLEET_WINDOW_TOKENS)} of the window`,
    });
  };
  try {
    for (const [index, variant] of variants.entries()) {
      const script = (_request: unknown, step: number): ScriptedReply => {
        if (step >= FLEET_STEPS - 1) return { content: "Here is the summary." };
        const [name, args] = fleetCall(step);
        return call(`call_${step}`, name, args);
      };
      const server = await startScriptedOpenAIServer(script);
      try {
        const agent = createAgent(
          yard,
          {
            routing: { mode: "all" },
            agent: {
              nudge: false,
              maxSteps: FLEET_STEPS + 1,
              maxIdenticalCalls: FLEET_STEPS,
              maxCallsPerTool: 0,
            },
          },
          {
            model: new OpenAIChatModel({ baseURL: server.baseURL, model: MODEL }),
            ...variant.options,
            context: { window: FLEET_WINDOW_TOKENS, ...variant.options.context },
          },
        );
        const result = await agent.run("Go through customer C10001's after-sales case and summarize it.");
        if (result.steps !== FLEET_STEPS)
          throw new Error(
            `${variant.label}: ${result.steps} steps (${result.stopReason}: ${result.error ?? ""})`,
          );
        report(
          variant.label,
          server.requests.map((request) => messageTokens(request) + toolTokens(request)),
        );
        // The first variant (every mechanism on) also gives what the same steps would send without
        // collapse and compaction (its working record, every result as shaped) and without shaping too
        // (every result whole, as the tool gave it).
        if (index === 0) {
          const whole = await wholeResults(yard, result.messages);
          const record = (replace: boolean) =>
            server.requests.map((request, step) => {
              const upTo = nthAssistant(result.messages, step);
              const sent = [
                request.messages[0],
                ...toWire(result.messages.slice(0, upTo), replace ? whole : undefined),
              ];
              return messageTokens({ ...request, messages: sent as never }) + toolTokens(request);
            });
          report("without collapse and compaction (the working record)", record(false));
          report("without shaping, collapse, compaction (whole results)", record(true));
        }
      } finally {
        await server.close();
      }
    }
  } finally {
    await yard.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}

/** Index of the `n`-th assistant message of a conversation (its length when there are fewer). */
function nthAssistant(messages: readonly ChatMessage[], n: number): number {
  let seen = 0;
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant") continue;
    if (seen === n) return index;
    seen += 1;
  }
  return messages.length;
}

/** Each tool message's whole result, by tool call id: the call made again, directly. */
async function wholeResults(
  yard: Switchyard,
  messages: readonly ChatMessage[],
): Promise<Map<string, string>> {
  const whole = new Map<string, string>();
  const byKey = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const toolCall of message.toolCalls ?? []) {
      const key = `${toolCall.name} ${toolCall.arguments}`;
      let text = byKey.get(key);
      if (text === undefined) {
        const answer = await yard.callTool(toolCall.name, JSON.parse(toolCall.arguments) as unknown);
        text = `[tool ${toolCall.name} → ok]\n${answer.text}`;
        byKey.set(key, text);
      }
      whole.set(toolCall.id, text);
    }
  }
  return whole;
}

/** Messages in the wire form the token counting reads, tool results replaced when `whole` is given. */
function toWire(messages: readonly ChatMessage[], whole?: ReadonlyMap<string, string>): unknown[] {
  return messages.map((message) => {
    if (message.role === "tool")
      return {
        role: "tool",
        tool_call_id: message.toolCallId,
        content: whole?.get(message.toolCallId) ?? message.content,
      };
    if (message.role === "assistant")
      return {
        role: "assistant",
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : {}),
      };
    return { role: message.role, content: message.content };
  });
}
