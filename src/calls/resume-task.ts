import { isSwitchyardError, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { RequestContext, RequestResult } from "./request.js";
import type { Resolved } from "./resolve.js";
import { isRepeatable } from "./retry.js";

/**
 * A tool call that picks up a task an earlier attempt at it made (`resumeTask`): sent with the task's id
 * to the server that made it, which is asked for the task, not to run the tool. When that server does
 * not know the task any more (`TASK_NOT_FOUND`: expired, forgotten in a restart), or the tool is served
 * by another server now, the tool is called anew only when it is safe to repeat (`readOnlyHint` or
 * `idempotentHint`); otherwise the call fails with `TASK_NOT_FOUND`, naming the task, its server and
 * what to do.
 */
export async function resumeTask(
  task: { taskId: string; server: string },
  resolved: Resolved,
  context: RequestContext,
  logger: Logger,
  send: (taskId: string | undefined) => Promise<RequestResult>,
): Promise<RequestResult> {
  let lost: SwitchyardError;
  if (task.server === resolved.server) {
    try {
      return await send(task.taskId);
    } catch (error) {
      if (!isSwitchyardError(error) || error.code !== "TASK_NOT_FOUND") throw error;
      lost = error;
    }
  } else {
    lost = new SwitchyardError(
      "TASK_NOT_FOUND",
      `task ${task.taskId} of tool ${resolved.tool} ran on server ${task.server}, and ${context.name} is served by server ${resolved.server} now`,
      { server: task.server, tool: resolved.tool, delivery: "final", serverFault: false },
    );
  }
  if (isRepeatable(resolved.entry?.annotations)) {
    logger.info(
      { server: task.server, tool: resolved.tool, task: task.taskId },
      `${lost.message}; ${context.name} is safe to repeat (read-only or idempotent), so it is called anew`,
    );
    return send(undefined);
  }
  throw new SwitchyardError(
    "TASK_NOT_FOUND",
    `${lost.message}. ${context.name} is not marked read-only or idempotent, so it was not called again: find out on server ${task.server} whether the work of task ${task.taskId} was done, and to do it again call the tool anew (a plan: run it without --resume)`,
    { server: task.server, tool: resolved.tool, delivery: "final", serverFault: false, cause: lost },
  );
}
