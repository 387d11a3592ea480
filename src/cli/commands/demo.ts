import { fileURLToPath } from "node:url";
import { createAgent, isSwitchyardError, type ModelProvider, resolveModel } from "../../index.js";
import { describeStepError, loadPlanFile, type PlanResult, runPlan } from "../../plan/index.js";
import type { CommandContext } from "../context.js";
import { EXIT_FAILED, EXIT_OK } from "../exit-codes.js";
import { formatTable } from "../table.js";
import { describeEvent } from "./ask.js";
import { renderTrace } from "./run.js";
import { renderServers } from "./servers.js";

const examples = (file: string) => fileURLToPath(new URL(`../../../examples/${file}`, import.meta.url));
/** The bundled example fleet and the after-sales plan, shipped with the package. */
export const EXAMPLE_FLEET = examples("fleet.json");
export const AFTER_SALES_PLAN = examples("after-sales.plan.yaml");
/** Seed 000's question. */
export const DEMO_QUESTION = "查一下 C10001 最近 7 天的订单，然后根据第一笔订单的商品名称搜索相关售后政策";

/**
 * `switchyard demo`: start the example fleet, show it, and run the after-sales scenario — with the
 * agent when a model is configured (environment or `--model`), else with the declared plan.
 */
export async function demoCommand(ctx: CommandContext, flags: { model?: string } = {}): Promise<number> {
  const model = configuredModel(flags.model);
  const yard = await ctx.connect(EXAMPLE_FLEET);
  ctx.out.result(renderServers(yard.servers()));
  ctx.out.result(`\n${yard.tools().length} tools in the catalog. Question: ${DEMO_QUESTION}\n`);

  if (model) {
    ctx.out.result(`Answering with the agent (model ${model.name}).\n`);
    const agent = createAgent(yard, yard.config, {
      model,
      onEvent: (event) => {
        const line = describeEvent(event);
        if (line) ctx.out.note(line);
      },
    });
    const result = await agent.run(DEMO_QUESTION, { signal: ctx.signal });
    if (result.stopReason === "cancelled") return EXIT_FAILED; // interrupted: the CLI says so
    ctx.out.result(`${result.answer}\n`);
    ctx.out.result(
      formatTable(
        ["STEP", "SERVER", "TOOL", "STATUS", "TIME"],
        result.calls.map((call, index) => [
          String(index + 1),
          call.server ?? "-",
          call.tool ?? call.name,
          call.ok ? "ok" : (call.error?.code ?? "failed"),
          `${Math.round(call.ms)} ms`,
        ]),
      ),
    );
    return result.stopReason === "answer" ? EXIT_OK : EXIT_FAILED;
  }

  ctx.out.result("No model configured: running the declared plan examples/after-sales.plan.yaml.\n");
  const result = await runPlan(loadPlanFile(AFTER_SALES_PLAN), {
    host: yard,
    input: { customer_id: "C10001", days: 7 },
    signal: ctx.signal,
  });
  if (ctx.signal.aborted) return EXIT_FAILED; // interrupted: the CLI says so
  ctx.out.result(`${summarize(result)}\n`);
  ctx.out.result(renderTrace(result.steps));
  return result.ok ? EXIT_OK : EXIT_FAILED;
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
