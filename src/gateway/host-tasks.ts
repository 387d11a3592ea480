// Tasks passed through to hosts that speak the tasks extension (2026-07-28, SEP-2663,
// `io.modelcontextprotocol/tasks`): a call its server runs as a task is answered with a task of the
// gateway's own — an unguessable id bound to the identity that made it — that the host follows with
// tasks/get, answers with tasks/update and ends with tasks/cancel. The call itself runs on in the
// Switchyard (its one request path: policy, audit, records), which follows the server's task.

import { randomBytes } from "node:crypto";
import type { CallToolResult, ClientCapabilities, Server, ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";
import {
  DEFAULT_GATEWAY_MAX_TASKS,
  DEFAULT_GATEWAY_MAX_TASKS_PER_USER,
  DEFAULT_GATEWAY_TASK_TTL_MS,
} from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import { declaresExtension, TASKS_EXTENSION } from "../fleet/extensions.js";
import { protocolError } from "./errors.js";
import { askable, inputRequestsOf } from "./questions.js";
import type { GatewayCall } from "./relay.js";

/** Who a task belongs to: the user, and whether a token or login said so (else the gateway's own identity). */
export interface TaskOwner {
  user: string;
  authenticated: boolean;
}

/** How a task's call ended, as the host sees it: a result (a tool error among them), or a JSON-RPC error. */
export type TaskEnd =
  | { status: "completed"; result: CallToolResult }
  | { status: "failed"; error: { code: number; message: string } }
  | { status: "cancelled" };

export interface HostTasksOptions {
  /** How a call's settled result becomes what the host is told (the gateway's redaction and `_meta`). */
  end: (result: Promise<unknown>) => Promise<TaskEnd>;
  /** Default {@link DEFAULT_GATEWAY_TASK_TTL_MS}. */
  ttlMs?: number;
  /** Default {@link DEFAULT_GATEWAY_MAX_TASKS}. */
  maxTasks?: number;
  /** Of those, one identity's at most; default {@link DEFAULT_GATEWAY_MAX_TASKS_PER_USER}. */
  maxTasksPerUser?: number;
}

interface HostTask {
  id: string;
  owner: TaskOwner;
  call: GatewayCall;
  /** What the host declared when it made the task: which questions it can answer. */
  can: ClientCapabilities;
  createdAt: string;
  lastUpdatedAt: string;
  statusMessage: string | undefined;
  cancelled: boolean;
  end: TaskEnd | undefined;
  expiry: NodeJS.Timeout;
}

/** Whether a 2026-07-28 request declares the tasks extension in its per-request client capabilities. */
export function declaresTasks(can: ClientCapabilities | undefined): boolean {
  return declaresExtension(can, TASKS_EXTENSION);
}

const taskParams = z.looseObject({ taskId: z.string() });
// The SDK lifts `inputResponses` out of every 2026-07-28 request's params (`ctx.mcpReq.inputResponses`).
const updateParams = z.looseObject({
  taskId: z.string(),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The extension's requests on one server instance — `tasks/get`, `tasks/update`, `tasks/cancel` —
 * answered from `tasks` for the identity of each request. An unknown task and another owner's are the
 * same JSON-RPC error (Invalid params).
 */
export function serveHostTasks(
  server: Server,
  tasks: HostTasks,
  ownerOf: (ctx: ServerContext) => TaskOwner,
  redact: (text: string) => string,
): void {
  const answer = async <T>(work: () => T | Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw protocolError(error, redact);
    }
  };
  server.setRequestHandler("tasks/get", { params: taskParams }, (params, ctx) =>
    answer(() => tasks.get(params.taskId, ownerOf(ctx))),
  );
  server.setRequestHandler("tasks/update", { params: updateParams }, (params, ctx) =>
    answer(() => {
      tasks.update(params.taskId, ownerOf(ctx), ctx.mcpReq.inputResponses ?? params.inputResponses);
      return {};
    }),
  );
  server.setRequestHandler("tasks/cancel", { params: taskParams }, (params, ctx) =>
    answer(() => {
      tasks.cancel(params.taskId, ownerOf(ctx));
      return {};
    }),
  );
}

/**
 * The tasks one gateway holds for its hosts, by the gateway's own ids (128 random bits: a host can reach
 * only the tasks it was given, never another server's or another user's by guessing). Each is kept
 * `ttlMs` from its creation, at most `maxTasks` of them and `maxTasksPerUser` of one identity's.
 */
export class HostTasks {
  readonly #tasks = new Map<string, HostTask>();
  readonly #options: HostTasksOptions;
  readonly #ttlMs: number;
  readonly #maxTasks: number;
  readonly #maxPerUser: number;

  constructor(options: HostTasksOptions) {
    this.#options = options;
    this.#ttlMs = options.ttlMs ?? DEFAULT_GATEWAY_TASK_TTL_MS;
    this.#maxTasks = options.maxTasks ?? DEFAULT_GATEWAY_MAX_TASKS;
    this.#maxPerUser = options.maxTasksPerUser ?? DEFAULT_GATEWAY_MAX_TASKS_PER_USER;
  }

  /** Tasks held now. */
  get size(): number {
    return this.#tasks.size;
  }

  /**
   * A task for `call` (running; its server made it a task), owned by `owner`: the `CreateTaskResult` the
   * host is answered with, or `undefined` when the owner's places, or the table, are full of running
   * tasks (bridge the call).
   */
  create(call: GatewayCall, owner: TaskOwner, can: ClientCapabilities): Record<string, unknown> | undefined {
    const owners = (task: HostTask) => task.owner.user === owner.user;
    let held = 0;
    for (const task of this.#tasks.values()) if (owners(task)) held += 1;
    if (held >= this.#maxPerUser && !this.#evictOneEnded(owners)) return undefined;
    if (this.#tasks.size >= this.#maxTasks && !this.#evictOneEnded()) return undefined;
    const now = new Date().toISOString();
    const id = randomBytes(16).toString("base64url");
    const task: HostTask = {
      id,
      owner,
      call,
      can,
      createdAt: now,
      lastUpdatedAt: now,
      statusMessage: undefined,
      cancelled: false,
      end: undefined,
      expiry: setTimeout(() => this.#drop(task), this.#ttlMs).unref(),
    };
    this.#tasks.set(id, task);
    // The task's statuses, as the fleet tells them (a progress message each), are its status messages.
    call.progress = (progress) => {
      if (progress.message === undefined || progress.message === task.statusMessage) return;
      task.statusMessage = progress.message;
      task.lastUpdatedAt = new Date().toISOString();
    };
    call.log = undefined;
    call.result.then(
      () => this.#settle(task),
      () => this.#settle(task),
    );
    return { resultType: "task", ...this.#plain(task, "working") };
  }

  /**
   * `tasks/get`: the task as the extension details it (its questions while it waits for input, its
   * result or error once it ended).
   * @throws SwitchyardError `INVALID_INPUT` when no task of that id is the owner's.
   */
  async get(id: unknown, owner: TaskOwner): Promise<Record<string, unknown>> {
    const task = this.#taskOf(id, owner);
    if (task.call.settled) await this.#settle(task);
    const end = task.end;
    if (end?.status === "completed")
      return { ...this.#plain(task, "completed"), result: { ...end.result, resultType: "complete" } };
    if (end?.status === "failed") return { ...this.#plain(task, "failed"), error: end.error };
    if (end) return this.#plain(task, "cancelled");
    const questions = askable(task.call.questions, task.can);
    if (!questions.length) return this.#plain(task, "working");
    return { ...this.#plain(task, "input_required"), inputRequests: inputRequestsOf(questions) };
  }

  /**
   * `tasks/update`: the host's answers to the task's questions.
   * @throws SwitchyardError `INVALID_INPUT` when no task of that id is the owner's.
   */
  update(id: unknown, owner: TaskOwner, responses: Record<string, unknown> | undefined): void {
    this.#taskOf(id, owner).call.answer(responses);
  }

  /**
   * `tasks/cancel`: the call ends, and with it the server's task (the fleet sends its `tasks/cancel`).
   * @throws SwitchyardError `INVALID_INPUT` when no task of that id is the owner's.
   */
  cancel(id: unknown, owner: TaskOwner): void {
    const task = this.#taskOf(id, owner);
    if (task.call.settled) return;
    task.cancelled = true;
    task.call.abort.abort(new SwitchyardError("CANCELLED", `the host cancelled task ${task.id}`));
  }

  /** Every task dropped, running ones cancelled (the gateway closes). */
  close(): void {
    for (const task of [...this.#tasks.values()]) this.#drop(task, "was cancelled: the gateway is closing");
  }

  /** The same error for a task that is not there and for one that is someone else's: existence is not told. */
  #taskOf(id: unknown, owner: TaskOwner): HostTask {
    const task = typeof id === "string" ? this.#tasks.get(id) : undefined;
    if (!task || task.owner.user !== owner.user || task.owner.authenticated !== owner.authenticated)
      throw new SwitchyardError(
        "INVALID_INPUT",
        `Unknown task: ${String(id)}; this gateway holds no such task for you (it expired, or another gateway replica made it): call the tool again`,
      );
    return task;
  }

  #plain(task: HostTask, status: string): Record<string, unknown> {
    return {
      taskId: task.id,
      status,
      ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: this.#ttlMs,
    };
  }

  async #settle(task: HostTask): Promise<void> {
    if (task.end) return;
    const end: TaskEnd = task.cancelled ? { status: "cancelled" } : await this.#options.end(task.call.result);
    if (task.end) return;
    task.end = end;
    task.lastUpdatedAt = new Date().toISOString();
    task.call.progress = undefined;
  }

  /** Drop the oldest ended task (of those `among` picks); false when none has ended. */
  #evictOneEnded(among: (task: HostTask) => boolean = () => true): boolean {
    for (const task of this.#tasks.values()) {
      if (!task.call.settled || !among(task)) continue;
      this.#drop(task);
      return true;
    }
    return false;
  }

  #drop(task: HostTask, why = `outlived its ${this.#ttlMs} ms and was dropped`): void {
    clearTimeout(task.expiry);
    this.#tasks.delete(task.id);
    if (!task.call.settled) task.call.abort.abort(new SwitchyardError("CANCELLED", `task ${task.id} ${why}`));
  }
}
