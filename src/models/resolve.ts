import { DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import type { ModelProvider } from "./model.js";
import { OpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat.js";

export { DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL } from "../config/defaults.js";
/** OpenAI's endpoint, used when an API key is set without a base URL (the older name). */
export const OPENAI_BASE_URL = DEFAULT_OPENAI_BASE_URL;

/** The config file's `model` section. */
export interface ModelSection {
  baseURL?: string | undefined;
  apiKey?: string | undefined;
  name?: string | undefined;
  /** Sampling temperature sent with each request; absent: the server's default. */
  temperature?: number | undefined;
  /** How long one model request may take, retries excluded; default 120 s. */
  timeoutMs?: number | undefined;
  /** Retries after a 429, a 5xx or a dropped connection; default 3. */
  maxRetries?: number | undefined;
}

export interface ResolveModelOptions {
  /** The config's `model` section; when absent, the environment is read. */
  section?: ModelSection;
  /** `--model`: overrides the name. */
  name?: string;
  env?: Record<string, string | undefined>;
  stream?: boolean;
}

/** How to configure a model, for error messages. */
export const HOW_TO_CONFIGURE_MODEL =
  'add a "model" section to the config ({ "baseURL": "http://127.0.0.1:11434/v1", "name": "qwen2.5" }), ' +
  "or set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server: vLLM, Ollama, DeepSeek, Qwen…) " +
  "together with SWITCHYARD_MODEL, or pass --model";

/**
 * Build the model from the config's `model` section (with its `temperature`, `timeoutMs` and
 * `maxRetries`), else from `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `SWITCHYARD_MODEL`; `--model`
 * overrides the name.
 * @throws SwitchyardError `MODEL_NOT_CONFIGURED` saying exactly how to configure one.
 */
export function resolveModel(options: ResolveModelOptions = {}): ModelProvider {
  const env = options.env ?? process.env;
  const section = options.section ?? {
    ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    ...(env.SWITCHYARD_MODEL ? { name: env.SWITCHYARD_MODEL } : {}),
  };
  if (!section.baseURL && !section.apiKey) {
    throw new SwitchyardError("MODEL_NOT_CONFIGURED", `no model is configured: ${HOW_TO_CONFIGURE_MODEL}`);
  }
  const baseURL = section.baseURL ?? DEFAULT_OPENAI_BASE_URL;
  const name =
    options.name ?? section.name ?? (baseURL === DEFAULT_OPENAI_BASE_URL ? DEFAULT_OPENAI_MODEL : undefined);
  if (!name) {
    throw new SwitchyardError(
      "MODEL_NOT_CONFIGURED",
      `no model name for ${baseURL}: set SWITCHYARD_MODEL, "model.name" in the config, or pass --model`,
    );
  }
  const modelOptions: OpenAIChatModelOptions = { baseURL, model: name };
  if (section.apiKey) modelOptions.apiKey = section.apiKey;
  if (section.temperature !== undefined) modelOptions.temperature = section.temperature;
  if (section.timeoutMs !== undefined) modelOptions.timeoutMs = section.timeoutMs;
  if (section.maxRetries !== undefined) modelOptions.maxRetries = section.maxRetries;
  if (options.stream) modelOptions.stream = true;
  return new OpenAIChatModel(modelOptions);
}
