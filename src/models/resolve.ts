import { DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import type { ModelProvider } from "./model.js";
import { OpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat.js";

export { DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL } from "../config/defaults.js";
/** OpenAI's endpoint, used when an API key is set without a base URL (the older name). */
export const OPENAI_BASE_URL = DEFAULT_OPENAI_BASE_URL;

/** The config file's `model` section. */
export interface ModelSection {
  /** The chat-completions server; absent: `OPENAI_BASE_URL`, else {@link DEFAULT_OPENAI_BASE_URL}. */
  baseURL?: string | undefined;
  /** Sent as a bearer token; absent: `OPENAI_API_KEY` (whatever the base URL); "": none. */
  apiKey?: string | undefined;
  /** The model's name; absent: `SWITCHYARD_MODEL`, else {@link DEFAULT_OPENAI_MODEL} on OpenAI's endpoint. */
  name?: string | undefined;
  /** Sampling temperature sent with each request; absent: the server's default. */
  temperature?: number | undefined;
  /** How long one model request may take, retries excluded; default 120 s. */
  timeoutMs?: number | undefined;
  /** Retries after a 429, a 5xx or a dropped connection; default 3. */
  maxRetries?: number | undefined;
  /** The model's context window in tokens, for the agent's budget (not read here). */
  contextWindow?: number | undefined;
}

/** Options of {@link resolveModel}. */
export interface ResolveModelOptions {
  /** The config's `model` section; what it leaves out is read from the environment. */
  section?: ModelSection;
  /** `--model`: overrides the name. */
  name?: string;
  /** The CLI flag that sets the name (`--model`), offered in the errors; none where there is no such flag. */
  nameFlag?: string;
  /** Where `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `SWITCHYARD_MODEL` are read; default `process.env`. */
  env?: Record<string, string | undefined>;
  stream?: boolean;
}

/** How to configure a model, for error messages. */
export const HOW_TO_CONFIGURE_MODEL =
  'add a "model" section to the config ({ "baseURL": "http://127.0.0.1:11434/v1", "name": "qwen2.5" }), ' +
  "or set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server: vLLM, Ollama, DeepSeek, Qwen…) " +
  "together with SWITCHYARD_MODEL";

/** How to complete a `model` section that names neither a server nor a key, for error messages. */
const HOW_TO_COMPLETE_MODEL_SECTION =
  'the config\'s "model" section has no "baseURL" or "apiKey", and neither OPENAI_BASE_URL nor OPENAI_API_KEY is set: ' +
  'add "baseURL" (any OpenAI-compatible server, with "name") or "apiKey" (OpenAI) to the section, ' +
  "or set OPENAI_BASE_URL (with SWITCHYARD_MODEL) or OPENAI_API_KEY";

/**
 * Build the model from the config's `model` section (with its `temperature`, `timeoutMs` and
 * `maxRetries`), each of `baseURL`, `apiKey` and `name` it leaves out taken from `OPENAI_BASE_URL`,
 * `OPENAI_API_KEY` and `SWITCHYARD_MODEL`; `--model` overrides the name. A key the section sets wins over
 * the environment, even set to "" (`"apiKey": ""` sends no key). As OpenAI's own client does,
 * `OPENAI_API_KEY` is sent to whatever base URL is configured. No `baseURL`: OpenAI's endpoint.
 * @throws SwitchyardError `MODEL_NOT_CONFIGURED` when neither the section nor the environment gives a
 * base URL or a key, or no name is given for a server other than OpenAI's, saying exactly what to set.
 */
export function resolveModel(options: ResolveModelOptions = {}): ModelProvider {
  const env = options.env ?? process.env;
  const section = withEnvironment(options.section ?? {}, env);
  if (!section.baseURL && !section.apiKey) {
    const how = options.section ? HOW_TO_COMPLETE_MODEL_SECTION : HOW_TO_CONFIGURE_MODEL;
    // The flag names a model; it cannot stand in for a server or a key, so it is offered beside the name.
    const named = options.nameFlag && !options.section ? ` (or ${options.nameFlag})` : "";
    throw new SwitchyardError("MODEL_NOT_CONFIGURED", `no model is configured: ${how}${named}`);
  }
  const baseURL = section.baseURL || DEFAULT_OPENAI_BASE_URL;
  const name =
    options.name ?? section.name ?? (baseURL === DEFAULT_OPENAI_BASE_URL ? DEFAULT_OPENAI_MODEL : undefined);
  if (!name) {
    throw new SwitchyardError(
      "MODEL_NOT_CONFIGURED",
      `no model name for ${baseURL}: set SWITCHYARD_MODEL or "model.name" in the config` +
        (options.nameFlag ? `, or pass ${options.nameFlag}` : ""),
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

/**
 * The section with each of `baseURL`, `apiKey` and `name` it leaves out taken from the environment, key
 * by key, as OpenAI's client reads `OPENAI_BASE_URL` and `OPENAI_API_KEY` for the options it is not given.
 * An empty variable counts as unset.
 */
function withEnvironment(section: ModelSection, env: Record<string, string | undefined>): ModelSection {
  return {
    ...section,
    baseURL: section.baseURL ?? (env.OPENAI_BASE_URL || undefined),
    apiKey: section.apiKey ?? (env.OPENAI_API_KEY || undefined),
    name: section.name ?? (env.SWITCHYARD_MODEL || undefined),
  };
}
