import { type ChatMessage, resolveModel, type Switchyard } from "../../internal.js";
import { type Plan, parsePlan, preflightPlan } from "../../plan/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, messageOf } from "../exit-codes.js";
import { executePlan, parseInputs } from "./run.js";

/** What the model is told a plan is: the same YAML `switchyard run` takes. */
const PLAN_FORMAT = `Answer with one plan in YAML and nothing else. The format:
steps:                      # one or more
  - id: <letters, digits, _ or ->
    tool: <a tool name from the list>
    args: { <argument>: <value> }   # fitting the tool's input schema
    needs: [<step id>, ...]         # optional: steps that must succeed first
    compensate: { tool: <tool>, args: {...} }   # optional: a call that undoes this step
onFailure: compensate       # optional: undo completed steps when one fails
outputs: { <name>: "{{steps.<id>.text}}" }      # optional
An argument may read an earlier step's result: "{{steps.<id>.text}}", "{{steps.<id>.structured.<field>}}"
(a step that reads another waits for it). Steps must not depend on each other in a circle.`;

/** `plan` flags: `--run`, `--input key=value` (repeatable), `--model <name>`. */
export interface PlanFlags {
  run?: boolean;
  input?: string[];
  model?: string;
}

/**
 * `switchyard plan "<question>" [--run] [--input key=value ...] [--model <name>]`: ask the configured
 * model for a plan over the catalog, check it (it reads as a plan, its tools exist, its known arguments
 * fit their schemas — the inputs' values included —, no circles) and print it; a plan that does not
 * check out is sent back once with its problems. `--run` runs it as `run` does, with the inputs.
 */
export async function planCommand(ctx: CommandContext, question: string, flags: PlanFlags): Promise<number> {
  const input = parseInputs(flags.input ?? []);
  const config = ctx.loadConfig();
  const model = resolveModel({
    ...(config.model ? { section: config.model } : {}),
    ...(flags.model ? { name: flags.model } : {}),
    nameFlag: "--model",
  });
  const yard = await ctx.connect();
  const tools = yard.tools().filter((tool) => tool.unsupported === undefined);
  const catalog = tools
    .map((tool) =>
      JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
    )
    .join("\n");
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: `You plan tool calls. The tools, one a line:\n${catalog}\n\n${PLAN_FORMAT}${inputsNote(input)}`,
    },
    { role: "user", content: question },
  ];
  let text = "";
  let problem = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0) {
      messages.push({ role: "assistant", content: text });
      messages.push({
        role: "user",
        content: `That plan is not valid: ${problem}. Answer with the corrected plan only.`,
      });
    }
    const answer = await model.complete({ messages, tools: [], signal: ctx.runSignal() });
    text = unfenced(answer.content ?? "");
    const checked = check(text, yard, input);
    if (typeof checked !== "string") return done(ctx, yard, checked, text, flags, input);
    problem = checked;
    ctx.out.note(`the model's plan is not valid: ${problem}${attempt === 0 ? "; asking again" : ""}`);
  }
  throw new CliError(`the model's plan is not valid (asked twice): ${problem}`, EXIT_FAILED);
}

async function done(
  ctx: CommandContext,
  yard: Switchyard,
  plan: Plan,
  text: string,
  flags: PlanFlags,
  input: Record<string, unknown>,
): Promise<number> {
  if (flags.run) {
    ctx.out.note(text);
    return executePlan(ctx, yard, plan, input);
  }
  if (ctx.out.json) ctx.out.data({ plan: text });
  else ctx.out.result(text);
  return EXIT_OK;
}

/** The plan, or what is wrong with it. */
function check(text: string, yard: Switchyard, input: Record<string, unknown>): Plan | string {
  try {
    const plan = parsePlan(text, "the model's plan");
    preflightPlan(plan, { host: yard, input });
    return plan;
  } catch (error) {
    return messageOf(error);
  }
}

/** What the model is told of the `--input` values: their names, to read as `{{input.<name>}}`. */
function inputsNote(input: Record<string, unknown>): string {
  const names = Object.keys(input);
  if (!names.length) return "";
  const lines = names.map((name) => `  ${name}: ${JSON.stringify(input[name])}`);
  return `\nThe run is given these inputs; read them as "{{input.<name>}}" rather than writing their values:\n${lines.join("\n")}`;
}

/** The YAML inside a ```yaml fence, when the model wrote one. */
function unfenced(text: string): string {
  const fenced = /```(?:ya?ml|json)?\s*\n([\s\S]*?)```/.exec(text);
  return (fenced ? fenced[1]! : text).trim();
}
