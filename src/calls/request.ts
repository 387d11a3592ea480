import type { GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/client";
import type { Deadline } from "../abort.js";
import type { CatalogEntry } from "../catalog/catalog.js";
import type { CallPriority } from "../config/vocabulary.js";
import type { SwitchyardError } from "../errors.js";
import type {
  CallProgress,
  CompletionReference,
  RequestMethod,
  SkillGetAnswer,
  SkillsListAnswer,
} from "../fleet/requests.js";
import type { Identity } from "../telemetry/audit.js";
import type { CallRecord, RecordedError, SwitchyardEvent } from "../telemetry/events.js";
import type { ToolResult } from "./normalize.js";
import type { JsonSchema } from "./validate.js";

export type { CallPriority } from "../config/vocabulary.js";
export type { CallProgress, CompletionReference, RequestMethod } from "../fleet/requests.js";

/**
 * What a server can be asked, by Switchyard's name for it: a tool call, a resource read, a resource
 * subscription (and its end), a prompt, a completion of an argument, the skills it serves (`skills`:
 * one page of `skills/list`) and one skill's entry (`skill`: `skills/get`), under the Skills extension.
 */
export type RequestKind =
  | "tool"
  | "resource"
  | "subscribe"
  | "unsubscribe"
  | "prompt"
  | "complete"
  | "skills"
  | "skill";

/** The MCP method each kind of request sends. */
export const REQUEST_METHODS: Readonly<Record<RequestKind, RequestMethod>> = Object.freeze({
  tool: "tools/call",
  resource: "resources/read",
  subscribe: "resources/subscribe",
  unsubscribe: "resources/unsubscribe",
  prompt: "prompts/get",
  complete: "completion/complete",
  skills: "skills/list",
  skill: "skills/get",
});

/** Options every request takes. */
export interface RequestOptions {
  /** The request's deadline, approval and queueing included; default: the server's `timeoutMs` (60 s). */
  timeoutMs?: number;
  /**
   * How urgent the request is: with a fleet-wide limit (`limits.inFlight`) and in its server's queue,
   * `high` is served before `normal` before `low` (first come first served within one); default `normal`.
   */
  priority?: CallPriority;
  /** Cancels the request: the server is sent `notifications/cancelled`, the request ends with `CANCELLED`. */
  signal?: AbortSignal;
  /** Who the request is for, as the policy sees it; default: the Switchyard's identity. */
  identity?: Identity;
  /** The run the request belongs to (an agent or plan run), for records, events, logs and wire records. */
  runId?: string;
  /** The request's id (the model's `tool_call_id`, a plan step's id); default: a new one. */
  callId?: string;
  /** The agent step that asked for it. */
  step?: number;
  /** Hears this request's events too, after the Switchyard's observers (a run's own listener), redacted. */
  onEvent?: (event: SwitchyardEvent) => void;
}

/** Options for one tool call. */
export interface CallToolOptions extends RequestOptions {
  /** Each progress notification the server sends for this call. */
  onProgress?: (progress: CallProgress) => void;
  /** Told the id of the task the server runs the call as (the tasks extension), once it made one. */
  onTask?: (taskId: string) => void;
}

/** A tool call as a run's checks see it, before it is validated or sent. */
export interface CallToCheck {
  /** The catalog name called. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  /** The arguments as given (parsed from the model's JSON), not yet checked against the schema. */
  args: unknown;
}

/** A tool a run answers itself (an agent's `read_result`, `search_tools`): never sent to a server. */
export interface LocalCall {
  /** The `server` its records name. */
  server: string;
  description: string;
  /** Checked before `run` as a server tool's are. */
  inputSchema: JsonSchema;
  run(args: Record<string, unknown>): ToolResult | Promise<ToolResult>;
}

/** What a run adds to the tool calls it makes (an agent's, a plan's): all of it decided here, recorded once. */
export interface RunCallOptions {
  /** The arguments as the model wrote them (JSON text), parsed here: not JSON is `INVALID_ARGUMENTS`. */
  argumentsText?: string;
  /**
   * The run's own checks (an agent's guards, a plan's skipped steps), after the name is resolved and
   * before anything else: an error refuses the call (`REFUSED`, the record keeps the code given).
   */
  check?: (call: CallToCheck) => RecordedError | undefined;
  /** Tools the run answers itself, looked up before the catalog (a local name hides a catalog tool). */
  local?: (name: string) => LocalCall | undefined;
  /**
   * A task its server made for an earlier attempt at this call (a plan run resumed, by the record kept
   * of it): the call picks it up by its id and follows it to its result instead of calling the tool
   * again, through every stage of the pipeline. When the server no longer knows the task, the tool is
   * called anew only when it is safe to repeat (`readOnlyHint` or `idempotentHint`); otherwise the call
   * fails with `TASK_NOT_FOUND`, which names the task and its server.
   */
  resumeTask?: { taskId: string; server: string };
}

/** One request, as given to the pipeline (`Switchyard.request`); each public method builds one. */
export type RequestInput =
  | ({ kind: "tool"; name: string; arguments?: unknown } & CallToolOptions & RunCallOptions)
  | ({ kind: "resource" | "subscribe" | "unsubscribe"; uri: string; server?: string } & RequestOptions)
  | ({ kind: "prompt"; name: string; arguments?: Record<string, unknown> } & RequestOptions)
  | ({
      kind: "complete";
      ref: CompletionReference;
      argument: { name: string; value: string };
      /** Arguments already given for the prompt or template, for servers that complete in context. */
      context?: { arguments?: Record<string, string> };
      /** The server to ask about a URI ref, when several offer it. */
      server?: string;
    } & RequestOptions)
  | ({ kind: "skills"; server: string; cursor?: string } & RequestOptions)
  | ({ kind: "skill"; server: string; uri: string } & RequestOptions);

/** One page of a server's `skills/list`, its entries as they came (catalog/skills.ts checks them). */
export interface SkillsPage extends SkillsListAnswer {
  server: string;
}

/** A server's `skills/get` answer, its entry as it came. */
export interface SkillAnswer extends SkillGetAnswer {
  server: string;
}

/** What `readResource` resolves with: the server's contents (text, or base64 `blob`), and which server. */
export interface ResourceContents {
  server: string;
  uri: string;
  contents: ReadResourceResult["contents"];
}

/** What `getPrompt` resolves with: the prompt's messages, and where it came from. */
export interface PromptResult {
  name: string;
  server: string;
  prompt: string;
  description?: string;
  messages: GetPromptResult["messages"];
}

/** What `complete` resolves with: the server's suggestions for the argument's value. */
export interface CompletionResult {
  server: string;
  values: string[];
  /** How many suggestions there are in all, when the server says. */
  total?: number;
  /** More suggestions than `values` exist. */
  hasMore?: boolean;
}

/** What each kind of request resolves with. */
export interface RequestResults {
  tool: ToolResult;
  resource: ResourceContents;
  subscribe: undefined;
  unsubscribe: undefined;
  prompt: PromptResult;
  complete: CompletionResult;
  skills: SkillsPage;
  skill: SkillAnswer;
}

/** Any request's result. */
export type RequestResult = RequestResults[RequestKind];

/**
 * How a request ended: its result, or why not — and its record either way (what `call_finished`
 * reported). A tool that answered `isError` is `ok` here (the call worked); its record says `TOOL_ERROR`.
 */
export type RequestOutcome<T = RequestResult> =
  | { ok: true; result: T; record: CallRecord }
  | { ok: false; error: SwitchyardError; record: CallRecord };

/**
 * One request on its way through the pipeline, as the policy, the approval handler and interceptors
 * see it. `kind` says which: a tool call carries its catalog `entry`; a resource request its `uri`.
 */
export interface RequestContext {
  readonly id: string;
  readonly kind: RequestKind;
  readonly method: RequestMethod;
  /** The catalog name (a tool or a prompt), or the URI (a resource). */
  readonly name: string;
  /** The server's config key. */
  readonly server: string;
  /** The server's own name of what is asked: the tool's or the prompt's name, or the resource's URI. */
  readonly tool: string;
  /** A tool call's catalog entry. */
  readonly entry?: CatalogEntry;
  /** A resource request's URI, as the server knows it. */
  readonly uri?: string;
  /**
   * The arguments as they will be sent: a tool's (validated and coerced), a prompt's (strings), a
   * completion's `{ argument, value }`, a resource request's `{ uri }`. An interceptor may replace a
   * tool's or a prompt's; they are checked again.
   */
  args: Record<string, unknown>;
  /** Who the request is for. */
  readonly identity: Identity;
  readonly runId?: string;
  readonly step?: number;
  readonly options: Readonly<RequestOptions>;
  /** When the request must end: what an approval or an interceptor spends of it, the server does not get. */
  readonly deadline: Deadline;
}

/**
 * A step of every request, plugged into the pipeline (the policy, audit, tracing, the gateway, user
 * code). Interceptors run in the order they were added: `before` after the request is resolved and its
 * arguments checked, and after the policy admitted it, before anything is sent; `after` on the result;
 * `onError` when the request fails at any stage after it was resolved. `request.kind` says what it is.
 */
export interface RequestInterceptor {
  /**
   * Look at a request before it is sent. Throw to refuse it: a `SwitchyardError` goes to the caller as
   * it is, anything else as `POLICY_DENIED` with its message. Return an object to send those arguments
   * instead (tool calls and prompts; they are checked again).
   */
  before?(
    request: RequestContext,
  ): undefined | Record<string, unknown> | Promise<undefined | Record<string, unknown>>;
  /** Look at a result; return one to hand back instead (of the same kind). */
  after?(
    request: RequestContext,
    result: RequestResult,
  ): undefined | RequestResult | Promise<undefined | RequestResult>;
  /** The request failed. For observing: the error goes on to the caller as it is. */
  onError?(request: RequestContext, error: SwitchyardError): void;
}
