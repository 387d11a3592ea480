/** A tool call in a scripted answer; `arguments` may be an object (sent as its JSON) or a raw string. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments?: unknown;
}

/** One scripted model answer: text, tool calls, or both. */
export interface ScriptedAnswer {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /**
   * Tokens the answer reports (`usage`); default: an estimate as a real server would count them, about
   * one token per four characters of the request's messages and tools (prompt) and of the answer.
   */
  usage?: { promptTokens: number; completionTokens: number };
}

/** An HTTP failure (scripted servers only). */
export interface ScriptedFailure {
  status: number;
  /** Error body; default `{ error: { message: "scripted failure" } }`. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request that is never answered (scripted servers only), to test timeouts. */
export interface ScriptedHang {
  hang: true;
}

/** What a scripted model does for one request. */
export type ScriptedReply = ScriptedAnswer | ScriptedFailure | ScriptedHang;

/** A script: replies in order, or a function of the request and its index. */
export type Script<Request> = ScriptedReply[] | ((request: Request, index: number) => ScriptedReply);

/** Pick the reply for the `index`-th request. */
export function nextReply<Request>(script: Script<Request>, request: Request, index: number): ScriptedReply {
  if (typeof script === "function") return script(request, index);
  const reply = script[index];
  if (!reply) {
    return {
      status: 500,
      body: { error: { message: `script exhausted: no reply for request ${index + 1}` } },
    };
  }
  return reply;
}

/** The wire form of a scripted tool call's arguments. */
export function argumentsJson(call: ScriptedToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
}
