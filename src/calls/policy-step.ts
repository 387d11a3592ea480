import { isSwitchyardError, messageOf, SwitchyardError } from "../errors.js";
import { type ApprovalHandler, askApproval, describeTarget, refusalFields } from "./approval.js";
import type { AuditWriter } from "./audit-writer.js";
import { describeIdentity } from "./identity.js";
import type { Decision, PolicyEngine, PolicyTarget } from "./policy.js";
import type { RequestContext } from "./request.js";

/** What the policy stage works with. */
export interface PolicyStageOptions {
  policy: PolicyEngine | undefined;
  onApproval?: ApprovalHandler | undefined;
  /** Where decision and approval rows go (the request's own row is the recorder's). */
  audit?: AuditWriter | undefined;
}

/**
 * The pipeline's policy stage, for every kind of request: the one engine that decides the listings
 * decides the request — `deny` fails with `POLICY_DENIED` naming the rule, `approve` waits for
 * `onApproval` within the request's deadline — and, with an audit log, one `decision` row per request
 * and one `approval` row when one was asked, each written before the request goes on (one that cannot
 * be, with `audit.onWriteError: "fail"`, fails it before anything is sent). Without a policy it admits
 * everything and writes nothing.
 */
export async function admit(request: RequestContext, target: PolicyTarget, options: PolicyStageOptions) {
  const { policy, audit } = options;
  if (!policy) return;
  const decision = policy.decide({
    identity: request.identity,
    tool: target,
    tags: policy.tagsOf(target),
    arguments: request.args,
  });
  const unwritten = await audit?.write(request, {
    kind: "decision",
    outcome: decision.effect === "approve" ? "approval_required" : decision.effect,
    ...(decision.rule !== undefined ? { rule: decision.rule } : {}),
    ...(decision.reason !== undefined ? { summary: decision.reason } : {}),
  });
  if (unwritten) throw unwritten;
  if (decision.effect === "deny") throw denied(request, decision);
  if (decision.effect !== "approve") return;
  let answer: { approved: boolean; reason?: string };
  try {
    answer = await askApproval(request, decision, options.onApproval);
  } catch (error) {
    // No handler, no answer within the deadline, or cancelled: refused, and said so in the log.
    await audit?.write(request, {
      kind: "approval",
      outcome: "refused",
      ...(decision.rule !== undefined ? { rule: decision.rule } : {}),
      summary: `${isSwitchyardError(error) ? error.code : "the approval handler failed"}: ${messageOf(error).slice(0, 200)}`,
    });
    throw error;
  }
  const approvalUnwritten = await audit?.write(request, {
    kind: "approval",
    outcome: answer.approved ? "approved" : "refused",
    ...(decision.rule !== undefined ? { rule: decision.rule } : {}),
    ...(answer.reason !== undefined ? { summary: answer.reason } : {}),
  });
  if (approvalUnwritten) throw approvalUnwritten;
  if (!answer.approved) throw refused(request, decision, answer.reason);
}

function denied(request: RequestContext, decision: Decision): SwitchyardError {
  const by = decision.rule ? `rule ${decision.rule}` : "the policy's default";
  return new SwitchyardError(
    "POLICY_DENIED",
    `${describeTarget(request)} is denied to ${describeIdentity(request.identity)} by ${by}${decision.reason ? `: ${decision.reason}` : ""}; ask an administrator to change the policy, or ${request.kind === "tool" ? "call it" : "ask for it"} as an identity it allows`,
    refusalFields(request),
  );
}

function refused(request: RequestContext, decision: Decision, reason: string | undefined): SwitchyardError {
  return new SwitchyardError(
    "POLICY_DENIED",
    `${describeTarget(request)} needs approval (rule ${decision.rule ?? "policy.default"}) and it was refused${reason ? `: ${reason}` : ""}`,
    refusalFields(request),
  );
}
