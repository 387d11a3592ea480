import type {
  CallToolResult,
  Client,
  CompleteResult,
  GetPromptResult,
  ReadResourceResult,
  RequestOptions,
  Tool,
} from "@modelcontextprotocol/client";
import * as z from "zod";
import { SwitchyardError } from "../errors.js";
import { traceContextMeta } from "../telemetry/tracer.js";
import { declaresExtension, SKILLS_EXTENSION, TASKS_EXTENSION } from "./extensions.js";
import type { ServerSession } from "./session.js";
import type { ServerSubscriptions } from "./subscriptions.js";
import { CALL_TOOL_RESULT, declaresHeaders } from "./tool-result.js";

/** A progress notification of a call: how far it is, of how much, and what it is doing. */
export interface CallProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** What a completion is for: a prompt's argument, or a resource template's variable. */
export type CompletionReference =
  | { type: "ref/prompt"; name: string }
  | { type: "ref/resource"; uri: string };

/**
 * One request to one server, in the server's own names: what `ServerConnection.attempt` sends. The
 * call pipeline (`calls/`) builds it once a request is resolved, checked and admitted.
 */
export type ServerRequest =
  | {
      method: "tools/call";
      tool: string;
      args: Record<string, unknown>;
      /** Each progress notification the server sends for the call; none: progress is not asked for. */
      onProgress?: ((progress: CallProgress) => void) | undefined;
      /**
       * Told the id of the task the server created for the call, when it runs as one (or of the task
       * picked up); awaited before the task is followed, so what keeps the id has it while the task runs.
       */
      onTask?: ((taskId: string) => void | Promise<void>) | undefined;
      /**
       * A task the server made for an earlier attempt at this call (a plan run resumed): it is picked up
       * by its id and followed to its result, and the tool is not called. `TASK_NOT_FOUND` when the
       * server does not know it any more.
       */
      resumeTask?: string | undefined;
    }
  | { method: "resources/read"; uri: string }
  | { method: "resources/subscribe"; uri: string }
  | { method: "resources/unsubscribe"; uri: string }
  | { method: "prompts/get"; prompt: string; args: Record<string, string> }
  | {
      method: "completion/complete";
      ref: CompletionReference;
      argument: { name: string; value: string };
      context?: { arguments?: Record<string, string> };
    }
  | { method: "skills/list"; cursor?: string | undefined }
  | { method: "skills/get"; uri: string };

/** A `skills/list` answer as it came: its entries are checked one by one above the fleet (catalog/skills.ts). */
export interface SkillsListAnswer {
  skills: unknown[];
  nextCursor?: string | undefined;
}

/** A `skills/get` answer as it came. */
export interface SkillGetAnswer {
  skill: unknown;
}

const SKILLS_LIST_RESULT = z.looseObject({ skills: z.array(z.unknown()), nextCursor: z.string().optional() });
const SKILL_GET_RESULT = z.looseObject({ skill: z.unknown() });

/** The MCP methods a request can be. */
export type RequestMethod = ServerRequest["method"];

/** What each method resolves with. */
export interface ServerAnswers {
  "tools/call": CallToolResult;
  "resources/read": ReadResourceResult;
  "resources/subscribe": undefined;
  "resources/unsubscribe": undefined;
  "prompts/get": GetPromptResult;
  "completion/complete": CompleteResult["completion"];
  "skills/list": SkillsListAnswer;
  "skills/get": SkillGetAnswer;
}

/** How long one attempt may take, and what may end it sooner. */
export interface AttemptOptions {
  /** This attempt's timeout (the SDK's request timeout). */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /**
   * Let progress notifications push the timeout back, each by `timeoutMs`, up to this total (tool
   * calls). Off when absent.
   */
  maxTotalTimeoutMs?: number | undefined;
  /**
   * Asked once the server can take the request, just before it is sent: a refusal then fails the
   * attempt unsent. A lazy server started for a request lists its tools anew, and what it lists now
   * may be quarantined (the catalog's say, not the fleet's).
   */
  beforeSend?: (() => SwitchyardError | undefined) | undefined;
}

