import { createInterface } from "node:readline";
import { Agent, type AgentResult } from "../../agent/agent.js";
import type { AgentEvent } from "../../agent/events.js";
import { routeTools } from "../../agent/route-tools.js";
import { messageOf } from "../../errors.js";
import type { ChatMessage } from "../../models/model.js";
import { resolveModel } from "../../models/resolve.js";
import { routerOptionsFromConfig } from "../../routing/from-config.js";
import type { Switchyard } from "../../switchyard.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";

/** Flags of `ask` and `chat`. */
export interface AskFlags {
  maxSteps?: string;
  model?: string;
  stream?: boolean;
}

/** `switchyard ask "<question>"`: run the agent once; the answer on stdout, progress on stderr. */
export async function askCommand(ctx: CommandContext, question: string, flags: AskFlags): Promise<number> {
  const { agent } = await openAgent(ctx, flags);
  const result = await agent.run(question);
  printResult(ctx, result);
  return result.stopReason === "answer" ? EXIT_OK : EXIT_FAILED;
}

/** `switchyard chat`: a conversation on stdin/stdout; the history carries across questions. */
export async function chatCommand(ctx: CommandContext, flags: AskFlags): Promise<number> {
  const { agent } = await openAgent(ctx, flags);
  const lines = createInterface({ input: process.stdin, terminal: false });
  let history: ChatMessage[] = [];
  const prompt = () => process.stdin.isTTY && process.stderr.write("> ");
  prompt();
  for await (const line of lines) {
    const question = line.trim();
    if (question === "/exit" || question === "/quit") break;
    if (question) {
      const result = await agent.run(question, { history });
      history = result.messages;
      printResult(ctx, result);
    }
    prompt();
  }
  return EXIT_OK;
}

async function openAgent(ctx: CommandContext, flags: AskFlags): Promise<{ agent: Agent; yard: Switchyard }> {
  const maxSteps = flags.maxSteps === undefined ? undefined : Number(flags.maxSteps);
  if (maxSteps !== undefined && !(Number.isInteger(maxSteps) && maxSteps > 0)) {
    throw new CliError(`--max-steps must be a whole number above 0 (got "${flags.maxSteps}")`, EXIT_USAGE);
  }
  const config = ctx.loadConfig();
  // Fail on a missing model before starting any server.
  const model = resolveModel({
    ...(config.model ? { section: config.model } : {}),
    ...(flags.model ? { name: flags.model } : {}),
    ...(flags.stream ? { stream: true } : {}),
  });
  const yard = await ctx.connect();
  const agentConfig = config.agent ?? {};
  const agent = new Agent({
    model,
    host: yard,
    selectTools: routeTools(
      yard,
      routerOptionsFromConfig(config.routing, (error, strategy) =>
        ctx.out.note(`warning: ${strategy} ranking failed, using the others: ${messageOf(error)}`),
      ),
    ),
    ...(agentConfig.maxIdenticalCalls !== undefined
      ? { maxIdenticalCalls: agentConfig.maxIdenticalCalls }
      : {}),
    ...(agentConfig.parallelToolCalls !== undefined
      ? { parallelToolCalls: agentConfig.parallelToolCalls }
      : {}),
    ...((maxSteps ?? agentConfig.maxSteps) !== undefined
      ? { maxSteps: maxSteps ?? agentConfig.maxSteps }
      : {}),
    onEvent: (event) => {
      const line = describeEvent(event);
      if (line) ctx.out.note(line);
    },
  });
  return { agent, yard };
}

function printResult(ctx: CommandContext, result: AgentResult): void {
  if (ctx.out.json) {
    ctx.out.data({
      answer: result.answer,
      stopReason: result.stopReason,
      steps: result.steps,
      calls: result.calls.map(({ name, server, tool, ok, ms, error }) => ({
        name,
        server: server ?? null,
        tool: tool ?? null,
        ok,
        ms,
        ...(error ? { error } : {}),
      })),
    });
  } else {
    ctx.out.result(result.answer);
  }
  if (result.stopReason !== "answer")
    ctx.out.note(`switchyard: the agent stopped (${result.stopReason}): ${result.error}`);
}

/** One progress line per event, or undefined for events not worth a line. */
export function describeEvent(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "step_started":
      return `step ${event.step}: asking the model (${event.tools} tools offered)`;
    case "model_answered":
      return event.toolCalls
        ? `step ${event.step}: the model asked for ${event.toolCalls} tool call(s) (${Math.round(event.ms)} ms)`
        : undefined;
    case "call_finished":
      return `  ${event.ok ? "ok  " : "fail"} ${event.name} ${Math.round(event.ms)} ms${event.error ? ` (${event.error})` : ""}`;
    default:
      return undefined;
  }
}
