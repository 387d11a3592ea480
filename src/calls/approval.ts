import { isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import type { AuditEntry, AuditSink, Identity } from "../telemetry/audit.js";
import type { Logger } from "../telemetry/logger.js";
import type { ToolResult } from "./normalize.js";
import type { CallContext, CallInterceptor } from "./pipeline.js";
import type { Decision, PolicyEngine } from "./policy.js";

// The policy's step in the call pipeline: decide, wait for an approval when the decision asks for one
// (within the call's deadline), and write what happened to the audit log.

/** What an approval handler is asked: who wants to call what, with which arguments, and which rule asked. */
export interface ApprovalRequest {
  identity: Identity;
  /** The catalog name; `server` and `tool` say where it goes. */
  name: string;
  server: string;
  tool: string;
  /** The arguments as they will be sent. */
  arguments: Record<string, unknown>;
  /** The rule that asked for approval. */
  rule?: string;
  reason?: string;
  callId: string;
  runId?: string;
  /** Aborts when the call's deadline passes or the call is cancelled: stop asking then. */
  signal: AbortSignal;
}

/** An approval handler's answer: `true`/`false`, or with the reason given. */
export type ApprovalAnswer = boolean | { approved: boolean; reason?: string };

/** Decides calls that need approval (`effect: "approve"`): the `onApproval` option of `Switchyard.connect`. */
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** What the policy step works with. */
export interface PolicyStepOptions {
  policy: PolicyEngine | undefined;
  /** Who a call is for when its options say nobody. */
  identity: Identity;
  onApproval?: ApprovalHandler;
  audit?: AuditSink;
  /** Applied to the arguments before they go to the audit log; default: none (the identity function). */
  redact?: (value: unknown) => unknown;
  /** A server's call deadline when a call sets none. */
  timeoutFor(server: string): number;
  logger: Logger;
}

interface Admitted {
  identity: Identity;
  started: number;
}

/**
 * The pipeline's policy step: every call is decided by the one engine that decides the listings too;
 * `deny` fails with `POLICY_DENIED` naming the rule, `approve` waits for `onApproval`. With an audit
 * sink, one `decision` row per call, one `approval` row when one was asked, one `call` row per call let
 * through. Without a policy and a sink it does nothing.
 */
export function policyStep(options: PolicyStepOptions): CallInterceptor {
  const { policy, audit } = options;
  const redact = options.redact ?? ((value: unknown) => value);
  const admitted = new WeakMap<CallContext, Admitted>();
  const write = (entry: AuditEntry) => {
    if (!audit) return;
    try {
      const written = audit.append(entry);
      if (written instanceof Promise)
        written.catch((error) => options.logger.error({ error: String(error) }, "audit log: append failed"));
    } catch (error) {
      options.logger.error({ error: String(error) }, "audit log: append failed");
    }
  };
  const base = (call: CallContext, identity: Identity) => ({
    time: new Date().toISOString(),
    identity,
    server: call.server,
    tool: call.tool,
    name: call.name,
    arguments: redact(call.args),
    callId: call.id,
    ...(call.runId !== undefined ? { runId: call.runId } : {}),
  });
  const finished = (call: CallContext, outcome: string, summary?: string) => {
    const seen = admitted.get(call);
    if (!seen) return;
    admitted.delete(call);
    write({
      ...base(call, seen.identity),
      kind: "call",
      outcome,
      ms: Math.round((performance.now() - seen.started) * 1000) / 1000,
      ...(summary !== undefined ? { summary } : {}),
    });
  };
  return {
    async before(call) {
      const identity = call.options.identity ?? options.identity;
      const started = performance.now();
      if (policy) {
        const decision = policy.decide({
          identity,
          tool: call.entry,
          tags: policy.tagsOf(call.entry),
          arguments: call.args,
        });
        write({
          ...base(call, identity),
          kind: "decision",
          outcome: decision.effect === "approve" ? "approval_required" : decision.effect,
          ...(decision.rule !== undefined ? { rule: decision.rule } : {}),
          ...(decision.reason !== undefined ? { summary: decision.reason } : {}),
        });
        if (decision.effect === "deny") throw denied(call, identity, decision);
        if (decision.effect === "approve") {
          let answer: { approved: boolean; reason?: string };
          try {
            answer = await askApproval(call, identity, decision, options);
          } catch (error) {
            // No handler, no answer within the deadline, or cancelled: refused, and said so in the log.
            write({
              ...base(call, identity),
              kind: "approval",
              outcome: "refused",
              ...(decision.rule !== undefined ? { rule: decision.rule } : {}),
              summary: `${isSwitchyardError(error) ? error.code : "the approval handler failed"}: ${messageOf(error).slice(0, 200)}`,
            });
            throw error;
          }
          write({
            ...base(call, identity),
            kind: "approval",
            outcome: answer.approved ? "approved" : "refused",
            ...(decision.rule !== undefined ? { rule: decision.rule } : {}),
            ...(answer.reason !== undefined ? { summary: answer.reason } : {}),
          });
          if (!answer.approved) throw refused(call, decision, answer.reason);
        }
      }
      if (audit) admitted.set(call, { identity, started });
      return undefined;
    },
    after(call, result: ToolResult) {
      finished(
        call,
        result.isError ? "tool_error" : "ok",
        result.isError ? result.text.slice(0, 200) : undefined,
      );
      return undefined;
    },
    onError(call, error) {
      finished(call, error.code, error.message.slice(0, 200));
    },
  };
}

const fields = (call: CallContext) => ({
  server: call.server,
  tool: call.tool,
  delivery: "final" as const,
  serverFault: false,
});

function denied(call: CallContext, identity: Identity, decision: Decision): SwitchyardError {
  const by = decision.rule ? `rule ${decision.rule}` : "the policy's default";
  const who = `user ${identity.user}${identity.roles.length ? ` (roles ${identity.roles.join(", ")})` : " (no roles)"}`;
  return new SwitchyardError(
    "POLICY_DENIED",
    `${call.name} (tool ${call.tool} on server ${call.server}) is denied to ${who} by ${by}${decision.reason ? `: ${decision.reason}` : ""}; ask an administrator to change the policy, or call it as an identity it allows`,
    fields(call),
  );
}

function refused(call: CallContext, decision: Decision, reason: string | undefined): SwitchyardError {
  return new SwitchyardError(
    "POLICY_DENIED",
    `${call.name} (tool ${call.tool} on server ${call.server}) needs approval (rule ${decision.rule ?? "policy.default"}) and it was refused${reason ? `: ${reason}` : ""}`,
    fields(call),
  );
}

/** Ask the approval handler, within the call's deadline; a deadline that passes is `TIMEOUT`. */
async function askApproval(
  call: CallContext,
  identity: Identity,
  decision: Decision,
  options: PolicyStepOptions,
): Promise<{ approved: boolean; reason?: string }> {
  const handler = options.onApproval;
  if (!handler) {
    throw new SwitchyardError(
      "POLICY_DENIED",
      `${call.name} (tool ${call.tool} on server ${call.server}) needs approval (rule ${decision.rule ?? "policy.default"}${decision.reason ? `: ${decision.reason}` : ""}) and no one could give it: no approval handler (onApproval) is set; give one, or change the rule's effect`,
      fields(call),
    );
  }
  const timeoutMs = call.options.timeoutMs ?? options.timeoutFor(call.server);
  const deadline = performance.now() + timeoutMs;
  const controller = new AbortController();
  const timeout = () =>
    new SwitchyardError(
      "TIMEOUT",
      `${call.name} (tool ${call.tool} on server ${call.server}) waited for approval longer than its deadline (${timeoutMs} ms); nothing was sent — raise timeoutMs to give the approver more time`,
      { ...fields(call), delivery: "not_sent" },
    );
  const cancelled = () =>
    new SwitchyardError(
      "CANCELLED",
      `${call.name} was cancelled while it waited for approval; nothing was sent`,
      {
        ...fields(call),
        delivery: "not_sent",
      },
    );
  const outer = call.options.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort(timeout());
      reject(timeout());
    }, timeoutMs);
    timer.unref?.();
    if (outer) {
      onAbort = () => {
        controller.abort(cancelled());
        reject(cancelled());
      };
      if (outer.aborted) onAbort();
      else outer.addEventListener("abort", onAbort, { once: true });
    }
  });
  try {
    const answer = await Promise.race([
      Promise.resolve(
        handler({
          identity,
          name: call.name,
          server: call.server,
          tool: call.tool,
          arguments: call.args,
          ...(decision.rule !== undefined ? { rule: decision.rule } : {}),
          ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
          callId: call.id,
          ...(call.runId !== undefined ? { runId: call.runId } : {}),
          signal: controller.signal,
        }),
      ),
      stopped,
    ]);
    // A handler that blocked (a synchronous terminal prompt) may answer after the deadline.
    if (outer?.aborted) throw cancelled();
    const left = deadline - performance.now();
    if (left <= 0) throw timeout();
    call.deadline = Math.min(call.deadline ?? Number.POSITIVE_INFINITY, deadline);
    return typeof answer === "boolean"
      ? { approved: answer }
      : {
          approved: answer?.approved === true,
          ...(typeof answer?.reason === "string" ? { reason: answer.reason } : {}),
        };
  } finally {
    clearTimeout(timer);
    if (onAbort) outer?.removeEventListener("abort", onAbort);
    stopped.catch(() => undefined);
  }
}
