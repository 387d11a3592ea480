import { messageOf, SwitchyardError } from "../errors.js";

/**
 * The JSON-RPC code a server answers a task lookup (`tasks/get`) with when it does not know the task:
 * invalid params, as the 2025-11-25 revision and the 2026-07-28 extension both say.
 */
const UNKNOWN_TASK_RPC_CODE = -32602;

/**
 * A failed lookup of a task (one picked up again by its id) as `TASK_NOT_FOUND` when the server said it
 * does not know the task; `undefined` for any other failure (the connection classifies those).
 */
export function unknownTask(
  error: unknown,
  where: { server: string; tool: string; taskId: string },
): SwitchyardError | undefined {
  if ((error as { code?: unknown } | undefined)?.code !== UNKNOWN_TASK_RPC_CODE) return undefined;
  const { server, tool, taskId } = where;
  return new SwitchyardError(
    "TASK_NOT_FOUND",
    `server ${server} does not know task ${taskId} of tool ${tool} (it answered: ${messageOf(error)}): the task expired, or the server restarted and forgot it`,
    { server, tool, rpcCode: UNKNOWN_TASK_RPC_CODE, delivery: "final", serverFault: false, cause: error },
  );
}
