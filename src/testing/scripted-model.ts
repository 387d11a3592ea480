import { SwitchyardError } from "../errors.js";
import type { ModelProvider, ModelRequest, ModelResponse } from "../models/model.js";
import { argumentsJson, nextReply, type Script } from "./scripted-reply.js";

/**
 * A model that answers from a script, in process: for testing agents without a model server.
 * Every request is kept in `requests`, so tests can assert on what the model was sent.
 *
 * ```ts
 * const model = new ScriptedModel([
 *   { toolCalls: [{ name: "orders_query_recent_orders", arguments: { customer_id: "C10001" } }] },
 *   { content: "You have 2 orders." },
 * ]);
 * ```
 */
export class ScriptedModel implements ModelProvider {
  readonly name: string;
  readonly requests: ModelRequest[] = [];
  readonly #script: Script<ModelRequest>;

  constructor(script: Script<ModelRequest>, name = "scripted") {
    this.#script = script;
    this.name = name;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const snapshot = { ...request, messages: structuredClone(request.messages) };
    this.requests.push(snapshot);
    const reply = nextReply(this.#script, snapshot, this.requests.length - 1);
    if ("hang" in reply) {
      return new Promise((_, reject) =>
        request.signal?.addEventListener("abort", () =>
          reject(new SwitchyardError("CANCELLED", "the scripted model was cancelled")),
        ),
      );
    }
    if ("status" in reply) {
      throw new SwitchyardError("MODEL_ERROR", `scripted model failure ${reply.status}`, {
        status: reply.status,
      });
    }
    return {
      content: reply.content ?? null,
      toolCalls: (reply.toolCalls ?? []).map((call, index) => ({
        id: call.id ?? `call_${this.requests.length}_${index}`,
        name: call.name,
        arguments: argumentsJson(call),
      })),
      finishReason: reply.toolCalls?.length ? "tool_calls" : "stop",
    };
  }
}
