import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { argumentsJson, nextReply, type Script, type ScriptedAnswer } from "./scripted-reply.js";

/** A chat-completions request as the scripted server received it (the parsed JSON body). */
export interface ReceivedRequest {
  model: string;
  messages: Array<Record<string, unknown>>;
  tools?: Array<{
    type: string;
    function: { name: string; description?: string; parameters: Record<string, unknown> };
  }>;
  stream?: boolean;
  parallel_tool_calls?: boolean;
  [key: string]: unknown;
}

/** A running scripted server. */
export interface ScriptedOpenAIServer extends AsyncDisposable {
  /** The base URL to configure (`http://127.0.0.1:<port>/v1`). */
  baseURL: string;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * Start a real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API (streaming and not)
 * and answers from a script: for testing agents end to end against a model that does exactly what the
 * test says. Streams when the request asks for `stream: true`.
 */
export async function startScriptedOpenAIServer(
  script: Script<ReceivedRequest>,
): Promise<ScriptedOpenAIServer> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    let text = "";
    for await (const chunk of req) text += chunk;
    const request = JSON.parse(text) as ReceivedRequest;
    requests.push(request);
    const reply = nextReply(script, request, requests.length - 1);
    if ("hang" in reply) return; // never answered; the socket is destroyed on close
    if ("status" in reply) {
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { error: { message: "scripted failure" } }));
      return;
    }
    // Each answer has an id of its own, as a real server's: frameworks key messages by it (LangGraph's
    // messages reducer replaces a message whose id it has seen).
    const id = `chatcmpl-scripted-${requests.length}`;
    if (request.stream) writeStream(res, id, request.model, reply);
    else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(completion(id, request, reply)));
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests, close, [Symbol.asyncDispose]: close };
}

function wireToolCalls(reply: ScriptedAnswer) {
  return (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index}`,
    type: "function",
    function: { name: call.name, arguments: argumentsJson(call) },
  }));
}

/** What a scripted answer reports it used: its own `usage`, else about a token per four characters. */
function usageOf(
  request: ReceivedRequest,
  reply: ScriptedAnswer,
  toolCalls: ReturnType<typeof wireToolCalls>,
) {
  const estimate = (chars: number) => Math.max(1, Math.ceil(chars / 4));
  const prompt =
    reply.usage?.promptTokens ??
    estimate(JSON.stringify(request.messages ?? []).length + JSON.stringify(request.tools ?? []).length);
  const completion =
    reply.usage?.completionTokens ??
    estimate((reply.content ?? "").length + JSON.stringify(toolCalls).length * Number(toolCalls.length > 0));
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function completion(id: string, request: ReceivedRequest, reply: ScriptedAnswer) {
  const model = request.model;
  const toolCalls = wireToolCalls(reply);
  return {
    id,
    object: "chat.completion",
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.content ?? null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length ? "tool_calls" : "stop",
      },
    ],
    usage: usageOf(request, reply, toolCalls),
  };
}

/** Stream as OpenAI does: text in small deltas; each tool call's id and name first, arguments in pieces. */
function writeStream(res: ServerResponse, id: string, model: string, reply: ScriptedAnswer): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (delta: Record<string, unknown>, finish: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  send({ role: "assistant", content: "" });
  const content = reply.content ?? "";
  for (let i = 0; i < content.length; i += 4) send({ content: content.slice(i, i + 4) });
  for (const [index, call] of wireToolCalls(reply).entries()) {
    send({
      tool_calls: [
        { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
      ],
    });
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    for (const piece of [args.slice(0, half), args.slice(half)]) {
      if (piece) send({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  send({}, reply.toolCalls?.length ? "tool_calls" : "stop");
  res.end("data: [DONE]\n\n");
}
