import { createHash } from "node:crypto";
import type { Plan } from "./plan.js";

/** What later steps read of a completed step as `steps.<id>.…`; what a checkpoint keeps of it. */
export interface PlanStepOutput {
  text: string;
  structured: unknown;
  content: unknown;
  isError: boolean;
}

/**
 * Where a plan run is checkpointed step by step (a store: `savePlanRun`, `savePlanStep`), so that a run
 * that failed or was cut short can be resumed after its last completed step. Each save is awaited
 * before the run goes on: a step reported complete is one a resume will not run again. The output
 * `completed` is given has been through the host's redactor, as a call's recorded result has: a secret
 * a step's result held is kept as `[REDACTED]`, and a resumed run's later steps read it so.
 */
export interface PlanCheckpointer {
  started(runId: string, planHash: string, input: Record<string, unknown>): Promise<void>;
  completed(runId: string, stepId: string, seq: number, output: PlanStepOutput): Promise<void>;
}

/** A run to continue: its id, and its completed steps' outputs in the order they completed. */
export interface PlanResume {
  runId: string;
  completed: ReadonlyArray<{ id: string; output: PlanStepOutput }>;
  /**
   * Steps cut short while their call ran as a task (its id recorded, no outcome): each picks its task
   * up on `server` instead of calling the tool again (`resumeTask` of the request).
   */
  tasks?: ReadonlyArray<{ id: string; taskId: string; server: string }>;
}

/**
 * The plan's fingerprint: SHA-256 of the plan as checked (not its text: comments and layout do not
 * count). A run is resumed only with the plan it ran.
 */
export function planHash(plan: Plan): string {
  const { dependencies: _dependencies, ...spec } = plan;
  return createHash("sha256").update(JSON.stringify(spec)).digest("hex");
}
