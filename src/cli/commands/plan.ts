import { type ChatMessage, resolveModel, type Switchyard } from "../../internal.js";
import { type Plan, parsePlan, preflightPlan } from "../../plan/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, messageOf } from "../exit-codes.js";
import { executePlan } from "./run.js";

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

/**
 * `switchyard plan "<question>" [--run]`: ask the configured model for a plan over the catalog, check it
 * (it reads as a plan, its tools exist, its known arguments fit their schemas, no circles) and print it;
 * a plan that does not check out is sent back once with its problems. `--run` runs it as `run` does.
 */
export async function planCommand(
  ctx: CommandContext,
  question: string,
  flags: { run?: boolean },
): Promise<number> {
  const config = ctx.loadConfig();
  const model = resolveModel(config.model ? { section: config.model } : {});
  const yard = await ctx.connect();
  const tools = yard.tools().filter((tool) => tool.unsupported === undefined);
  const catalog = tools
    .map((tool) =>
      JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
    )
    .join("\n");
  const messages: ChatMessage[] = [
    { role: "system", content: `You plan tool calls. The tools, one a line:\n${catalog}\n\n${PLAN_FORMAT}` },
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
    const checked = check(text, yard);
    if (typeof checked !== "string") return done(ctx, yard, checked, text, flags);
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
  flags: { run?: boolean },
): Promise<number> {
  if (flags.run) {
    ctx.out.note(text);
    return executePlan(ctx, yard, plan, {});
  }
  if (ctx.out.json) ctx.out.data({ plan: text });
  else ctx.out.result(text);
  return EXIT_OK;
}

/** The plan, or what is wrong with it. */
function check(text: string, yard: Switchyard): Plan | string {
  try {
    const plan = parsePlan(text, "the model's plan");
    preflightPlan(plan, { host: yard });
    return plan;
  } catch (error) {
    return messageOf(error);
  }
}

/** The YAML inside a ```yaml fence, when the model wrote one. */
function unfenced(text: string): string {
  const fenced = /```(?:ya?ml|json)?\s*\n([\s\S]*?)```/.exec(text);
  return (fenced ? fenced[1]! : text).trim();
}
