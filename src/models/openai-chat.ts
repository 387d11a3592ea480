import { setTimeout as delay } from "node:timers/promises";
import {
  DEFAULT_MODEL_MAX_RETRIES,
  DEFAULT_MODEL_MAX_RETRY_DELAY_MS,
  DEFAULT_MODEL_RETRY_BASE_MS,
  DEFAULT_MODEL_TIMEOUT_MS,
} from "../config/defaults.js";
import { oneLine, readableFailure, SwitchyardError } from "../errors.js";
import type { ChatMessage, ModelProvider, ModelRequest, ModelResponse, ToolCall } from "./model.js";
import { readServerSentEvents } from "./sse.js";

export {
  DEFAULT_MODEL_MAX_RETRIES,
  DEFAULT_MODEL_MAX_RETRY_DELAY_MS,
  DEFAULT_MODEL_RETRY_BASE_MS,
  DEFAULT_MODEL_TIMEOUT_MS,
} from "../config/defaults.js";

export interface OpenAIChatModelOptions {
  /** The server's base URL, up to and including `/v1` (e.g. `http://127.0.0.1:11434/v1` for Ollama). */
  baseURL: string;
  /** The model's name on that server. */
  model: string;
  /** Sent as `Authorization: Bearer …` when given. */
  apiKey?: string;
  /** Stream the answer (server-sent events); default false. */
  stream?: boolean;
  /** Deadline of one request, retries excluded; default {@link DEFAULT_MODEL_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx or a dropped connection; default {@link DEFAULT_MODEL_MAX_RETRIES}. */
  maxRetries?: number;
  /** First retry delay, doubled each time; default {@link DEFAULT_MODEL_RETRY_BASE_MS}. */
  retryBaseMs?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
  temperature?: number;
}

/**
 * A model behind any OpenAI-compatible `/chat/completions` endpoint: OpenAI, vLLM, Ollama, DeepSeek,
 * Qwen and others. Written on `fetch` rather than the `openai` package: the wire format is small, we
 * need lenient parsing for servers that bend it (arguments as objects, missing ids), and one less
 * dependency is one less thing to keep in step.
 */
export class OpenAIChatModel implements ModelProvider {
  readonly name: string;
  readonly #options: OpenAIChatModelOptions;
  readonly #endpoint: string;

  constructor(options: OpenAIChatModelOptions) {
    this.#options = options;
    this.name = options.model;
    this.#endpoint = `${options.baseURL.replace(/\/+$/, "")}/chat/completions`;
  }

  /**
   * Ask the model; 429, 5xx and dropped connections are retried with exponential backoff and jitter.
   * @throws SwitchyardError `MODEL_ERROR` with `status` and the server's message, `MODEL_TIMEOUT`, or
   *   `CANCELLED` when `request.signal` aborts.
   */
  async complete(request: ModelRequest): Promise<ModelResponse> {
    const maxRetries = this.#options.maxRetries ?? DEFAULT_MODEL_MAX_RETRIES;
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await this.#attempt(request);
      if (outcome.ok) return outcome.response;
      if (!outcome.retry || attempt >= maxRetries) throw outcome.error;
      await delay(this.#retryDelay(attempt, outcome.retryAfterMs), undefined, {
        signal: request.signal,
      }).catch(() => {
        throw new SwitchyardError("CANCELLED", "the model request was cancelled while waiting to retry");
      });
    }
  }

  async #attempt(
    request: ModelRequest,
  ): Promise<
    | { ok: true; response: ModelResponse }
    | { ok: false; error: SwitchyardError; retry: boolean; retryAfterMs?: number }
  > {
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
    const stream = this.#options.stream === true;
    try {
      const response = await fetch(this.#endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(this.#options.apiKey ? { authorization: `Bearer ${this.#options.apiKey}` } : {}),
          ...this.#options.headers,
        },
        body: JSON.stringify(this.#body(request, stream)),
        signal,
      });
      if (!response.ok) {
        const error = this.#error(
          `${response.status} ${response.statusText}: ${await errorMessage(response)}`,
          {
            status: response.status,
          },
        );
        const retry = response.status === 429 || response.status >= 500;
        const retryAfterMs = Number(response.headers.get("retry-after")) * 1_000 || undefined;
        return { ok: false, error, retry, ...(retryAfterMs ? { retryAfterMs } : {}) };
      }
      const parsed = stream
        ? await readStream(response, request.onText)
        : parseCompletion(await this.#json(response));
      return { ok: true, response: parsed };
    } catch (error) {
      if (request.signal?.aborted) {
        throw new SwitchyardError("CANCELLED", `the request to model ${this.name} was cancelled`, {
          cause: error,
        });
      }
      if (deadline.aborted) {
        const timeout = new SwitchyardError(
          "MODEL_TIMEOUT",
          `model ${this.name} at ${this.#options.baseURL} did not answer within ${timeoutMs} ms`,
          { cause: error },
        );
        return { ok: false, error: timeout, retry: false };
      }
      if (error instanceof SwitchyardError) return { ok: false, error, retry: false };
      return {
        ok: false,
        error: this.#error(`request failed: ${readableFailure(error)}`, { cause: error }),
        retry: true,
      };
    }
  }

  #body(request: ModelRequest, stream: boolean): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: this.#options.model,
      messages: request.messages.map(toWire),
    };
    // No tools (an agent's last step): neither `tools` nor `tool_choice` is sent, so the model must answer.
    if (request.tools.length > 0) {
      body.tools = request.tools.map((tool) => ({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      if (request.parallelToolCalls === false) body.parallel_tool_calls = false;
    }
    if (this.#options.temperature !== undefined) body.temperature = this.#options.temperature;
    if (stream) body.stream = true;
    return body;
  }

  #retryDelay(attempt: number, retryAfterMs: number | undefined): number {
    const base = (this.#options.retryBaseMs ?? DEFAULT_MODEL_RETRY_BASE_MS) * 2 ** attempt;
    const jittered = base / 2 + Math.random() * (base / 2);
    return Math.min(retryAfterMs ?? jittered, DEFAULT_MODEL_MAX_RETRY_DELAY_MS);
  }

  /** The answer's JSON; an answer that is none (a proxy's HTML page) is a `MODEL_ERROR` saying what it is. */
  async #json(response: Response): Promise<unknown> {
    const text = await response.text();
    try {
      return JSON.parse(text);
    } catch {
      throw this.#error(`answered ${response.status} with ${bodyText(text)}`, { status: response.status });
    }
  }

  #error(what: string, details: { status?: number; cause?: unknown }): SwitchyardError {
    return new SwitchyardError(
      "MODEL_ERROR",
      `model ${this.name} at ${this.#options.baseURL}: ${what}`,
      details,
    );
  }
}

