// A `node:http` request seen the two ways the gateway reads one: its headers as the `get(name)` the
// checks ask (http-guard.ts, the SDK's era classification), and a web-standard `Request` for the full
// path (`Gateway.handle`), built only when that path is taken; and a web `Response` written back on
// node's response.
import type { IncomingMessage, ServerResponse } from "node:http";

/** What the header checks read of a request. */
export interface HeaderSource {
  headers: { get(name: string): string | null };
}

/** A node request's headers with `get` (a repeated header's values joined with `, `, as `Headers` does). */
export function nodeHeaders(req: IncomingMessage): HeaderSource["headers"] {
  return {
    get(name) {
      const value = req.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

/** A request's body, read whole. @throws an Error with `status` 413 past `maxBodyBytes`. */
export async function readBody(req: IncomingMessage, maxBodyBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) throw Object.assign(new Error("request body too large"), { status: 413 });
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * A fetch `Request` for a node request and its body; with `res`, its signal aborts when the client goes
 * away before its response is finished (which cancels its calls).
 */
export function toWebRequest(req: IncomingMessage, body: Buffer | undefined, res?: ServerResponse): Request {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(key, one);
  }
  const signal = res ? closeSignal(res) : undefined;
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    ...(body ? { body } : {}),
    ...(signal ? { signal } : {}),
  });
}

/** A signal that aborts when the client goes away before `res` is finished (which cancels its calls). */
export function closeSignal(res: ServerResponse): AbortSignal {
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  return abort.signal;
}

/**
 * What a lean request's handlers are told of its HTTP request (`ctx.http.req`): its method, URL and
 * headers — all the SDK and the gateway read of it (the priority header, `logging/setLevel`'s session
 * id) — and, given, the signal of its client going away; without building a web `Request` per call.
 */
export function requestInfoOf(req: IncomingMessage, signal?: AbortSignal): Request {
  return {
    method: req.method ?? "POST",
    url: `http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`,
    headers: nodeHeaders(req),
    ...(signal ? { signal } : {}),
  } as unknown as Request;
}

/**
 * Write a web `Response` on node's response, its body streamed as it comes (SSE included); nothing is
 * read of it when the client already went away (an SSE stream would stay open, holding its place among
 * its identity's streams).
 */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  if (res.destroyed) return void (await response.body?.cancel().catch(() => {}));
  res.writeHead(response.status, response.statusText, [...response.headers].flat());
  if (!response.body) return void res.end();
  res.flushHeaders(); // SSE: the headers go out before the first event
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // the client went away, or the stream was cancelled
  }
  res.end();
}
