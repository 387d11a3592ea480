import { abortable } from "../abort.js";
import type { Catalog } from "../catalog/catalog.js";
import type { ServerRequest } from "../fleet/requests.js";
import { describeTarget } from "./approval.js";
import { completionArgument } from "./arguments.js";
import type { RequestRecord } from "./recorder.js";
import type { RequestContext, RequestInput, RequestResult, RequestResults } from "./request.js";
import { quarantineOf, type Resolved } from "./resolve.js";
import { sharedWaitFailure } from "./result-cache.js";
import { completionResult, promptResult, readFailure, resourceResult, toolResult } from "./results.js";
import { isRepeatable } from "./retry.js";
import type { ManagedServer } from "./server.js";
import type { GuardedRequest } from "./server-guard.js";

/** What sending reads: the servers, the catalog (a tool quarantined meanwhile), the records' flush. */
export interface SendParts {
  server(name: string): ManagedServer | undefined;
  catalog: Catalog;
  /** Resolves when the records of the events so far are written (a task's id, before it is followed). */
  recorded?: (() => Promise<void>) | undefined;
}

/** An admitted request on its way to the server `resolved` names. */
export interface Sending {
  input: RequestInput;
  resolved: Resolved;
  context: RequestContext;
  record: RequestRecord;
  /** The task an earlier attempt made, asked for instead of running the tool again (`resumeTask`). */
  taskId?: string | undefined;
}

/** What the server's guard is given with every request but the request itself. */
type Guarded = Omit<GuardedRequest, "request">;

/**
 * The admitted request to its server, through the server's guard, as the MCP request of its kind; its
 * answer as the caller gets it.
 */
export async function sendRequest(sending: Sending, parts: SendParts): Promise<RequestResult> {
  const { input, resolved, context } = sending;
  const server = parts.server(resolved.server)!;
  const guarded: Guarded = {
    what: describeTarget(context),
    ...(input.kind === "tool" ? { tool: resolved.tool } : {}),
    deadline: context.deadline,
    signal: input.signal,
    priority: input.priority,
    attemptMs: server.budget(input.timeoutMs).attemptMs,
    repeatable: input.kind !== "tool" || isRepeatable(resolved.entry?.annotations),
  };
  const args = context.args;
  switch (input.kind) {
    case "tool":
      return sendToolCall({ ...sending, input }, server, guarded, parts);
    case "resource":
      try {
        return resourceResult(
          resolved,
          await server.send({ ...guarded, request: { method: "resources/read", uri: resolved.tool } }),
        );
      } catch (error) {
        throw readFailure(resolved, error);
      }
    case "prompt":
      return promptResult(
        resolved,
        await server.send({
          ...guarded,
          request: { method: "prompts/get", prompt: resolved.tool, args: args as Record<string, string> },
        }),
      );
    case "complete": {
      const { argument, context: given } = completionArgument(input.argument, input.context);
      const ref =
        input.ref.type === "ref/prompt"
          ? { type: "ref/prompt" as const, name: resolved.tool }
          : { type: "ref/resource" as const, uri: resolved.tool };
      return completionResult(
        resolved,
        await server.send({
          ...guarded,
          request: { method: "completion/complete", ref, argument, ...(given ? { context: given } : {}) },
        }),
      );
    }
    case "subscribe":
      return server.send({ ...guarded, request: { method: "resources/subscribe", uri: resolved.tool } });
    case "unsubscribe":
      return server.send({ ...guarded, request: { method: "resources/unsubscribe", uri: resolved.tool } });
    case "skills": {
      const request = { method: "skills/list" as const, cursor: input.cursor };
      return { server: resolved.server, ...(await server.send({ ...guarded, request })) };
    }
    case "skill": {
      const request = { method: "skills/get" as const, uri: resolved.tool };
      return { server: resolved.server, ...(await server.send({ ...guarded, request })) };
    }
  }
}

/**
 * A `tools/call`: its progress to the caller and the record, its task (kept in the store before it is
 * followed), a check that the tool was not quarantined meanwhile, and the server's result cache.
 */
async function sendToolCall(
  sending: Sending & { input: Extract<RequestInput, { kind: "tool" }> },
  server: ManagedServer,
  guarded: Guarded,
  parts: SendParts,
): Promise<RequestResults["tool"]> {
  const { input, resolved, context, record, taskId } = sending;
  const args = context.args;
  const onProgress = record.listened || input.onProgress ? progressTo(record, input.onProgress) : undefined;
  const request: ServerRequest = {
    method: "tools/call",
    tool: resolved.tool,
    args,
    ...(onProgress ? { onProgress } : {}),
    ...(taskId !== undefined ? { resumeTask: taskId } : {}),
    onTask: async (created) => {
      record.task(created);
      try {
        input.onTask?.(created);
      } catch {
        // the caller's callback is its own affair, as its onProgress is
      }
      // The id is in the store before the task is followed: a process killed meanwhile leaves it.
      // Within the call's deadline and signal: a slow store delays the task, never holds it past them.
      const recorded = parts.recorded?.();
      if (recorded) await abortable(recorded, context.deadline.signalWith(input.signal));
    },
  };
  // A tool quarantined since it was resolved (its lazy server, started for this call, listed it
  // changed) is not sent.
  const beforeSend = () => quarantineOf(parts.catalog.get(resolved.name));
  const send = async () => toolResult(resolved, await server.send({ ...guarded, request, beforeSend }));
  // The server's result cache, when it has one and the tool only reads: after the policy and the
  // approval (a refused call stays refused), before the guard (a hit, or a call that joins an
  // identical one in flight, sends nothing).
  const key =
    taskId === undefined
      ? server.cache?.keyOf(resolved.tool, resolved.entry, args, context.identity)
      : undefined;
  if (key === undefined) return send();
  const where = { server: resolved.server, tool: resolved.tool };
  return server.cache!.serve(key, send, (shared) =>
    abortable(shared, context.deadline.signalWith(input.signal), () =>
      sharedWaitFailure(guarded.what, where, context.deadline.limitMs, input.signal?.aborted === true),
    ),
  );
}

/** A request's progress to the caller's `onProgress` and to the record's `call_progress` events. */
function progressTo(
  record: RequestRecord,
  own: ((progress: { progress: number; total?: number; message?: string }) => void) | undefined,
) {
  return (progress: { progress: number; total?: number; message?: string }) => {
    try {
      own?.(progress);
    } catch {
      // the caller's callback is its own affair
    }
    record.progress(progress);
  };
}