function toWire(message: ChatMessage): Record<string, unknown> {
  if (message.role === "tool")
    return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  if (message.role === "assistant" && message.toolCalls?.length) {
    return {
      role: "assistant",
      content: message.content,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      })),
    };
  }
  return { role: message.role, content: message.content ?? "" };
}

interface WireToolCall {
  id?: string;
  index?: number;
  function?: { name?: string; arguments?: unknown };
}

function parseCompletion(body: unknown): ModelResponse {
  const choice = (body as { choices?: Array<Record<string, unknown>> }).choices?.[0];
  if (!choice)
    throw new SwitchyardError("MODEL_ERROR", `the model's answer has no choices: ${preview(body)}`);
  const message = (choice.message ?? {}) as { content?: string | null; tool_calls?: WireToolCall[] };
  const response: ModelResponse = {
    content: message.content ?? null,
    toolCalls: (message.tool_calls ?? []).map((call, index) => toToolCall(call, index)),
  };
  if (typeof choice.finish_reason === "string") response.finishReason = choice.finish_reason;
  const usage = (body as { usage?: WireUsage | null }).usage;
  if (usage) response.usage = toUsage(usage);
  return response;
}

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

function toUsage(usage: WireUsage): NonNullable<ModelResponse["usage"]> {
  return { promptTokens: usage.prompt_tokens ?? 0, completionTokens: usage.completion_tokens ?? 0 };
}

async function readStream(
  response: Response,
  onText: ((delta: string) => void) | undefined,
): Promise<ModelResponse> {
  let content = "";
  let finishReason: string | undefined;
  let usage: ModelResponse["usage"];
  const calls = new Map<number, { id?: string; name: string; arguments: string }>();
  for await (const data of readServerSentEvents(response)) {
    if (data === "[DONE]") break;
    const chunk = JSON.parse(data) as {
      choices?: Array<{
        delta?: { content?: string | null; tool_calls?: WireToolCall[] };
        finish_reason?: string | null;
      }>;
      usage?: WireUsage | null;
    };
    // Servers asked for usage (or sending it anyway) put it in a last chunk, often without choices.
    if (chunk.usage) usage = toUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.delta?.content) {
      content += choice.delta.content;
      onText?.(choice.delta.content);
    }
    for (const delta of choice.delta?.tool_calls ?? []) {
      const index = delta.index ?? calls.size;
      const call = calls.get(index) ?? { name: "", arguments: "" };
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.name += delta.function.name;
      if (delta.function?.arguments !== undefined) call.arguments += argumentsText(delta.function.arguments);
      calls.set(index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, call]) => ({
      id: call.id ?? `call_${index}`,
      name: call.name,
      arguments: call.arguments || "{}",
    }));
  return {
    content: content || null,
    toolCalls,
    ...(finishReason ? { finishReason } : {}),
    ...(usage ? { usage } : {}),
  };
}

function toToolCall(call: WireToolCall, index: number): ToolCall {
  return {
    id: call.id ?? `call_${index}`,
    name: call.function?.name ?? "",
    arguments: argumentsText(call.function?.arguments ?? "{}"),
  };
}

/** Some servers send `arguments` as an object instead of a JSON string. */
function argumentsText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const message = typeof body.error === "string" ? body.error : (body.error?.message ?? body.message);
    if (message) return message;
  } catch {
    // not JSON: use the text
  }
  return bodyText(text);
}

/** An answer's body that is not the chat API's JSON, as a person should read it. */
function bodyText(text: string): string {
  // An HTML error page (a proxy's, a wrong URL's) becomes its title; never the page.
  if (/<!doctype html|<html[\s>]/i.test(text)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, " ").trim();
    return `an HTML page${title ? ` titled "${title}"` : ""}, not the chat API — check baseURL (it usually ends in /v1)`;
  }
  return oneLine(text.trim().slice(0, 500)) || "(no message)";
}

function preview(value: unknown): string {
  return JSON.stringify(value).slice(0, 200);
}
