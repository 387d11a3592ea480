// switchyard/plan: declared graphs of tool calls, run over a Switchyard without a model.
export {
  type PlanCheckpointer,
  type PlanResume,
  type PlanStepOutput,
  planHash,
} from "./checkpoint.js";
export type { PlanCompensation } from "./compensate.js";
export { ExpressionError, type ExpressionPath, findPaths, parsePath, resolveValue } from "./expressions.js";
export {
  checkPlan,
  DEFAULT_PLAN_CONCURRENCY,
  DEFAULT_PLAN_TIMEOUT_MS,
  loadPlanFile,
  type Plan,
  type PlanSpec,
  type PlanStepSpec,
  parsePlan,
  planSchema,
} from "./plan.js";
export {
  describeStepError,
  type PlanEvent,
  type PlanHost,
  type PlanResult,
  type PlanStepError,
  type PlanStepResult,
  preflightPlan,
  type RunPlanOptions,
  runPlan,
} from "./run-plan.js";
