import { readFileSync } from "node:fs";
import {
  type Agent,
  type AgentEvent,
  type AgentResult,
  createAgent,
  type LocalTool,
  type ModelProvider,
  resolveModel,
  type Switchyard,
  type SwitchyardConfig,
  skillTools,
} from "../../internal.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE, messageOf } from "../exit-codes.js";

/** Flags of `ask` and `chat`. */
export interface AskFlags {
  /** `ask --attach <uri>`: resources given to the model with the question. */
  attach?: string[];
  maxSteps?: string;
  model?: string;
  stream?: boolean;
  /** The system prompt, or `@file` to read it from a file. */
  system?: string;
  /** `chat --session <id>`: resume a recorded session. */
  session?: string;
}

/**
 * `switchyard ask "<question>"`: run the agent once; the answer on stdout, progress on stderr. A signal
 * cancels the run (the CLI's `signal`): nothing more is asked of the model.
 */
export async function askCommand(ctx: CommandContext, question: string, flags: AskFlags): Promise<number> {
  const { agent } = await openAgent(ctx, flags);
  const attach = flags.attach; // URIs may hold commas: one per --attach
  const result = await agent.run(question, {
    signal: ctx.runSignal(),
    ...(attach?.length ? { attach } : {}),
  });
  printResult(ctx, result);
  return result.stopReason === "answer" ? EXIT_OK : EXIT_FAILED;
}

export async function openAgent(
  ctx: CommandContext,
  flags: AskFlags,
): Promise<{ agent: Agent; yard: Switchyard; model: ModelProvider; config: SwitchyardConfig }> {
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
    nameFlag: "--model",
    ...(flags.stream ? { stream: true } : {}),
  });
  const yard = await ctx.connect();
  const localTools = await skillsOffered(ctx, yard);
  const routingFailed = new Set<string>();
  const agent = createAgent(yard, config, {
    model,
    ...(localTools.length ? { localTools } : {}),
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
    // Said once a run of the command: a strategy that failed is tried again at each step, quietly.
    onRoutingError: (error, strategy) => {
      if (routingFailed.has(strategy)) return;
      routingFailed.add(strategy);
      ctx.out.note(
        `warning: ${strategy} ranking failed, using the others (tried again at each step; said once): ${messageOf(error)}`,
      );
    },
    onRoutingWarning: (message) => ctx.out.note(`warning: ${message}`),
    // routing.rewrite: the model's extra call, said as what it is (not a step of the run).
    onRewriteWarning: (message) => ctx.out.note(`warning: ${message}`),
    onRewrite: (rewrite) => {
      if (rewrite.error === undefined)
        ctx.out.note(
          `tool needs (model rewrite, ${Math.round(rewrite.ms)} ms): ${rewrite.needs.join("; ") || "none"}`,
        );
    },
    onEvent: (event) => {
      const line = describeEvent(event);
      if (line) ctx.out.note(line);
    },
  });
  return { agent, yard, model, config };
}

/**
 * The skills the ready servers serve, as the agent's `load_skill` and `read_skill_file` (none when no
 * server serves skills); each skill refused is a warning on stderr.
 */
async function skillsOffered(ctx: CommandContext, yard: Switchyard): Promise<LocalTool[]> {
  if (!yard.servers().some((info) => info.skills)) return [];
  return skillTools({
    skills: async () => {
      const listing = await yard.skills();
      for (const refused of listing.refused) ctx.out.note(`warning: ${refused.message}`);
      return listing;
    },
    loadSkill: (server, uri) => yard.loadSkill(server, uri),
    readSkillFile: (server, uri, file) => yard.readSkillFile(server, uri, file),
  });
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

/** The answer (or, with `--json`, the run); a run that did not answer says why on stderr. */
export function printResult(ctx: CommandContext, result: AgentResult): void {
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
  } else if (result.stopReason === "answer") {
    // Only an answer goes to stdout: a failure is not an answer, and is said on stderr below.
    ctx.out.result(result.answer);
  }
  // A cancelled run was interrupted: whoever interrupted it says so.
  if (result.stopReason !== "answer" && result.stopReason !== "cancelled")
    ctx.out.note(`switchyard: the agent stopped (${result.stopReason}): ${result.error}`);
}

/** One progress line per event, or undefined for events not worth a line. */
export function describeEvent(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "step_started":
      return `step ${event.step}: asking the model (${event.tools} tools offered)`;
    case "model_answered": {
      if (!event.toolCalls) return undefined;
      const line = `step ${event.step}: the model asked for ${event.toolCalls} tool call(s) (${Math.round(event.ms)} ms)`;
      // What the model says with its tool calls ("Let me look that up"), before they run.
      const text = event.text?.trim();
      return text ? `${line}\n${indented(text, "  model: ")}` : line;
    }
    case "call_finished":
      return `  ${event.ok ? "ok  " : "fail"} ${event.name} ${Math.round(event.ms)} ms${event.error ? ` (${event.error.code})` : ""}`;
    default:
      return undefined;
  }
}

/** `text` with `label` before its first line and as much space before the others. */
function indented(text: string, label: string): string {
  const pad = " ".repeat(label.length);
  return text
    .split("\n")
    .map((line, index) => `${index === 0 ? label : pad}${line}`)
    .join("\n");
}
