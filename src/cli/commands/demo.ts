import {
  createAgent,
  didYouMean,
  isSwitchyardError,
  type ModelProvider,
  openSqlite,
  resolveModel,
  SqliteEngineMissing,
  type Switchyard,
} from "../../internal.js";
import { packageFile } from "../../package-root.js";
import { describeStepError, loadPlanFile, type PlanResult, runPlan } from "../../plan/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { formatTable } from "../table.js";
import { describeEvent } from "./ask.js";
import { SEED_SCENARIOS } from "./demo-scenarios.js";
import { renderTrace } from "./run.js";
import { renderServers, SERVER_HEADINGS, type ServerHeadings } from "./servers.js";

const examples = (file: string) => packageFile("examples", file);
/** The bundled example fleet and the after-sales plan, shipped with the package. */
export const EXAMPLE_FLEET = examples("fleet.json");
export const AFTER_SALES_PLAN = examples("after-sales.plan.yaml");
/** Seed 000's question. */
export const DEMO_QUESTION = "查一下 C10001 最近 7 天的订单，然后根据第一笔订单的商品名称搜索相关售后政策";

/** The after-sales scenario's words in `demo --list`. */
const AFTER_SALES_ABOUT = {
  en: "seed 000's after-sales assistant: a customer's recent orders, then the policy for the first order's product",
  zh: "种子 000 的售后助手：查客户最近的订单，再按第一笔订单的商品搜索售后政策",
};

/**
 * `switchyard demo [scenario]`: start a scenario's example fleet, show it, and run the scenario — with
 * the agent when a model is configured (environment or `--model`), else offline (a declared plan, or a
 * scripted stand-in where the point is the router's choice). The default is seed 000's after-sales
 * scenario; `--list` lists them all.
 */
export async function demoCommand(
  ctx: CommandContext,
  scenario: string | undefined,
  flags: { model?: string; list?: boolean } = {},
): Promise<number> {
  const language = demoLanguage();
  const text = DEMO_TEXT[language];
  if (flags.list) {
    ctx.out.result(
      formatTable(language === "zh" ? ["场景", "种子", "内容"] : ["SCENARIO", "SEED", "WHAT IT SHOWS"], [
        [
          "after-sales",
          "000",
          `${language === "zh" ? "（默认）" : "(default) "}${AFTER_SALES_ABOUT[language]}`,
        ],
        ...SEED_SCENARIOS.map((s) => [s.id, s.seed, s.about[language]]),
      ]),
    );
    return EXIT_OK;
  }
  const chosen = scenario === undefined || scenario === "after-sales" ? undefined : findScenario(scenario);
  const model = configuredModel(flags.model);
  for (const warning of checkExampleDependencies()) ctx.out.note(warning);
  const connect = async (fleet: string) => {
    // Its servers table below says which failed, and why.
    const yard = await ctx.connect({ configFile: fleet, noteFailures: false });
    ctx.out.result(renderServers(yard.servers(), { headings: text.servers }));
    return yard;
  };
  const runAgent = async (yard: Switchyard, question: string, using: ModelProvider) => {
    ctx.out.result(`${text.agent(using.name)}\n`);
    const agent = createAgent(yard, yard.config, {
      model: using,
      onEvent: (event) => {
        const line = describeEvent(event);
        if (line) ctx.out.note(line);
      },
    });
    const result = await agent.run(question, { signal: ctx.runSignal() });
    if (result.stopReason === "cancelled") return { code: EXIT_FAILED, runId: result.runId }; // the CLI says so
    ctx.out.result(`${result.answer}\n`);
    ctx.out.result(
      formatTable(
        text.calls,
        result.calls.map((call, index) => [
          String(index + 1),
          call.server ?? "-",
          call.tool ?? call.name,
          call.ok ? "ok" : (call.error?.code ?? "failed"),
          `${Math.round(call.ms)} ms`,
        ]),
        { empty: text.noCalls },
      ),
    );
    return { code: result.stopReason === "answer" ? EXIT_OK : EXIT_FAILED, runId: result.runId };
  };
  if (chosen) return chosen.run({ ctx, model, connect, runAgent, zh: language === "zh" });

  const yard = await connect(EXAMPLE_FLEET);
  ctx.out.result(`\n${text.catalog(yard.tools().length, DEMO_QUESTION)}\n`);
  if (model) return (await runAgent(yard, DEMO_QUESTION, model)).code;

  ctx.out.result(`${text.plan}\n`);
  const result = await runPlan(loadPlanFile(AFTER_SALES_PLAN), {
    host: yard,
    input: { customer_id: "C10001", days: 7 },
    signal: ctx.runSignal(),
  });
  if (ctx.signal.aborted) return EXIT_FAILED; // interrupted: the CLI says so
  ctx.out.result(`${summarize(result)}\n`);
  ctx.out.result(renderTrace(result.steps));
  return result.ok ? EXIT_OK : EXIT_FAILED;
}

