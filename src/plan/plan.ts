import { readFileSync } from "node:fs";
import { z } from "zod";
import { messageOf, SwitchyardError } from "../errors.js";
import { parseYaml } from "../lazy-require.js";
import { ExpressionError, findPaths } from "./expressions.js";

/** How long a whole plan may run when it sets no `timeoutMs` (it lives in config/defaults.ts). */
export { DEFAULT_PLAN_CONCURRENCY, DEFAULT_PLAN_TIMEOUT_MS } from "../config/defaults.js";

/** A tool call that undoes a completed step (`compensate:`), run when the plan says `onFailure: compensate`. */
const compensateSchema = z.strictObject({
  tool: z.string({ error: "expected a catalog tool name" }).min(1),
  args: z.record(z.string(), z.unknown(), { error: "expected an object of arguments" }).optional(),
});

const stepSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z_][\w-]*$/, "expected an id of letters, digits, _ or -"),
  tool: z.string({ error: "expected a catalog tool name" }).min(1),
  args: z.record(z.string(), z.unknown(), { error: "expected an object of arguments" }).optional(),
  needs: z.array(z.string(), { error: "expected an array of step ids" }).optional(),
  timeoutMs: z.number().int().positive().optional(),
  description: z.string().optional(),
  compensate: compensateSchema.optional(),
});

const inputSchema = z.union([
  z.strictObject({ description: z.string().optional(), default: z.unknown().optional() }),
  z.null(),
]);

export const planSchema = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  input: z.record(z.string(), inputSchema).optional(),
  timeoutMs: z.number().int().positive().optional(),
  /** Steps that may run at once; default `DEFAULT_PLAN_CONCURRENCY`. */
  concurrency: z.number().int({ error: "expected a whole number of steps" }).positive().optional(),
  /**
   * What a failed run does: `stop` (default) leaves completed steps as they are; `compensate` runs the
   * `compensate:` call of every completed step, in reverse order of completion.
   */
  onFailure: z.enum(["stop", "compensate"]).optional(),
  steps: z.array(stepSchema, { error: "expected a list of steps" }).min(1, "expected at least one step"),
  outputs: z.record(z.string(), z.unknown()).optional(),
});

/** A plan as written: steps of tool calls, with references between them. */
export type PlanSpec = z.infer<typeof planSchema>;
export type PlanStepSpec = z.infer<typeof stepSchema>;

/** A checked plan: every step with the full set of steps it waits for. */
export interface Plan extends PlanSpec {
  /** Step id → ids it depends on (declared `needs` plus every `steps.<id>` it references). */
  dependencies: Map<string, Set<string>>;
}

/**
 * Check a plan: unique ids, references only to known inputs and steps, no cycles.
 * @throws SwitchyardError `CONFIG_INVALID` naming the step and what is wrong.
 */
export function checkPlan(raw: unknown, source = "plan"): Plan {
  const parsed = planSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(source, `${issue.path.join(".") || "(top)"}: ${issue.message}`);
  }
  const spec = parsed.data;
  const ids = new Set<string>();
  for (const step of spec.steps) {
    if (ids.has(step.id)) throw invalid(source, `two steps are called "${step.id}"`);
    ids.add(step.id);
  }
  const inputs = new Set(Object.keys(spec.input ?? {}));
  const dependencies = new Map<string, Set<string>>();
  for (const step of spec.steps) {
    const needs = new Set(step.needs ?? []);
    for (const path of pathsOf(step.args, source, `step ${step.id}`)) {
      const [root, name] = path.keys;
      if (root === "steps") needs.add(String(name));
      else if (inputs.size && typeof name === "string" && !inputs.has(name)) {
        throw invalid(
          source,
          `step ${step.id} uses {{${path.text}}}, but the plan declares no input "${name}"`,
        );
      }
    }
    for (const need of needs) {
      if (!ids.has(need)) throw invalid(source, `step ${step.id} depends on "${need}", which is not a step`);
      if (need === step.id) throw invalid(source, `step ${step.id} depends on itself`);
    }
    dependencies.set(step.id, needs);
    for (const path of pathsOf(step.compensate?.args, source, `step ${step.id}'s compensate`)) {
      const [root, name] = path.keys;
      if (root === "steps" && !ids.has(String(name)))
        throw invalid(
          source,
          `step ${step.id}'s compensate uses {{${path.text}}}, but there is no step "${name}"`,
        );
    }
  }
  for (const path of pathsOf(spec.outputs, source, "outputs")) {
    if (path.keys[0] === "steps" && !ids.has(String(path.keys[1]))) {
      throw invalid(source, `outputs use {{${path.text}}}, but there is no step "${path.keys[1]}"`);
    }
  }
  const cycle = findCycle(dependencies);
  if (cycle) throw invalid(source, `steps depend on each other in a circle: ${cycle.join(" → ")}`);
  return { ...spec, dependencies };
}

/** Read a plan from YAML or JSON text. @throws SwitchyardError `CONFIG_INVALID` naming `source`. */
export function parsePlan(text: string, source = "plan"): Plan {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (cause) {
    throw new SwitchyardError("CONFIG_INVALID", `cannot read plan ${source}: ${messageOf(cause)}`, { cause });
  }
  return checkPlan(raw, source);
}

/** Read a plan from a YAML or JSON file. @throws SwitchyardError `CONFIG_INVALID`. */
export function loadPlanFile(file: string): Plan {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new SwitchyardError("CONFIG_INVALID", `cannot read plan ${file}: ${messageOf(cause)}`, { cause });
  }
  return parsePlan(text, file);
}

function pathsOf(value: unknown, source: string, where: string) {
  try {
    return findPaths(value);
  } catch (error) {
    if (error instanceof ExpressionError) throw invalid(source, `${where}: ${error.message}`);
    throw error;
  }
}

function findCycle(dependencies: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, "visiting" | "done">();
  const trail: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done") return undefined;
    if (state.get(id) === "visiting") return [...trail.slice(trail.indexOf(id)), id];
    state.set(id, "visiting");
    trail.push(id);
    for (const need of dependencies.get(id) ?? []) {
      const cycle = visit(need);
      if (cycle) return cycle;
    }
    trail.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const id of dependencies.keys()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}

function invalid(source: string, message: string): SwitchyardError {
  return new SwitchyardError("CONFIG_INVALID", `${source}: ${message}`);
}
