// The facade's answers to what servers ask the client: the user (elicitation), the model (sampling).
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
} from "@modelcontextprotocol/client";
import { type JsonSchema, validateArguments } from "./calls/validate.js";
import { SwitchyardError } from "./errors.js";
import type { ClientRequests } from "./fleet/client-requests.js";
import type { RequestOrigin } from "./fleet/request-origin.js";
import type { ChatMessage, ModelProvider } from "./models/model.js";
import type { Logger } from "./telemetry/logger.js";

/** A server asks the user something: fill in a form, or visit a URL. */
export interface ElicitationRequest {
  /** The server that asks (its config name). */
  server: string;
  mode: "form" | "url";
  message: string;
  /** Form mode: a flat JSON Schema object of the fields asked for. */
  requestedSchema?: JsonSchema;
  /** URL mode: where to send the user. */
  url?: string;
  /** Aborted when the server withdraws the request or the call ends. */
  signal: AbortSignal;
  /**
   * The origin of the request the server asked during, when it can be told (the gateway's relay asks
   * only the client whose call that is); none when nothing was in flight, or requests of several origins
   * were and the server named none of them.
   */
  origin?: RequestOrigin;
}

/** The user's answer: `accept` (with the form's content), `decline` (said no) or `cancel` (dismissed). */
export interface ElicitationAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

export type ElicitationHandler = (request: ElicitationRequest) => Promise<ElicitationAnswer>;

/** A server asks the client's model for a completion. */
export interface SamplingRequest {
  server: string;
  systemPrompt?: string;
  /** The conversation, text only. */
  messages: { role: "user" | "assistant"; text: string }[];
  maxTokens: number;
}

/** Approves (true) or refuses a sampling request before the model sees it. */
export type SamplingApproval = (request: SamplingRequest) => boolean | Promise<boolean>;

export interface ClientAnswerOptions {
  logger: Logger;
  /** The folders answered on `roots/list`; none: the roots capability is not declared. */
  roots?: readonly string[];
  onElicitation?: ElicitationHandler;
  elicitationUrl?: boolean;
  onSampling?: SamplingApproval;
  /** The model sampling requests go to; without one, sampling is not offered. */
  model?: ModelProvider;
}

/** The fleet's {@link ClientRequests} for these options: only what has a handler. */
export function clientAnswers(options: ClientAnswerOptions): ClientRequests {
  const { onElicitation, onSampling, model, logger } = options;
  return {
    ...(options.roots ? { roots: options.roots } : {}),
    ...(onElicitation
      ? {
          elicit: (server, params, signal, origin) =>
            elicit(onElicitation, { server, params, signal, origin }, logger),
          elicitUrl: options.elicitationUrl === true,
        }
      : {}),
    ...(onSampling && model
      ? { sample: (server, params, signal) => sample(onSampling, model, server, params, signal) }
      : {}),
  };
}

async function elicit(
  handler: ElicitationHandler,
  asked: {
    server: string;
    params: ElicitRequestParams;
    signal: AbortSignal;
    origin: RequestOrigin | undefined;
  },
  logger: Logger,
): Promise<ElicitResult> {
  const { server, params, signal } = asked;
  const origin = asked.origin !== undefined ? { origin: asked.origin } : {};
  const request: ElicitationRequest =
    params.mode === "url"
      ? { server, mode: "url", message: params.message, url: params.url, signal, ...origin }
      : {
          server,
          mode: "form",
          message: params.message,
          requestedSchema: params.requestedSchema as JsonSchema,
          signal,
          ...origin,
        };
  const answer = await handler(request);
  if (answer.action !== "accept") return { action: answer.action === "decline" ? "decline" : "cancel" };
  if (request.mode === "url" || !request.requestedSchema) return { action: "accept" };
  const content = withDefaults(request.requestedSchema, answer.content ?? {});
  const checked = validateArguments(request.requestedSchema, content);
  if (!checked.ok) {
    logger.warn(
      { server },
      `the answer to "${params.message}" does not match the form (${checked.problems.join("; ")}): cancelled`,
    );
    return { action: "cancel" };
  }
  return { action: "accept", content: checked.value as ElicitResult["content"] & object };
}

/** `content` with each field it lacks that the schema gives a `default` for, set to that default. */
export function withDefaults(schema: JsonSchema, content: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  const filled = { ...content };
  for (const [field, property] of Object.entries(properties)) {
    if (filled[field] === undefined && property?.default !== undefined) filled[field] = property.default;
  }
  return filled;
}

async function sample(
  approve: SamplingApproval,
  model: ModelProvider,
  server: string,
  params: CreateMessageRequestParams,
  signal: AbortSignal,
): Promise<CreateMessageResult> {
  const messages = params.messages.map(({ role, content }) => {
    const parts = Array.isArray(content) ? content : [content];
    const text = parts.map((part) => (part.type === "text" ? part.text : undefined));
    if (text.some((part) => part === undefined)) {
      throw new Error("only text messages can be sampled by this client");
    }
    return { role, text: text.join("\n") };
  });
  const request: SamplingRequest = {
    server,
    messages,
    maxTokens: params.maxTokens,
    ...(params.systemPrompt !== undefined ? { systemPrompt: params.systemPrompt } : {}),
  };
  if (!(await approve(request))) {
    // On 2025 revisions the server is answered with this error; on 2026-07-28 the call fails with it.
    throw new SwitchyardError(
      "POLICY_DENIED",
      `server ${server} asked the model for a completion; the user declined the sampling request`,
      { server, delivery: "final", serverFault: false },
    );
  }
  const chat: ChatMessage[] = [
    ...(request.systemPrompt !== undefined
      ? [{ role: "system" as const, content: request.systemPrompt }]
      : []),
    ...messages.map(({ role, text }) => ({ role, content: text })),
  ];
  const response = await model.complete({ messages: chat, tools: [], signal });
  return {
    role: "assistant",
    content: { type: "text", text: response.content ?? "" },
    model: model.name,
    stopReason: response.finishReason === "length" ? "maxTokens" : "endTurn",
  };
}
