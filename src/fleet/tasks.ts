import {
  type CallToolResult,
  type Client,
  SdkError,
  SdkErrorCode,
  specTypeSchemas,
  type Task,
  type Transport,
} from "@modelcontextprotocol/client";
import { monotonicClock } from "../abort.js";
import {
  DEFAULT_TASK_CANCEL_TIMEOUT_MS,
  DEFAULT_TASK_MIN_POLL_INTERVAL_MS,
  DEFAULT_TASK_POLL_INTERVAL_MS,
} from "../config/defaults.js";
import { messageOf, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { AttemptOptions, CallProgress } from "./requests.js";
import { forwardGet } from "./tap-transport.js";

/**
 * The protocol revision whose core has tasks (task-augmented `tools/call`, `tasks/get`, `tasks/result`,
 * `tasks/cancel`, `notifications/tasks/status`). Earlier revisions have none; 2026-07-28 moved them to
 * an extension (SEP-2663) that @modelcontextprotocol/client 2.4.0 cannot follow (see
 * {@link taskCallsUnavailable}).
 */
const TASK_REVISION = "2025-11-25";

/**
 * Why a tool call cannot be run as a task on this connection, or `undefined` when it can.
 *
 * What @modelcontextprotocol/client 2.4.0 offers: on a 2025-11-25 connection the task wire schemas
 * (`specTypeSchemas.CreateTaskResult`, `GetTaskResult`, `CancelTaskResult`, …) and `client.request()`
 * with an explicit result schema, which lets `tasks/*` through; no task runtime (no `callToolStream`,
 * no `getTask`, no status handler: `RequestMethod` excludes the task methods). On a 2026-07-28
 * connection a `tools/call` answered with `resultType: "task"` is rejected inside the SDK
 * (`UNSUPPORTED_RESULT_TYPE`), before any caller sees it, and `tasks/update` is unknown: nothing to follow.
 */
export function taskCallsUnavailable(client: Client): string | undefined {
  const version = client.getNegotiatedProtocolVersion() ?? "(none)";
  if (client.getProtocolEra() === "modern") {
    return (
      `protocol ${version} moved tasks to an extension (SEP-2663) that @modelcontextprotocol/client 2.4.0 ` +
      `cannot follow: it rejects a tools/call answered with resultType "task" and has no tasks/update`
    );
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
  #calls = 0;

  constructor(server: string, logger: Logger) {
    this.#server = server;
    this.#log = logger;
  }

  /** Tasks created and not yet over. */
  get inFlight(): number {
    return this.#followed.size;
  }

  /**
   * Wrap the session's transport so that the progress notifications of task calls come here: the SDK
   * forgets a request's progress token once it is answered, and a task call is answered at once (with
   * the task). When the transport closes, the followers wake at once rather than at their next poll.
   * A Proxy, as in `tapTransport`, so the SDK still sees the transport's own shape.
   */
  tap(transport: Transport): Transport {
    const consume = (message: unknown) => this.#consume(message);
    const wakeAll = () => {
      for (const tell of this.#followed.values()) tell("closed");
    };
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
    const unavailable = taskCallsUnavailable(client);
    if (unavailable !== undefined) {
      throw new SwitchyardError(
        "CAPABILITY_MISSING",
        `tool ${tool} on server ${this.#server} must run as a task (execution.taskSupport: required), and ${unavailable}`,
        { server: this.#server, tool, capability: "tasks", delivery: "final", serverFault: false },
      );
    }
    const deadline = new TaskDeadline(options.timeoutMs, options.maxTotalTimeoutMs, options.signal);
    const token = `switchyard-task-${++this.#calls}`;
    this.#progress.set(token, (progress) => {
      deadline.extend();
      options.onProgress?.(progress);
    });
    let task: Task | undefined;
    try {
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
      task = created.task;
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

/**
 * How long one task call may stay silent: `timeoutMs` from the start and, with `maxTotalTimeoutMs`,
 * pushed back by each sign of life (progress, status) up to that total — never past the request's
 * deadline, which `maxTotalTimeoutMs` carries. It and the caller's signal abort one signal. Measured on
 * the monotonic clock every deadline reads.
 */
class TaskDeadline {
  readonly #controller = new AbortController();
  readonly #started = monotonicClock.now();
  readonly #timeoutMs: number;
  readonly #maxTotalMs: number | undefined;
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort = () => this.#controller.abort(this.#caller!.reason);
  #until: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, maxTotalMs: number | undefined, caller: AbortSignal | undefined) {
    this.#timeoutMs = timeoutMs;
    this.#maxTotalMs = maxTotalMs !== undefined && maxTotalMs > timeoutMs ? maxTotalMs : undefined;
    this.#caller = caller;
    this.#until = this.#started + timeoutMs;
    if (caller?.aborted) this.#onCallerAbort();
    caller?.addEventListener("abort", this.#onCallerAbort, { once: true });
    this.#arm();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The longest the call may take. */
  get totalMs(): number {
    return this.#maxTotalMs ?? this.#timeoutMs;
  }

  /**
   * Options for one request of the call: the signal ends it at the deadline (which progress may push
   * back meanwhile); the SDK's own timeout only at the call's longest.
   */
  requestOptions(): { signal: AbortSignal; timeout: number } {
    return { signal: this.signal, timeout: Math.max(1, this.#started + this.totalMs - monotonicClock.now()) };
  }

  /** A sign of life: with a total allowed, the deadline moves to `timeoutMs` from now. */
  extend(): void {
    if (this.#maxTotalMs === undefined || this.signal.aborted) return;
    this.#until = Math.min(monotonicClock.now() + this.#timeoutMs, this.#started + this.#maxTotalMs);
    this.#arm();
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener("abort", this.#onCallerAbort);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () =>
        this.#controller.abort(
          new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: this.#timeoutMs }),
        ),
      Math.max(0, this.#until - monotonicClock.now()),
    );
  }
}

/** Wait `ms`, or until woken; rejects with the signal's reason when it aborts first. */
function nap(ms: number, signal: AbortSignal, onWake: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", aborted);
      resolve();
    };
    const aborted = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", aborted, { once: true });
    onWake(done);
  });
}
