// Tool calls run as tasks on a 2026-07-28 connection: the tasks extension (SEP-2663,
// `io.modelcontextprotocol/tasks`), driven by its official client, @modelcontextprotocol/ext-tasks.

import { pathToFileURL } from "node:url";
import type {
  CallToolResult,
  Client,
  ClientCapabilities,
  CreateMessageRequestParams,
  ElicitRequestParams,
} from "@modelcontextprotocol/client";
import {
  type ApplicationCreateMessageResult,
  type ApplicationElicitResult,
  type ApplicationInputRequest,
  type ApplicationListRootsResult,
  createTaskSessionFromClient,
  type ResolvedInputExchangeContext,
  type TaskEnabledSession,
  type TaskOutcome,
  type ToolExecution,
} from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue, TaskId } from "@modelcontextprotocol/ext-tasks/core";
import { abortable } from "../abort.js";
import { DEFAULT_TASK_CANCEL_TIMEOUT_MS } from "../config/defaults.js";
import { messageOf, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { ClientRequests } from "./client-requests.js";
import type { RawRequests } from "./raw-requests.js";
import { currentRequestOrigin, type RequestOrigin } from "./request-origin.js";
import type { TaskDeadline } from "./task-deadline.js";
import { unknownTask } from "./unknown-task.js";

/** What one task call hands the questions its task asks: whose call it is, and when to stop asking. */
interface CallContext {
  origin: RequestOrigin | undefined;
  signal: AbortSignal;
}

export interface ModernTaskSetup {
  server: string;
  logger: Logger;
  /** The handlers the fleet answers a server's questions with (elicitation, sampling, roots). */
  requests: ClientRequests | undefined;
  clientInfo: { name: string; version: string };
  /** The client's capabilities, sent with each request of the extension (2026-07-28 has them per request). */
  capabilities: ClientCapabilities;
  raw: RawRequests;
}

export interface ModernTaskCall {
  deadline: TaskDeadline;
  /** The progress token of the call: the server's progress goes on through the task's life. */
  token: string;
  /** Told the task's id once the server created it (or it was picked up), and awaited before it is followed. */
  onTask?: (taskId: string) => void | Promise<void>;
  /** Told each status of the task the client observes (polled or notified). */
  onStatus?: (status: string, message: string | undefined) => void;
}

/**
 * The task calls of one 2026-07-28 session. The ext-tasks session (one per SDK Client) sends the
 * extension's requests on {@link RawRequests} (the SDK rejects their answers), framed with the client's
 * protocol version, info and capabilities (with the extension declared), polls `tasks/get` at the
 * task's `pollIntervalMs`, answers the task's `inputRequests` with `tasks/update` through the fleet's
 * handlers, and cancels with `tasks/cancel`.
 */
export class ModernTasks {
  readonly #setup: ModernTaskSetup;
  #session: TaskEnabledSession<CallContext> | undefined;
  #client: Client | undefined;
  #inFlight = 0;

  constructor(setup: ModernTaskSetup) {
    this.#setup = setup;
  }

  /** Tasks created and not yet over. */
  get inFlight(): number {
    return this.#inFlight;
  }

  async call(
    client: Client,
    tool: string,
    args: Record<string, unknown>,
    call: ModernTaskCall,
  ): Promise<CallToolResult> {
    const { deadline } = call;
    const session = this.#sessionFor(client);
    const execution: ToolExecution<unknown, CallContext> = await session.callTool(
      tool,
      args as Record<string, JsonValue>,
      {
        signal: deadline.signal,
        task: { preference: "allow" },
        metadata: { progressToken: call.token },
        applicationContext: { origin: currentRequestOrigin(), signal: deadline.signal },
        requestTimeoutMs: deadline.requestOptions().timeout,
      },
    );
    if (execution.kind === "immediate") return this.#result(tool, undefined, await execution.result());
    return this.#settle(execution, tool, call);
  }

  /**
   * Pick up a task the server made for an earlier call of `tool` (by this process or one before it):
   * `tasks/get` looks it up, then it is followed to its result as {@link call} follows a new one.
   * @throws SwitchyardError `TASK_NOT_FOUND` when the server answers that it does not know the task.
   */
  async resume(client: Client, tool: string, taskId: string, call: ModernTaskCall): Promise<CallToolResult> {
    const { deadline } = call;
    const session = this.#sessionFor(client);
    let execution: ToolExecution<unknown, CallContext>;
    try {
      execution = await session.resumeTask(
        {
          endpointId: session.endpointId,
          generation: "v2",
          taskId: taskId as TaskId,
          originalOperation: "tools/call",
        },
        {
          signal: deadline.signal,
          applicationContext: { origin: currentRequestOrigin(), signal: deadline.signal },
          requestTimeoutMs: deadline.requestOptions().timeout,
        },
      );
    } catch (error) {
      throw unknownTask(error, { server: this.#setup.server, tool, taskId }) ?? error;
    }
    if (execution.kind === "immediate") return this.#result(tool, taskId, await execution.result());
    return this.#settle(execution, tool, call);
  }

  /** A task's execution followed to its outcome; the caller's deadline cancels it. */
  async #settle(
    execution: Extract<ToolExecution<unknown, CallContext>, { kind: "task" }>,
    tool: string,
    call: ModernTaskCall,
  ): Promise<CallToolResult> {
    const { deadline } = call;
    const { taskId } = execution.handle;
    this.#inFlight += 1;
    try {
      // Awaited: whoever keeps the id (a run's record) has it before the task is followed.
      await call.onTask?.(taskId);
      this.#setup.logger.debug({ task: taskId, tool }, "task followed");
      const settled = execution.settle({
        onEvent: (event) => {
          if (event.type !== "task") return;
          const { status, statusMessage } = event.task;
          this.#setup.logger.debug({ task: taskId, status, message: statusMessage }, "task status");
          call.onStatus?.(status, statusMessage);
        },
      });
      const { outcome } = await abortable(settled, deadline.signal);
      return this.#result(tool, taskId, outcome);
    } catch (error) {
      if (deadline.signal.aborted) await this.#cancel(execution, taskId);
      throw error;
    } finally {
      this.#inFlight -= 1;
    }
  }

  /** Forget the ext-tasks session (the connection closed). */
  close(): void {
    const session = this.#session;
    this.#session = undefined;
    this.#client = undefined;
    void session?.close().catch(() => {});
  }

  #sessionFor(client: Client): TaskEnabledSession<CallContext> {
    if (this.#session && this.#client === client) return this.#session;
    this.close();
    const { clientInfo, capabilities, raw, server } = this.#setup;
    this.#session = createTaskSessionFromClient<CallContext>(client, {
      endpointId: `switchyard:${server}`,
      rawDispatch: raw.dispatch,
      v2RequestFraming: {
        protocolVersion: client.getNegotiatedProtocolVersion() ?? "2026-07-28",
        clientInfo,
        clientCapabilities: capabilities as Record<string, JsonValue>,
      },
      onInputRequest: (request, context) => this.#answer(request, context) as never,
      onError: (error) => this.#setup.logger.debug({}, `tasks: ${error.message}`),
    });
    this.#client = client;
    return this.#session;
  }

  /** A question the task asks, answered by the fleet's handler for it, as a pushed request would be. */
  async #answer(
    request: ApplicationInputRequest,
    context: ResolvedInputExchangeContext<CallContext>,
  ): Promise<ApplicationElicitResult | ApplicationCreateMessageResult | ApplicationListRootsResult> {
    const { server, requests } = this.#setup;
    const { origin, signal } = context.applicationContext;
    const ask = context.signal ? AbortSignal.any([signal, context.signal]) : signal;
    switch (request.kind) {
      case "elicitation": {
        if (!requests?.elicit) return { action: "decline" };
        const answer = await requests.elicit(server, request.params as ElicitRequestParams, ask, origin);
        return answer as ApplicationElicitResult;
      }
      case "sampling": {
        if (!requests?.sample) {
          throw new SwitchyardError(
            "CAPABILITY_MISSING",
            `a task of server ${server} asks for sampling, and no sampling handler is configured: give one (requests.sample) or do not call this tool`,
            { server, capability: "sampling", serverFault: false },
          );
        }
        const answer = await requests.sample(
          server,
          request.params as CreateMessageRequestParams,
          ask,
          origin,
        );
        return answer as unknown as ApplicationCreateMessageResult;
      }
      case "roots":
        return {
          roots: (requests?.roots ?? []).map((folder) => ({ uri: pathToFileURL(folder).href, name: folder })),
        };
    }
  }

  #result(tool: string, taskId: string | undefined, outcome: TaskOutcome<unknown>): CallToolResult {
    const named = `${taskId ? `task ${taskId} of tool` : "tool"} ${tool} on server ${this.#setup.server}`;
    const details = { server: this.#setup.server, tool, delivery: "final" as const, serverFault: false };
    if (outcome.status === "failed") {
      throw new SwitchyardError("SERVER_ERROR", `${named} failed: ${outcome.error.message}`, details);
    }
    if (outcome.status === "cancelled") {
      const reason = outcome.task?.statusMessage ? `: ${outcome.task.statusMessage}` : "";
      throw new SwitchyardError("CANCELLED", `${named} was cancelled by the server${reason}`, details);
    }
    const { resultType: _resultType, ...result } = outcome.result as CallToolResult & { resultType?: string };
    return result as CallToolResult;
  }

  async #cancel(execution: ToolExecution<unknown, CallContext>, taskId: string): Promise<void> {
    try {
      await execution.cancel(AbortSignal.timeout(DEFAULT_TASK_CANCEL_TIMEOUT_MS));
      this.#setup.logger.debug({ task: taskId }, "task cancelled");
    } catch (error) {
      this.#setup.logger.warn({ task: taskId }, `could not cancel the task: ${messageOf(error)}`);
    }
  }
}