/** A scenario by id; an unknown one is a usage error that lists them. */
function findScenario(id: string) {
  const found = SEED_SCENARIOS.find((s) => s.id === id);
  if (found) return found;
  const ids = ["after-sales", ...SEED_SCENARIOS.map((s) => s.id)];
  const hint = didYouMean(id, ids);
  throw new CliError(
    `no demo scenario "${id}"${hint ? ` (${hint})` : ""}; the scenarios are ${ids.join(", ")} (switchyard demo --list)`,
    EXIT_USAGE,
  );
}

/** The language of the demo's own words: Chinese when the locale is, else English (the scenario stays Chinese). */
export function demoLanguage(env: NodeJS.ProcessEnv = process.env): "en" | "zh" {
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || "";
  return /^zh/i.test(locale) ? "zh" : "en";
}

const DEMO_TEXT = {
  en: {
    servers: { ...SERVER_HEADINGS, none: "no servers in the example fleet" } satisfies ServerHeadings,
    catalog: (tools: number, question: string) => `${tools} tools in the catalog. Question: ${question}`,
    agent: (model: string) => `Answering with the agent (model ${model}).`,
    plan: "No model configured: running the declared plan examples/after-sales.plan.yaml.",
    calls: ["STEP", "SERVER", "TOOL", "STATUS", "TIME"],
    noCalls: "The agent called no tool.",
  },
  zh: {
    servers: {
      server: "服务器",
      status: "状态",
      transport: "传输",
      protocol: "协议",
      tools: "工具",
      connect: "连接耗时",
      error: "错误",
      restarts: "重启",
      health: "健康",
      breaker: "熔断",
      inFlight: "进行中",
      queued: "排队",
      none: "示例服务器组中没有服务器",
    } satisfies ServerHeadings,
    catalog: (tools: number, question: string) => `目录中共有 ${tools} 个工具。问题：${question}`,
    agent: (model: string) => `由智能体回答（模型 ${model}）。`,
    plan: "未配置模型：运行声明的计划 examples/after-sales.plan.yaml。",
    calls: ["步骤", "服务器", "工具", "状态", "耗时"],
    noCalls: "智能体没有调用任何工具。",
  },
} as const;

/**
 * The orders example keeps its data in SQLite (switchyard/sqlite: node:sqlite on Node 22.13+, else the
 * optional better-sqlite3): a Node with neither gets told what to do, not a server that dies on a missing
 * module. (The example servers' SDK, @modelcontextprotocol/server, is a dependency: the gateway serves
 * with it.) Returns warnings.
 */
function checkExampleDependencies(): string[] {
  try {
    openSqlite(":memory:").close();
    return [];
  } catch (error) {
    if (!(error instanceof SqliteEngineMissing)) throw error;
    return [`warning: the orders server has no SQLite here, so it answers with an error: ${error.message}`];
  }
}

function configuredModel(name: string | undefined): ModelProvider | undefined {
  try {
    return resolveModel(name ? { name } : {});
  } catch (error) {
    if (isSwitchyardError(error, "MODEL_NOT_CONFIGURED")) return undefined;
    throw error;
  }
}

interface Order {
  order_id: string;
  product_name: string;
  amount: number;
  status: string;
  created_at: string;
}

/** The plan's outputs as a short answer in the question's language. */
function summarize(result: PlanResult): string {
  const {
    customer,
    order_count: count,
    first_order: first,
    policies,
  } = result.outputs as {
    customer?: { name?: string; member_level?: string } | null;
    order_count?: number | null;
    first_order?: Order | null;
    policies?: Array<{ title: string; body: string }> | null;
  };
  if (!first) {
    const failed = result.steps
      .filter((step) => !step.ok)
      .map((step) => `${step.id}: ${step.error ? describeStepError(step.error) : step.status}`);
    return `没有找到 C10001 最近 7 天的订单。${failed.length ? `\n${failed.join("\n")}` : ""}`;
  }
  const who = customer?.name ? `${customer.name}（${customer.member_level ?? "会员"}）` : "C10001";
  const lines = [
    `${who}最近 7 天共有 ${count} 笔订单。第一笔：${first.product_name}，¥${first.amount}，${first.status}，下单时间 ${first.created_at.slice(0, 10)}（订单号 ${first.order_id}）。`,
    `与「${first.product_name}」相关的售后政策：`,
    ...(policies ?? []).map(
      (policy) =>
        `- ${policy.title}：${policy.body.length > 90 ? `${policy.body.slice(0, 90)}…` : policy.body}`,
    ),
  ];
  return lines.join("\n");
}
