import type { JsonSchema } from "../calls/validate.js";
import { validateArguments } from "../calls/validate.js";
import { closestNames, didYouMean, SwitchyardError } from "../errors.js";
import { ExpressionError, findPaths, resolveValue } from "./expressions.js";
import type { Plan } from "./plan.js";
import type { RunPlanOptions } from "./run-plan.js";

/** A tool call of a plan: a step's, or its compensation's. */
type CallSpec = { tool: string; args?: Record<string, unknown> | undefined };

/**
 * Check a plan against a host and its input before anything runs, and return the input with the plan's
 * defaults filled in. Refused, each with every problem of its kind:
 * - an input the plan does not take (`CONFIG_INVALID`, with the plan's inputs and "did you mean"); the
 *   inputs a plan takes are the ones it declares, or, when it declares none, the ones it reads;
 * - a missing input without a default (`CONFIG_INVALID`);
 * - a tool that is not in the catalog (`TOOL_NOT_FOUND`, with the host's suggestions);
 * - arguments that are known before the run (literals, and `{{input.…}}` values) and do not fit the
 *   tool's input schema, checked as the call pipeline checks them (`INVALID_ARGUMENTS`, naming the step,
 *   the tool and the problems). An argument that reads an earlier step is checked when the step runs.
 * @throws SwitchyardError as above.
 */
export function preflightPlan(
  plan: Plan,
  options: Pick<RunPlanOptions, "host" | "input">,
): Record<string, unknown> {
  const given = options.input ?? {};
  checkInputNames(plan, given);
  const input = planInput(plan, given);
  const { host } = options;
  // Each step's call, and its compensation (`compensate:`): every tool must be in the catalog.
  const calls = plan.steps.flatMap((step) => [
    { step, call: step as CallSpec, what: `step ${step.id} uses` },
    ...(step.compensate ? [{ step, call: step.compensate, what: `step ${step.id} compensates with` }] : []),
  ]);
  const unknown = calls.filter(({ call }) => !host.describeTool(call.tool));
  if (unknown.length > 0) {
    const lines = unknown.map(({ call, what }) => {
      const near = host.suggestTools?.(call.tool) ?? [];
      const hint = (near.length && didYouMean(call.tool, near)) || "list the tools to see what there is";
      return `${what} tool ${call.tool}, which is not in the catalog; ${hint}`;
    });
    throw new SwitchyardError("TOOL_NOT_FOUND", lines.join(". "), { tool: unknown[0]!.call.tool });
  }
  const bad: string[] = [];
  for (const { step, call } of calls) {
    const entry = host.describeTool(call.tool)!;
    if (!entry.inputSchema) continue;
    const problems = knownArgumentProblems(call, entry.inputSchema, input);
    const which = call === step ? `step ${step.id}` : `step ${step.id}'s compensate`;
    if (problems.length > 0)
      bad.push(
        `${which} (tool ${call.tool}, ${entry.tool} on server ${entry.server}): ${problems.join("; ")}`,
      );
  }
  if (bad.length > 0) {
    throw new SwitchyardError(
      "INVALID_ARGUMENTS",
      `${bad.join(". ")}. Nothing was run: fix the plan's arguments or the --input values`,
      { delivery: "final", serverFault: false },
    );
  }
  return input;
}

/**
 * What is wrong with the arguments of a step that are known before the run, by the tool's input schema
 * (the pipeline's own check). Arguments that read an earlier step are accepted as they stand: their
 * properties take any value here, and are checked when the step runs.
 */
function knownArgumentProblems(step: CallSpec, schema: JsonSchema, input: Record<string, unknown>): string[] {
  const args: Record<string, unknown> = {};
  const later = new Set<string>();
  const problems: string[] = [];
  for (const [key, value] of Object.entries(step.args ?? {})) {
    if (findPaths(value).some((path) => path.keys[0] === "steps")) {
      args[key] = value;
      later.add(key);
      continue;
    }
    try {
      args[key] = resolveValue(value, { input, steps: {} });
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      problems.push(`"${key}": ${error.message}`);
      args[key] = value;
      later.add(key);
    }
  }
  const properties = schema.properties;
  const checked: JsonSchema =
    later.size > 0 && typeof properties === "object" && properties !== null
      ? {
          ...schema,
          properties: {
            ...properties,
            ...Object.fromEntries([...later].filter((key) => key in properties).map((key) => [key, {}])),
          },
        }
      : schema;
  const result = validateArguments(checked, args);
  return result.ok ? problems : [...problems, ...result.problems];
}

/** Refuse input names the plan does not take, listing the ones it does (and the nearest). */
function checkInputNames(plan: Plan, given: Record<string, unknown>): void {
  const declared = plan.input ? Object.keys(plan.input) : undefined;
  const taken =
    declared ??
    [
      ...new Set(
        [...plan.steps.map((step) => step.args ?? {}), plan.outputs ?? {}]
          .flatMap((value) => findPaths(value))
          .filter((path) => path.keys[0] === "input" && typeof path.keys[1] === "string")
          .map((path) => path.keys[1] as string),
      ),
    ].sort();
  const unknown = Object.keys(given).filter((name) => !taken.includes(name));
  if (unknown.length === 0) return;
  const described = taken.map((name) => {
    const about = plan.input?.[name]?.description;
    return about ? `${name} (${about})` : name;
  });
  const lines = unknown.map((name) => {
    const near = closestNames(name, taken, 1)[0];
    return `the plan takes no input "${name}"${near ? ` (did you mean "${near}"?)` : ""}`;
  });
  throw new SwitchyardError(
    "CONFIG_INVALID",
    `${lines.join("; ")}; ${taken.length ? `its inputs: ${described.join(", ")}` : "it takes no inputs"}`,
  );
}

function planInput(plan: Plan, given: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = { ...given };
  for (const [name, spec] of Object.entries(plan.input ?? {})) {
    if (input[name] !== undefined) continue;
    if (spec?.default === undefined) {
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `the plan needs input "${name}"${spec?.description ? ` (${spec.description})` : ""}: pass --input ${name}=<value>`,
      );
    }
    input[name] = spec.default;
  }
  return input;
}
