// The seed scenarios of `switchyard demo <scenario>` beside the after-sales one (demo.ts): seed 003's
// outdoor run, seed 002's heterogeneous pipeline (and its variant with a failing service), seed 001's
// two servers with clashing tool names. Each runs offline: a plan, or a scripted stand-in for the model
// where only the agent shows the point, when no model is configured.
import { defaultAnchor, isSwitchyardError, type ModelProvider, type Switchyard } from "../../internal.js";
import { packageFile } from "../../package-root.js";
import { loadPlanFile, type PlanResult, runPlan } from "../../plan/index.js";
import { ScriptedModel } from "../../testing/index.js";
import type { CommandContext } from "../context.js";
import { EXIT_FAILED, EXIT_OK } from "../exit-codes.js";
import { renderTrace } from "./run.js";

const examples = (file: string) => packageFile("examples", file);

/** What a scenario needs from the demo command: its connection, a model if one is set, the words. */
export interface ScenarioRun {
  ctx: CommandContext;
  model: ModelProvider | undefined;
  /** Connect the scenario's fleet and show its servers. */
  connect(fleet: string): Promise<Switchyard>;
  /** Run the agent on a question over a fleet, printing its answer and its calls. */
  runAgent(
    yard: Switchyard,
    question: string,
    model: ModelProvider,
  ): Promise<{ code: number; runId: string }>;
  zh: boolean;
}

export interface DemoScenario {
  id: string;
  seed: string;
  /** One line for `demo --list`. */
  about: { en: string; zh: string };
  run(run: ScenarioRun): Promise<number>;
}

/** Seed 003's question, with the asker's coordinates (北京朝阳). */
export const OUTDOOR_QUESTION = "附近适合户外跑步吗？我在北京朝阳，坐标 39.9219, 116.4436。";

/** The result line of a plan step as a model would see it first: its anchor, then the first line. */
function anchored(step: PlanResult["steps"][number]): string {
  const outcome = step.ok ? "ok" : step.status === "skipped" ? "refused" : "error";
  const line = (step.result?.text ?? step.error?.message ?? "").split("\n")[0]!.slice(0, 120);
  return `${defaultAnchor({ tool: step.name, outcome } as Parameters<typeof defaultAnchor>[0])} ${line}`;
}

async function outdoorRun(run: ScenarioRun): Promise<number> {
  const { ctx } = run;
  const yard = await run.connect(examples("fleet.json"));
  ctx.out.result(`\n${run.zh ? "问题" : "Question"}: ${OUTDOOR_QUESTION}\n`);
  if (run.model) return (await run.runAgent(yard, OUTDOOR_QUESTION, run.model)).code;

  ctx.out.result(
    run.zh
      ? "未配置模型：运行声明的计划 examples/outdoor-run.plan.yaml（定位与环境两个调用并行）。"
      : "No model configured: running the declared plan examples/outdoor-run.plan.yaml (position and environment, in parallel).",
  );
  const result = await runPlan(loadPlanFile(examples("outdoor-run.plan.yaml")), {
    host: yard,
    signal: ctx.runSignal(),
  });
  if (ctx.signal.aborted) return EXIT_FAILED;
  for (const step of result.steps) ctx.out.result(anchored(step));
  const env = result.outputs.environment as
    | {
        area_name: string;
        aqi: number;
        aqi_level: string;
        temperature_c: number;
        status: string;
        advice?: string;
      }
    | undefined;
  const where = result.outputs.position as
    | { nearest_landmark?: { name: string; distance_m: number } }
    | undefined;
  if (env) {
    const good = env.status !== "poor" && env.aqi <= 100;
    const landmark = where?.nearest_landmark
      ? `，最近的地标是${where.nearest_landmark.name}（${where.nearest_landmark.distance_m} 米）`
      : "";
    ctx.out.result(
      `\n${env.area_name}今天 AQI ${env.aqi}（${env.aqi_level}），${env.temperature_c}°C${landmark}：${good ? "适合户外跑步" : "不建议户外跑步"}。（数据为模拟）`,
    );
  }
  // The bounds check: coordinates out of range are refused before anything is sent.
  try {
    await yard.callTool("geo_simulate_geolocation", { lat: 95, lng: 116.4436 }, { signal: ctx.runSignal() });
  } catch (error) {
    if (!isSwitchyardError(error, "INVALID_ARGUMENTS")) throw error;
    ctx.out.result(
      `\n${run.zh ? "边界检查" : "bounds check"}: lat 95 → ${error.code}, ${run.zh ? "未发送" : "not sent"}: ${error.message.split(". Expected")[0]}`,
    );
  }
  ctx.out.result(`\n${renderTrace(result.steps)}`);
  return result.ok ? EXIT_OK : EXIT_FAILED;
}