/** `tools/call orders_lookup`, `resources/read file:///a`: a request as messages and spans name it. */
export function describeRequest(request: ServerRequest): string {
  switch (request.method) {
    case "tools/call":
      return request.tool;
    case "prompts/get":
      return `prompts/get ${request.prompt}`;
    case "completion/complete":
      return `completion/complete ${request.ref.type === "ref/prompt" ? request.ref.name : request.ref.uri}`;
    case "skills/list":
      return "skills/list";
    default:
      return `${request.method} ${request.uri}`;
  }
}

/** What one session offers a request: its client, its task follower and the server's subscriptions. */
export interface RequestSession {
  /** The server's config key. */
  server: string;
  client: Client;
  session: ServerSession;
  /** The tools the server listed in this life (how each one is called is read from them). */
  tools: readonly Tool[];
  subscriptions: ServerSubscriptions;
}

/**
 * Send one request on a session: one attempt, no classification (the connection turns failures into
 * `SwitchyardError`s, once).
 */
export function sendRequest(
  request: ServerRequest,
  on: RequestSession,
  options: AttemptOptions,
): Promise<ServerAnswers[RequestMethod]> {
  const { client } = on;
  const missing = missingCapability(request, on);
  if (missing) return Promise.reject(missing);
  const sdk: RequestOptions = {
    timeout: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  switch (request.method) {
    case "tools/call":
      return callTool(request, on, options);
    case "resources/read":
      return client.readResource({ uri: request.uri }, sdk);
    case "prompts/get":
      return client.getPrompt({ name: request.prompt, arguments: request.args }, sdk);
    case "completion/complete":
      return client
        .complete(
          {
            ref: request.ref,
            argument: request.argument,
            ...(request.context ? { context: request.context } : {}),
          },
          sdk,
        )
        .then((result) => result.completion);
    case "resources/subscribe":
      return on.subscriptions.subscribe(client, request.uri, sdk).then(() => undefined);
    case "resources/unsubscribe":
      return on.subscriptions.unsubscribe(client, request.uri, sdk).then(() => undefined);
    case "skills/list":
      return client.request(
        { method: "skills/list", params: request.cursor !== undefined ? { cursor: request.cursor } : {} },
        SKILLS_LIST_RESULT,
        sdk,
      );
    case "skills/get":
      return client.request({ method: "skills/get", params: { uri: request.uri } }, SKILL_GET_RESULT, sdk);
  }
}

/** The capability each kind of request needs the server to have declared. */
const NEEDS: Partial<Record<RequestMethod, "resources" | "prompts" | "completions" | "skills">> = {
  "skills/list": "skills",
  "skills/get": "skills",
  "resources/read": "resources",
  "resources/subscribe": "resources",
  "prompts/get": "prompts",
  "completion/complete": "completions",
};

/**
 * A request the server did not declare it serves (no `completions`, no `prompts`): refused here, as
 * the limit of that server it is — never sent, never counted against it.
 */
function missingCapability(request: ServerRequest, on: RequestSession): SwitchyardError | undefined {
  const needed = NEEDS[request.method];
  if (needed === "skills") {
    if (declaresExtension(on.client.getServerCapabilities(), SKILLS_EXTENSION)) return undefined;
    return new SwitchyardError(
      "CAPABILITY_MISSING",
      `server ${on.server} does not offer skills (its capabilities.extensions lack "${SKILLS_EXTENSION}"), which ${describeRequest(request)} needs`,
      { server: on.server, capability: SKILLS_EXTENSION, delivery: "not_sent", serverFault: false },
    );
  }
  if (!needed || on.client.getServerCapabilities()?.[needed] !== undefined) return undefined;
  return new SwitchyardError(
    "CAPABILITY_MISSING",
    `server ${on.server} does not offer ${needed} (its capabilities lack "${needed}"), which ${describeRequest(request)} needs`,
    { server: on.server, capability: needed, delivery: "not_sent", serverFault: false },
  );
}

/** How a tool list's tools are called: the tools that run as tasks, those whose arguments go in headers. */
interface ToolCallPlan {
  taskOnly: ReadonlySet<string>;
  mirrored: ReadonlySet<string>;
}

/** Worked out once per tool list (a list is replaced, never changed). */
const plans = new WeakMap<readonly Tool[], ToolCallPlan>();

function planOf(tools: readonly Tool[]): ToolCallPlan {
  let plan = plans.get(tools);
  if (!plan) {
    const names = (keep: (tool: Tool) => boolean) => new Set(tools.filter(keep).map((listed) => listed.name));
    plan = {
      taskOnly: names((listed) => listed.execution?.taskSupport === "required"),
      mirrored: names(declaresHeaders),
    };
    plans.set(tools, plan);
  }
  return plan;
}

async function callTool(
  request: Extract<ServerRequest, { method: "tools/call" }>,
  on: RequestSession,
  options: AttemptOptions,
): Promise<CallToolResult> {
  const { client, session } = on;
  const { tool, args, onProgress, onTask, resumeTask } = request;
  const taskOptions = {
    ...(onTask ? { onTask } : {}),
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxTotalTimeoutMs !== undefined ? { maxTotalTimeoutMs: options.maxTotalTimeoutMs } : {}),
    ...(onProgress ? { onProgress } : {}),
  };
  if (resumeTask !== undefined) return session.tasks.resume(client, tool, resumeTask, taskOptions);
  const plan = planOf(on.tools);
  // A tool that must run as a task (execution.taskSupport "required", 2025-11-25) is followed to its
  // result; "optional" ones are called plainly (the server then runs them within the call). On
  // 2026-07-28 tools declare nothing: the server decides per call, for a client that declares the tasks
  // extension, so every call to a server that offers the extension may become a task.
  const modernTasks =
    client.getProtocolEra() === "modern" &&
    declaresExtension(client.getServerCapabilities(), TASKS_EXTENSION);
  if (plan.taskOnly.has(tool) || modernTasks) {
    return session.tasks.call(client, tool, args, taskOptions);
  }
  // The 2026-07-28 revision carries W3C trace context in the request's `_meta` (SEP-414).
  const modern = client.getDiscoverResult() !== undefined;
  const traceMeta = modern ? traceContextMeta() : undefined;
  const params = { name: tool, arguments: args, ...(traceMeta ? { _meta: traceMeta } : {}) };
  const extend = options.maxTotalTimeoutMs !== undefined && options.maxTotalTimeoutMs > options.timeoutMs;
  const onprogress = onProgress ? forwardProgress(onProgress) : extend ? ignoreProgress : undefined;
  const sdk: RequestOptions = {
    timeout: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    // Progress is asked for (a progress token goes with the call) when something hears it: the
    // caller's onProgress or an observer of call_progress events, or maxTotalTimeoutMs, which it
    // pushes back. Asked for with nobody listening, it costs the server work for nothing.
    ...(onprogress ? { onprogress } : {}),
    ...(extend ? { resetTimeoutOnProgress: true, maxTotalTimeout: options.maxTotalTimeoutMs! } : {}),
  };
  // The SDK's callTool is needed only to mirror arguments into headers (SEP-2243, 2026-07-28 over
  // HTTP). Everywhere else the request goes out as it would, its result checked once by
  // CALL_TOOL_RESULT and the output schema by the pipeline: the SDK's zod parse, response-cache
  // lookups and output validator were a quarter of the client's CPU per call.
  // (On the revision, whether or not a trace is active: the headers were once tied to the trace context.)
  const mirrored = modern && session.transportKind === "http" && plan.mirrored.has(tool);
  if (!mirrored) return client.request({ method: "tools/call", params }, CALL_TOOL_RESULT, sdk);
  return (await client.callTool(params, sdk)) as CallToolResult;
}

/** Progress nobody asked to see (the token still goes out, so servers may report it). */
function ignoreProgress(): void {}

function forwardProgress(onProgress: (progress: CallProgress) => void) {
  return ({
    progress,
    total,
    message,
  }: {
    progress: number;
    total?: number | undefined;
    message?: string | undefined;
  }) =>
    onProgress({
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    });
}
