import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A request the embeddings server received. */
export interface EmbeddingsRequest {
  model: string;
  input: string[];
  dimensions?: number;
  authorization?: string;
}

/** A running embeddings server. */
export interface EmbeddingsServer extends AsyncDisposable {
  /** API root to configure, `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  requests: EmbeddingsRequest[];
  /** Answer the next requests with this HTTP status, or hang without answering. */
  misbehave(mode: { status: number } | "hang" | undefined): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 speaking OpenAI's `POST /v1/embeddings`, with deterministic
 * vectors: one dimension per concept, counting the words of the text that belong to it, plus a small
 * constant so that no vector is zero. Two texts are close when they speak of the same concepts, whatever
 * their words: a stand-in for a real embedding model that a test can reason about.
 */
export async function startEmbeddingsServer(
  concepts: Record<string, readonly string[]>,
): Promise<EmbeddingsServer> {
  const dimensionOf = new Map<string, number>();
  Object.values(concepts).forEach((words, dimension) => {
    for (const word of words) dimensionOf.set(word, dimension);
  });
  const size = Object.keys(concepts).length + 1;
  const embed = (text: string) => {
    const vector = new Array<number>(size).fill(0);
    vector[size - 1] = 0.01;
    for (const word of text.toLowerCase().split(/[^a-z0-9]+/)) {
      const dimension = dimensionOf.get(word);
      if (dimension !== undefined) vector[dimension]! += 1;
    }
    return vector;
  };

  const requests: EmbeddingsRequest[] = [];
  let mode: { status: number } | "hang" | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/embeddings") {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body) as { model: string; input: string | string[]; dimensions?: number };
      const input = typeof parsed.input === "string" ? [parsed.input] : parsed.input;
      requests.push({
        model: parsed.model,
        input,
        ...(parsed.dimensions === undefined ? {} : { dimensions: parsed.dimensions }),
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      });
      if (mode === "hang") return;
      if (mode) {
        res.writeHead(mode.status, { "content-type": "application/json" });
        // Pretty-printed, as many servers answer: the client's error must still be one line.
        res.end(JSON.stringify({ error: { message: "scripted failure" } }, null, 2));
        return;
      }
      // Answer in reverse order with explicit indexes: clients must place vectors by `index`.
      const data = input
        .map((text, index) => ({ object: "embedding", index, embedding: embed(text) }))
        .reverse();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          data,
          model: parsed.model,
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      );
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    misbehave: (next) => {
      mode = next;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
