import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import {
  type Agent,
  type AgentEvent,
  type AgentResult,
  type ChatMessage,
  createAgent,
  resolveModel,
  type Switchyard,
} from "../../index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE, messageOf } from "../exit-codes.js";

/** Flags of `ask` and `chat`. */
export interface AskFlags {
  maxSteps?: string;
  model?: string;
  stream?: boolean;
  /** The system prompt, or `@file` to read it from a file. */
  system?: string;
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
  const systemPrompt = flags.system === undefined ? undefined : readSystemPrompt(flags.system);
  const config = ctx.loadConfig();
  // Fail on a missing model before starting any server.
  const model = resolveModel({
    ...(config.model ? { section: config.model } : {}),
    ...(flags.model ? { name: flags.model } : {}),
    ...(flags.stream ? { stream: true } : {}),
  });
  const yard = await ctx.connect();
  const agent = createAgent(yard, config, {
    model,
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    onRoutingError: (error, strategy) =>
      ctx.out.note(`warning: ${strategy} ranking failed, using the others: ${messageOf(error)}`),
    onEvent: (event) => {
      const line = describeEvent(event);
      if (line) ctx.out.note(line);
    },
  });
  return { agent, yard };
}

/** `--system <text>`, or `--system @file` for a prompt kept in a file. */
function readSystemPrompt(value: string): string {
  if (!value.startsWith("@")) return value;
  const file = value.slice(1);
  try {
    return readFileSync(file, "utf8").trim();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : messageOf(error);
    throw new CliError(`cannot read --system file ${file}: ${reason}`, EXIT_USAGE);
  }
}

function printResult(ctx: CommandContext, result: AgentResult): void {
  if (ctx.out.json) {
    ctx.out.data({
      runId: result.runId,
      answer: result.answer,
      stopReason: result.stopReason,
      steps: result.steps,
      calls: result.calls.map(({ name, server, tool, ok, ms, error }) => ({
        name,
        server: server ?? null,
        tool: tool ?? null,
        ok,
        ms,
        ...(error ? { error: { code: error.code, message: error.message } } : {}),
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
      return `  ${event.ok ? "ok  " : "fail"} ${event.name} ${Math.round(event.ms)} ms${event.error ? ` (${event.error.code})` : ""}`;
    default:
      return undefined;
  }
}