/** Seed 002: the pipeline plan over its fleet; `failing`: the fleet whose jq cannot run. */
function pipeline(failing: boolean) {
  return async (run: ScenarioRun): Promise<number> => {
    const { ctx } = run;
    const fleet = failing ? "pipeline-failure.fleet.json" : "pipeline.fleet.json";
    const yard = await run.connect(examples(fleet));
    ctx.out.result(
      run.zh
        ? `\n运行 examples/pipeline.plan.yaml（并发上限 3，错误隔离）${failing ? "，jq 服务被设置为无法运行" : ""}。`
        : `\nRunning examples/pipeline.plan.yaml (at most 3 calls at once, errors isolated)${failing ? ", with the jq service made to fail" : ""}.`,
    );
    const result = await runPlan(loadPlanFile(examples("pipeline.plan.yaml")), {
      host: yard,
      signal: ctx.runSignal(),
    });
    if (ctx.signal.aborted) return EXIT_FAILED;
    for (const step of result.steps) ctx.out.result(`  ${step.id}: ${anchored(step)}`);
    const { sha256, gist } = result.outputs as { sha256?: string; gist?: string };
    if (gist) ctx.out.result(`\n${run.zh ? "摘要" : "summary"} (${[...gist].length}/100): ${gist}`);
    if (sha256) ctx.out.result(`sha256: ${sha256}`);
    ctx.out.result(`\n${renderTrace(result.steps)}`);
    if (!failing) return result.ok ? EXIT_OK : EXIT_FAILED;
    // The variant shows isolation: the steps that do not read jq's results still finish.
    const isolated = result.steps.filter((step) => step.server !== "jq" && step.id !== "servers_gist");
    const finished = isolated.every((step) => step.ok);
    ctx.out.result(
      finished
        ? run.zh
          ? "\njq 失败了，只有依赖它的步骤被跳过；其余步骤照常完成。"
          : "\njq failed; only the steps that read it were skipped, the others finished."
        : "\nsteps that do not depend on jq failed too: errors were not isolated",
    );
    return finished ? EXIT_OK : EXIT_FAILED;
  };
}

/** Seed 001's questions: one for the SQL server, one for the search server; arguments per tool. */
const TWO_SERVER_QUESTIONS: Array<{ question: string; args: Record<string, unknown> }> = [
  {
    question: "用 SQL 查一下库存少于 10 件的商品有哪些，各自的价格和库存是多少？",
    args: {
      sql_query: { sql: "SELECT name, price, stock FROM products WHERE stock < 10 ORDER BY stock" },
      search_query: { keywords: "库存少于 10 件的商品" },
    },
  },
  {
    question: "帮我搜一下帮助文档：蓝牙耳机怎么配对？",
    args: {
      sql_query: { sql: "SELECT name FROM products WHERE name LIKE '%耳机%'" },
      search_query: { keywords: "蓝牙耳机 配对" },
    },
  },
];

/**
 * A stand-in for a model, for running without one: it calls the one tool the router offered with the
 * arguments this question's script has for it, then answers with the result's first line. What it
 * shows is the router's choice, not a model's.
 */
function routerStandIn(args: Record<string, unknown>): ModelProvider {
  return new ScriptedModel((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "user") {
      const tool = request.tools[0]?.name;
      if (!tool) return { content: "没有可用的工具。" };
      return { toolCalls: [{ id: "call_1", name: tool, arguments: args[tool] ?? {} }] };
    }
    const text = last?.role === "tool" ? last.content.split("\n").slice(1, 3).join(" ") : "";
    return { content: `根据查询结果：${text.slice(0, 160)}` };
  }, "router-stand-in");
}

async function twoServers(run: ScenarioRun): Promise<number> {
  const { ctx } = run;
  const fleet = examples("two-servers.fleet.json");
  const yard = await run.connect(fleet);
  ctx.out.result(
    run.zh
      ? `\n两个服务器都有名为 query 的工具，目录里是 ${yard
          .tools()
          .map((tool) => tool.name)
          .join(" 和 ")}；路由每次只提供一个（routing.topK 1）。`
      : `\nBoth servers have a tool named query; the catalog has ${yard
          .tools()
          .map((tool) => tool.name)
          .join(" and ")}, and the router offers one per question (routing.topK 1).`,
  );
  if (!run.model)
    ctx.out.result(
      run.zh
        ? "未配置模型：由一个脚本替身调用路由提供的那个工具（展示的是路由的选择）。"
        : "No model configured: a scripted stand-in calls the one tool the router offers (what it shows is the router's choice).",
    );
  let code = EXIT_OK;
  for (const { question, args } of TWO_SERVER_QUESTIONS) {
    ctx.out.result(`\n${run.zh ? "问题" : "Question"}: ${question}`);
    const outcome = await run.runAgent(yard, question, run.model ?? routerStandIn(args));
    if (outcome.code !== EXIT_OK) code = outcome.code;
    ctx.out.result(
      `${run.zh ? "路由决策与审计" : "routing decision and audit"}: switchyard --config ${fleet} runs show ${outcome.runId}`,
    );
    if (ctx.signal.aborted) return EXIT_FAILED;
  }
  return code;
}

/** The scenarios besides after-sales, in `demo --list` order. */
export const SEED_SCENARIOS: DemoScenario[] = [
  {
    id: "outdoor-run",
    seed: "003",
    about: {
      en: 'environment + geolocation: "附近适合户外跑步吗？" with coordinates — parallel calls, bounds checks, anchors',
      zh: "环境 + 定位：带坐标的「附近适合户外跑步吗？」——并行调用、边界检查、结果锚点",
    },
    run: outdoorRun,
  },
  {
    id: "pipeline",
    seed: "002",
    about: {
      en: "a heterogeneous pipeline: the HTTP hasher, jq behind a stdio server, a 100-character summarizer; concurrency 3",
      zh: "异构流水线：HTTP 哈希服务、stdio 服务器背后的 jq、100 字摘要器；并发上限 3",
    },
    run: pipeline(false),
  },
  {
    id: "pipeline-failure",
    seed: "002",
    about: {
      en: "the same pipeline with the jq service made to fail: error isolation, the other steps still finish",
      zh: "同一流水线，jq 服务被设置为失败：错误隔离，其余步骤照常完成",
    },
    run: pipeline(true),
  },
  {
    id: "two-servers",
    seed: "001",
    about: {
      en: "two servers with clashing tool names (SQL and search), routed; the routing decision and audit in runs show",
      zh: "工具同名的两个服务器（SQL 与搜索）正确路由；路由决策与审计见 runs show",
    },
    run: twoServers,
  },
];
