// The questions a server asks during a gateway call, as the client sees them: which it can answer (by the
// capabilities it declared), the ones it cannot refused, the rest as `inputRequests` entries.

import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequest,
  inputRequired,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { SwitchyardError } from "../errors.js";
import type { Question } from "./relay.js";

/** What a 2026-07-28 request declares (its `_meta` envelope); nothing for a 2025 one. */
export function envelopeCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/** Whether a client that declared `can` can answer a question. */
export function canAnswer(question: Question, can: ClientCapabilities): boolean {
  if (question.kind === "sampling") return can.sampling !== undefined;
  if (can.elicitation === undefined) return false;
  const mode = (question.params as { mode?: string }).mode ?? "form";
  const elicitation = can.elicitation as { form?: unknown; url?: unknown };
  // `elicitation: {}` is form mode alone (the spec's reading of an empty object).
  return mode === "url"
    ? elicitation.url !== undefined
    : elicitation.form !== undefined || elicitation.url === undefined;
}

/** A question the client cannot answer: elicitation is cancelled, sampling refused. */
export function refuse(question: Question): void {
  if (question.kind === "elicitation") question.answer({ action: "cancel" });
  else
    question.refuse(
      new SwitchyardError("CAPABILITY_MISSING", "the gateway's client does not offer sampling", {
        capability: "sampling",
      }),
    );
}

/** A question as an `inputRequests` entry (of an `input_required` result, or of a task). */
export function inputRequestOf(question: Question): InputRequest {
  if (question.kind === "sampling") return inputRequired.createMessage(question.params as never);
  const params = question.params as {
    mode?: string;
    message: string;
    url?: string;
    requestedSchema?: unknown;
  };
  if (params.mode === "url")
    return inputRequired.elicitUrl({ message: params.message, url: params.url ?? "" });
  return inputRequired.elicit({ message: params.message, requestedSchema: params.requestedSchema as never });
}

/** The questions a client that declared `can` can answer; each of the others is refused, in order. */
export function askable(questions: readonly Question[], can: ClientCapabilities): Question[] {
  return questions.filter((question) => {
    if (canAnswer(question, can)) return true;
    refuse(question);
    return false;
  });
}

/** Questions as a result's `inputRequests`, by their keys. */
export function inputRequestsOf(questions: readonly Question[]): Record<string, InputRequest> {
  return Object.fromEntries(questions.map((question) => [question.key, inputRequestOf(question)]));
}
