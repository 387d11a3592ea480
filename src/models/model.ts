/** One tool call the model asked for; `arguments` is the raw JSON string the model wrote. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A chat message in Switchyard's own (provider-neutral) form. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

/** A tool as offered to a model: a name, a description and a JSON Schema for its arguments. */
export interface ModelTool {
  name: string;
  description: string;
  /** A JSON Schema object (models/ stands below calls/, so not calls' `JsonSchema`, the same type). */
  parameters: Record<string, unknown>;
}

/** One request to a model. */
export interface ModelRequest {
  messages: ChatMessage[];
  /** The tools offered; empty: none (the model must answer in text). */
  tools: ModelTool[];
  /** Let the model ask for several tools in one answer; default true. */
  parallelToolCalls?: boolean;
  /** Receives text as it streams in (streaming providers only). */
  onText?: (delta: string) => void;
  signal?: AbortSignal;
}

/** What the model answered: text, tool calls, or both. */
export interface ModelResponse {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason?: string;
  /** Tokens the request used, when the model's server reports them. */
  usage?: { promptTokens: number; completionTokens: number };
}

/** Anything that answers chat requests with text or tool calls. */
export interface ModelProvider {
  /** The model's name, for logs and run records. */
  readonly name: string;
  /**
   * Ask the model.
   * @throws SwitchyardError `MODEL_ERROR` (HTTP or protocol failure, after retries) or `MODEL_TIMEOUT`.
   */
  complete(request: ModelRequest): Promise<ModelResponse>;
}
