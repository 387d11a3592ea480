import { abortable } from "../abort.js";
import { SwitchyardError } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";
import type { Decision } from "./policy.js";
import type { RequestContext, RequestKind } from "./request.js";

/** What an approval handler is asked: who wants to do what, with which arguments, and which rule asked. */
export interface ApprovalRequest {
  identity: Identity;
  /** What is asked: a tool call, a resource read or subscription, a prompt, a completion. */
  kind: RequestKind;
  /** The catalog name (a tool, a prompt) or the URI; `server` and `tool` say where it goes. */
  name: string;
  server: string;
  /** The server's own name of it: the tool's, the prompt's, or the URI. */
  tool: string;
  /** The arguments as they will be sent (a resource request's: `{ uri }`). */
  arguments: Record<string, unknown>;
  /** The rule that asked for approval. */
  rule?: string;
  reason?: string;
  callId: string;
  runId?: string;
  /** Aborts when the request's deadline passes or it is cancelled: stop asking then. */
  signal: AbortSignal;
}

/** An approval handler's answer: `true`/`false`, or with the reason given. */
export type ApprovalAnswer = boolean | { approved: boolean; reason?: string };

/** Decides requests that need approval (`effect: "approve"`): the `onApproval` option of `Switchyard.connect`. */
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** `orders_refund (tool refund on server orders)`, `resources/read notes://a on server notes`. */
export function describeTarget(request: RequestContext): string {
  if (request.kind === "tool") return `${request.name} (tool ${request.tool} on server ${request.server})`;
  if (request.kind === "prompt")
    return `${request.name} (prompt ${request.tool} on server ${request.server})`;
  return `${request.method} ${request.name} on server ${request.server}`;
}

/** The fields of a refusal: where it was going, and that nothing was sent. */
export function refusalFields(request: RequestContext) {
  return {
    server: request.server,
    ...(request.kind === "tool" ? { tool: request.tool } : {}),
    delivery: "final" as const,
    serverFault: false,
  };
}

/**
 * Ask the approval handler, within the request's deadline (the wait is part of it).
 * @throws SwitchyardError `POLICY_DENIED` without a handler, `TIMEOUT` when the deadline passes first,
 *   `CANCELLED` when the request's signal aborts first (nothing was sent, either way).
 */
export async function askApproval(
  request: RequestContext,
  decision: Decision,
  handler: ApprovalHandler | undefined,
): Promise<{ approved: boolean; reason?: string }> {
  const what = describeTarget(request);
  if (!handler) {
    throw new SwitchyardError(
      "POLICY_DENIED",
      `${what} needs approval (rule ${decision.rule ?? "policy.default"}${decision.reason ? `: ${decision.reason}` : ""}) and no one could give it: no approval handler (onApproval) is set; give one, or change the rule's effect`,
      refusalFields(request),
    );
  }
  const { deadline } = request;
  const timeout = () =>
    new SwitchyardError(
      "TIMEOUT",
      `${what} waited for approval longer than its deadline (${deadline.limitMs} ms); nothing was sent — raise timeoutMs to give the approver more time`,
      { ...refusalFields(request), delivery: "not_sent" },
    );
  const caller = request.options.signal;
  const cancelled = () =>
    new SwitchyardError(
      "CANCELLED",
      `${request.name} was cancelled while it waited for approval; nothing was sent`,
      {
        ...refusalFields(request),
        delivery: "not_sent",
      },
    );
  const stop = deadline.signalWith(caller);
  const answer = await abortable(
    Promise.resolve().then(() =>
      handler({
        identity: request.identity,
        kind: request.kind,
        name: request.name,
        server: request.server,
        tool: request.tool,
        arguments: request.args,
        ...(decision.rule !== undefined ? { rule: decision.rule } : {}),
        ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
        callId: request.id,
        ...(request.runId !== undefined ? { runId: request.runId } : {}),
        signal: stop,
      }),
    ),
    stop,
    () => (caller?.aborted ? cancelled() : timeout()),
  );
  // A handler that blocked (a synchronous terminal prompt) may answer after the deadline.
  if (caller?.aborted) throw cancelled();
  if (deadline.passed) throw timeout();
  return typeof answer === "boolean"
    ? { approved: answer }
    : {
        approved: answer?.approved === true,
        ...(typeof answer?.reason === "string" ? { reason: answer.reason } : {}),
      };
}
