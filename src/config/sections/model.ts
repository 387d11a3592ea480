// The `model` section: the endpoint, the model's name, its requests' limits and its context window, with
// the defaults of each.

import { z } from "zod";
import { nonNegativeInt, positiveInt } from "./fields.js";

/** OpenAI's endpoint: the model's `baseURL` when an API key is set without one. */
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
/** The model asked for on OpenAI's endpoint when none is named. */
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
/** How long one model request may take, retries excluded. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** Retries of a model request after a 429, a 5xx or a dropped connection. */
export const DEFAULT_MODEL_MAX_RETRIES = 3;
/** First model retry delay; it doubles each time, with jitter, up to {@link DEFAULT_MODEL_MAX_RETRY_DELAY_MS}. */
export const DEFAULT_MODEL_RETRY_BASE_MS = 500;
/** Longest wait between two tries of a model request (a `Retry-After` longer than this is cut). */
export const DEFAULT_MODEL_MAX_RETRY_DELAY_MS = 10_000;

/** A model's context window, in tokens, when `model.contextWindow` is unset and its name is not known. */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 32_768;
/**
 * Context windows (tokens) of common model families, by the start of the model's name (lowercased,
 * after any `provider/` prefix; the longest matching start wins). Set `model.contextWindow` for others,
 * or where a server runs a model with a smaller window (Ollama's default `num_ctx` is far below these).
 */
export const DEFAULT_CONTEXT_WINDOWS: Readonly<Record<string, number>> = Object.freeze({
  "gpt-5": 400_000,
  "gpt-4.1": 1_047_576,
  "gpt-4o": 128_000,
  "chatgpt-4o": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-4": 8_192,
  "gpt-3.5": 16_385,
  "gpt-oss": 131_072,
  o1: 200_000,
  o3: 200_000,
  o4: 200_000,
  claude: 200_000,
  gemini: 1_048_576,
  qwen: 32_768,
  deepseek: 65_536,
  glm: 128_000,
  llama: 131_072,
  mistral: 32_768,
  mixtral: 32_768,
  kimi: 131_072,
  moonshot: 131_072,
});

/** The `model` section: the OpenAI-compatible endpoint the agent asks, and how. */
export const modelSchema = z.strictObject({
  baseURL: z.string().optional(),
  apiKey: z.string().optional(),
  name: z.string().optional(),
  /** Sampling temperature sent with each request; absent: the server's default. */
  temperature: z.number({ error: "expected a number" }).min(0).max(2).optional(),
  /** How long one model request may take, retries excluded. */
  timeoutMs: positiveInt.optional(),
  /** Retries after a 429, a 5xx or a dropped connection. */
  maxRetries: nonNegativeInt.optional(),
  /** The model's context window in tokens; absent: known for common model names (context/tokens.ts). */
  contextWindow: positiveInt.optional(),
});
