import {
  type CallToolResult,
  type Client,
  type ClientCapabilities,
  SdkError,
  SdkErrorCode,
  specTypeSchemas,
  type Task,
  type Transport,
} from "@modelcontextprotocol/client";
import {
  DEFAULT_TASK_CANCEL_TIMEOUT_MS,
  DEFAULT_TASK_MIN_POLL_INTERVAL_MS,
  DEFAULT_TASK_POLL_INTERVAL_MS,
} from "../config/defaults.js";
import { messageOf, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { ClientRequests } from "./client-requests.js";
import { declaresExtension, TASKS_EXTENSION } from "./extensions.js";
import { RawRequests } from "./raw-requests.js";
import type { AttemptOptions, CallProgress } from "./requests.js";
import { forwardGet } from "./tap-transport.js";
import { nap, TaskDeadline } from "./task-deadline.js";
import { type ModernTaskCall, ModernTasks } from "./tasks-2026.js";
import { unknownTask } from "./unknown-task.js";

/**
 * The protocol revision whose core has tasks (task-augmented `tools/call`, `tasks/get`, `tasks/result`,
 * `tasks/cancel`, `notifications/tasks/status`). Earlier revisions have none; 2026-07-28 moved them to
 * an extension (SEP-2663), run here through @modelcontextprotocol/ext-tasks (see tasks-2026.ts).
 */
const TASK_REVISION = "2025-11-25";

/**
 * Why a tool call cannot be run as a task on this connection, or `undefined` when it can.
 *
 * 2025-11-25: @modelcontextprotocol/client 2.4.0 has the task wire schemas (`specTypeSchemas.CreateTaskResult`,
 * `GetTaskResult`, …) and `client.request()` with an explicit result schema, which lets `tasks/*`
 * through, but no task runtime: followed here. 2026-07-28: the SDK rejects a `tools/call` answered with
 * `resultType: "task"` inside its Client and has no `tasks/update`; the extension's official client
 * (@modelcontextprotocol/ext-tasks) runs them, its requests sent beside the SDK (raw-requests.ts).
 */
export function taskCallsUnavailable(client: Client): string | undefined {
  const version = client.getNegotiatedProtocolVersion() ?? "(none)";
  if (client.getProtocolEra() === "modern") {
    if (declaresExtension(client.getServerCapabilities(), TASKS_EXTENSION)) return undefined;
    return `the server does not declare the tasks extension (capabilities.extensions["${TASKS_EXTENSION}"])`;
  }
  if (version < TASK_REVISION) return `protocol ${version} has no tasks (they came with ${TASK_REVISION})`;
  if (client.getServerCapabilities()?.tasks?.requests?.tools?.call === undefined) {
    return "the server does not offer task-augmented tools/call (capabilities.tasks.requests.tools.call)";
  }
  return undefined;
}

export interface TaskCallOptions extends AttemptOptions {
  /** Each progress notification of the task, through its whole life. */
  onProgress?: (progress: CallProgress) => void;
  /** Told the task's id once the server created it (or it was picked up), and awaited before it is followed. */
  onTask?: (taskId: string) => void | Promise<void>;
}

/** What the task calls of a session answer a task's questions with, and say of the client. */
export interface TaskCallsSetup {
  requests: ClientRequests | undefined;
  clientInfo: { name: string; version: string };
  capabilities: ClientCapabilities;
}

const TERMINAL = new Set<Task["status"]>(["completed", "failed", "cancelled"]);
/** Status notifications kept for tasks whose follower is not in place yet. */
const EARLY_STATUS_KEPT = 32;

/**
 * The tool calls of one session that run as tasks (the 2025-11-25 tasks extension): each is sent
 * task-augmented, followed (`tasks/get` every `pollInterval`, sooner when the server sends
 * `notifications/tasks/status`) and its result fetched (`tasks/result`), so that the caller gets the
 * final result like any call's. The caller's signal and deadline cancel the task (`tasks/cancel`).
 */
export class TaskCalls {
  readonly #server: string;
  readonly #log: Logger;
  /**
   * Followed tasks by id: a status notification for one is handed to its follower; when the connection
   * closes each is told so at once, rather than at its next poll.
   */
  readonly #followed = new Map<string, (news: Task | "closed") => void>();
  /**
   * Status notifications of tasks not followed yet: one can come in the same read as the answer that
   * created its task, before the follower is in place. Kept (the latest per task, a few tasks) for it.
   */
  readonly #early = new Map<string, Task>();
  /** The progress tokens of task calls: progress goes on through the task's life, not only until it is created. */
  readonly #progress = new Map<string, (progress: CallProgress) => void>();
  /** The requests of the 2026-07-28 tasks extension, sent beside the SDK. */
  readonly #raw = new RawRequests();
  readonly #modern: ModernTasks;
  #calls = 0;

  constructor(server: string, logger: Logger, setup: TaskCallsSetup) {
    this.#server = server;
    this.#log = logger;
    this.#modern = new ModernTasks({ server, logger, raw: this.#raw, ...setup });
  }

  /** Tasks created and not yet over. */
  get inFlight(): number {
    return this.#followed.size + this.#modern.inFlight;
  }

  /**
   * Wrap the session's transport so that the progress notifications of task calls come here: the SDK
   * forgets a request's progress token once it is answered, and a task call is answered at once (with
   * the task). When the transport closes, the followers wake at once rather than at their next poll.
   * A Proxy, as in `tapTransport`, so the SDK still sees the transport's own shape.
   */
  tap(transport: Transport): Transport {
    const consume = (message: unknown) => this.#raw.take(message) || this.#consume(message);
    const wakeAll = () => {
      this.#raw.closed();
      this.#modern.close();
      for (const tell of this.#followed.values()) tell("closed");
    };
    this.#raw.attach(transport);
    return new Proxy(transport, {
      get: forwardGet,
      set(target, property, value) {
        if (property === "onmessage" && typeof value === "function") {
          const deliver = value as NonNullable<Transport["onmessage"]>;
          target.onmessage = (message, extra) => {
            if (!consume(message)) deliver(message, extra);
          };
          return true;
        }
        if (property === "onclose" && typeof value === "function") {
          const closed = value as NonNullable<Transport["onclose"]>;
          target.onclose = () => {
            closed();
            wakeAll();
          };
          return true;
        }
        return Reflect.set(target, property, value);
      },
    });
  }

  /**
   * Call a tool as a task and follow it to its result.
   * @throws SwitchyardError `CAPABILITY_MISSING` (`capability: "tasks"`) when the connection cannot run
   *   tasks (see {@link taskCallsUnavailable}); `SERVER_ERROR` when the task failed; `CANCELLED` when the
   *   server cancelled it. A deadline that passes, or the caller's signal, cancels the task and comes out
   *   as the SDK's timeout or the signal's abort (the connection classifies them as for any call).
   */
  async call(
    client: Client,
    tool: string,
    args: Record<string, unknown>,
    options: TaskCallOptions,
  ): Promise<CallToolResult> {
    this.#checkAvailable(client, tool, "must run as a task (execution.taskSupport: required)");
    return this.#follows(client, tool, options, {
      modern: (call) => this.#modern.call(client, tool, args, call),
      legacy: async (deadline, token) => {
        const created = await client.request(
          {
            method: "tools/call",
            params: {
              name: tool,
              arguments: args,
              task: { ttl: deadline.totalMs },
              _meta: { progressToken: token },
            },
          },
          specTypeSchemas.CreateTaskResult,
          deadline.requestOptions(),
        );
        return created.task;
      },
    });
  }

  /**
   * Pick up a task the server made for an earlier call of `tool` — by this process or one before it (a
   * plan run resumed) — and follow it to its result as {@link call} does: `tasks/get` looks it up, then
   * the same polling and result (`tasks/result`, or the extension's `tasks/get` result on 2026-07-28).
   * Nothing is sent to the tool itself.
   * @throws SwitchyardError `TASK_NOT_FOUND` when the server answers the lookup that it does not know the
   *   task (expired, or forgotten in a restart), or when the connection cannot run tasks any more; the rest
   *   as {@link call}.
   */
  async resume(
    client: Client,
    tool: string,
    taskId: string,
    options: TaskCallOptions,
  ): Promise<CallToolResult> {
    const unavailable = taskCallsUnavailable(client);
    if (unavailable !== undefined) {
      throw new SwitchyardError(
        "TASK_NOT_FOUND",
        `task ${taskId} of tool ${tool} cannot be picked up on server ${this.#server}: ${unavailable}`,
        { server: this.#server, tool, delivery: "final", serverFault: false },
      );
    }
    return this.#follows(client, tool, options, {
      modern: (call) => this.#modern.resume(client, tool, taskId, call),
      legacy: async (deadline) => {
        try {
          return await client.request(
            { method: "tasks/get", params: { taskId } },
            specTypeSchemas.GetTaskResult,
            deadline.requestOptions(),
          );
        } catch (error) {
          throw unknownTask(error, { server: this.#server, tool, taskId }) ?? error;
        }
      },
    });
  }

  /** Why a tool call cannot run as a task here, thrown as `CAPABILITY_MISSING`. */
  #checkAvailable(client: Client, tool: string, why: string): void {
    const unavailable = taskCallsUnavailable(client);
    if (unavailable === undefined) return;
    throw new SwitchyardError(
      "CAPABILITY_MISSING",
      `tool ${tool} on server ${this.#server} ${why}, and ${unavailable}`,
      { server: this.#server, tool, capability: "tasks", delivery: "final", serverFault: false },
    );
  }

  /**
   * One task followed to its result, under one deadline that its signs of life push back: on
   * 2026-07-28 by the extension's client (`modern`), on 2025-11-25 here, from the task `legacy` gives
   * (created or looked up).
   */
  async #follows(
    client: Client,
    tool: string,
    options: TaskCallOptions,
    start: {
      modern: (call: ModernTaskCall) => Promise<CallToolResult>;
      legacy: (deadline: TaskDeadline, token: string) => Promise<Task>;
    },
  ): Promise<CallToolResult> {
    const deadline = new TaskDeadline(options.timeoutMs, options.maxTotalTimeoutMs, options.signal);
    const token = `switchyard-task-${++this.#calls}`;
    this.#progress.set(token, (progress) => {
      deadline.extend();
      options.onProgress?.(progress);
    });
    let task: Task | undefined;
    let statuses = 0;
    try {
      if (client.getProtocolEra() === "modern") {
        return await start.modern({
          deadline,
          token,
          ...(options.onTask ? { onTask: options.onTask } : {}),
          // Tasks of this extension send no progress: each status they pass through is told as one.
          onStatus: (status, message) => {
            deadline.extend();
            options.onProgress?.({ progress: ++statuses, message: message ?? status });
          },
        });
      }
      task = await start.legacy(deadline, token);
      await options.onTask?.(task.taskId);
      task = await this.#follow(client, task, deadline);
      return await this.#outcome(client, tool, task, deadline);
    } catch (error) {
      if (task !== undefined && !TERMINAL.has(task.status) && deadline.signal.aborted) {
        await this.#cancel(client, task.taskId);
      }
      throw error;
    } finally {
      this.#progress.delete(token);
      if (task !== undefined) this.#followed.delete(task.taskId);
      deadline.dispose();
    }
  }

  /** Wait until the task is over or needs input: status notifications, else `tasks/get` every `pollInterval`. */
  async #follow(client: Client, created: Task, deadline: TaskDeadline): Promise<Task> {
    let task = created;
    let news: Task | undefined;
    let closed = false;
    let wake: (() => void) | undefined;
    this.#followed.set(task.taskId, (update) => {
      if (update === "closed") closed = true;
      else {
        news = update;
        deadline.extend();
      }
      wake?.();
    });
    const early = this.#early.get(task.taskId);
    if (early !== undefined) {
      this.#early.delete(task.taskId);
      news = early;
    }
    while (!TERMINAL.has(task.status) && task.status !== "input_required") {
      if (news === undefined) {
        const pollMs = Math.max(
          task.pollInterval ?? DEFAULT_TASK_POLL_INTERVAL_MS,
          DEFAULT_TASK_MIN_POLL_INTERVAL_MS,
        );
        await nap(pollMs, deadline.signal, (resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      if (closed) throw new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
      if (news !== undefined) {
        task = news;
        news = undefined;
      } else {
        task = await client.request(
          { method: "tasks/get", params: { taskId: task.taskId } },
          specTypeSchemas.GetTaskResult,
          deadline.requestOptions(),
        );
      }
      this.#log.debug({ task: task.taskId, status: task.status, message: task.statusMessage }, "task status");
    }
    return task;
  }

  /** The result of a task that is over (or needs input: `tasks/result` carries the server's questions). */
  async #outcome(client: Client, tool: string, task: Task, deadline: TaskDeadline): Promise<CallToolResult> {
    const named = `task ${task.taskId} of tool ${tool} on server ${this.#server}`;
    const reason = task.statusMessage ? `: ${task.statusMessage}` : "";
    if (task.status === "failed") {
      throw new SwitchyardError(
        "SERVER_ERROR",
        `${named} failed${reason || " (the server gave no reason)"}`,
        {
          server: this.#server,
          tool,
          delivery: "final",
          serverFault: false,
        },
      );
    }
    if (task.status === "cancelled") {
      throw new SwitchyardError("CANCELLED", `${named} was cancelled by the server${reason}`, {
        server: this.#server,
        tool,
        delivery: "final",
        serverFault: false,
      });
    }
    return (await client.request(
      { method: "tasks/result", params: { taskId: task.taskId } },
      specTypeSchemas.CallToolResult,
      deadline.requestOptions(),
    )) as CallToolResult;
  }

  async #cancel(client: Client, taskId: string): Promise<void> {
    try {
      await client.request({ method: "tasks/cancel", params: { taskId } }, specTypeSchemas.CancelTaskResult, {
        timeout: DEFAULT_TASK_CANCEL_TIMEOUT_MS,
      });
      this.#log.debug({ task: taskId }, "task cancelled");
    } catch (error) {
      this.#log.warn({ task: taskId }, `could not cancel the task: ${messageOf(error)}`);
    }
  }

  /** Take the messages meant for task calls; true when the message was theirs alone. */
  #consume(message: unknown): boolean {
    const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
    if (method === "notifications/progress" && typeof params?.progressToken === "string") {
      const listener = this.#progress.get(params.progressToken);
      if (!listener || typeof params.progress !== "number") return false;
      listener({
        progress: params.progress,
        ...(typeof params.total === "number" ? { total: params.total } : {}),
        ...(typeof params.message === "string" ? { message: params.message } : {}),
      });
      return true;
    }
    if (method === "notifications/tasks/status" && typeof params?.taskId === "string") {
      const parsed = specTypeSchemas.Task["~standard"].validate(params);
      if (!(parsed instanceof Promise) && parsed.issues === undefined) {
        const follower = this.#followed.get(params.taskId);
        if (follower) follower(parsed.value);
        else {
          this.#early.delete(params.taskId); // the latest last, and the oldest first out
          this.#early.set(params.taskId, parsed.value);
          if (this.#early.size > EARLY_STATUS_KEPT) this.#early.delete(this.#early.keys().next().value!);
        }
      }
    }
    return false;
  }
}
