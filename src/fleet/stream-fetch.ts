import http, { type ClientRequest, type IncomingMessage } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import type { FetchLike } from "@modelcontextprotocol/client";

/** The request that opens a subscription for the connection's lifetime (protocol 2026-07-28). */
const LISTEN_METHOD = "subscriptions/listen";
/**
 * The ports the Fetch standard refuses ("bad ports"), as Node's fetch does: a stream refused on one
 * fails as every other request to that server does, and says so the same way.
 */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);
/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * Agents of their own, without keep-alive, for the streams: a socket that must not hold the event loop
 * is never shared with, or handed on to, an ordinary request.
 */
const HTTP_AGENT = new http.Agent({ keepAlive: false });
const HTTPS_AGENT = new https.Agent({ keepAlive: false });

/**
 * `baseFetch`, except for the requests that open a stream for server-to-client messages, which stays
 * open for as long as the connection: the standalone GET `text/event-stream` of Streamable HTTP (2025
 * revisions), the `subscriptions/listen` POST (2026-07-28) and the legacy SSE transport's GET. Those go
 * through {@link fetchOnIdleSocket}, so that an idle connection does not keep the process alive, just as
 * an HTTP client's idle keep-alive sockets do not. Calls still hold it while they are in flight: with
 * their own requests, and with the SDK's request timeout timer when their answer comes on a stream.
 */
export function fetchWithIdleStreams(baseFetch: FetchLike = fetch): FetchLike {
  return (url, init) => (opensLastingStream(url, init) ? fetchOnIdleSocket(url, init) : baseFetch(url, init));
}

/** True for a request whose response is a stream of server-to-client messages for the connection's life. */
export function opensLastingStream(url: string | URL, init?: RequestInit): boolean {
  if (!/^https?:/i.test(String(url))) return false;
  const method = (init?.method ?? "GET").toUpperCase();
  if (method === "GET") {
    const accept = new Headers(init?.headers).get("accept") ?? "";
    return accept.split(",").some((type) => type.trim().toLowerCase().startsWith("text/event-stream"));
  }
  const body = init?.body;
  if (method !== "POST" || typeof body !== "string" || !body.includes(LISTEN_METHOD)) return false;
  try {
    return (JSON.parse(body) as { method?: unknown } | null)?.method === LISTEN_METHOD;
  } catch {
    return false;
  }
}

/**
 * A minimal `fetch` over `node:http`/`node:https` whose socket is unref'd: it never holds the event
 * loop. It sends `init`'s method, headers and string body, and answers with the status, headers and a
 * streamed body; redirects are returned, not followed (as with `redirect: "manual"`, which the SDK asks
 * for: it follows them itself). Aborting `init.signal` ends the request, or the body being read, with
 * the signal's reason. Network failures reject with `TypeError("fetch failed", { cause })`, and a body
 * cut short errors with `TypeError("terminated", { cause })`, as Node's fetch does.
 */
export function fetchOnIdleSocket(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const target = new URL(url);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (BAD_PORTS.has(Number(target.port))) {
    return Promise.reject(new TypeError("fetch failed", { cause: new Error("bad port") }));
  }
  const method = (init.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const body = typeof init.body === "string" ? init.body : undefined;
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));

  return new Promise<Response>((resolve, reject) => {
    const secure = target.protocol === "https:";
    const request = (secure ? https : http).request(target, {
      method,
      headers,
      agent: secure ? HTTPS_AGENT : HTTP_AGENT,
    });
    let failBody: ((error: unknown) => void) | undefined;
    const onAbort = () => {
      const reason: unknown = signal!.reason;
      reject(reason);
      failBody?.(reason);
      request.destroy();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    request.once("close", () => signal?.removeEventListener("abort", onAbort));
    // A new socket for each request (no keep-alive), unref'd before it is even connected.
    request.on("socket", (socket: Socket) => socket.unref());
    request.on("error", (error) => {
      if (failBody) failBody(new TypeError("terminated", { cause: error }));
      else reject(new TypeError("fetch failed", { cause: error }));
    });
    request.once("response", (response) => {
      const status = response.statusCode ?? 0;
      try {
        const responseHeaders = new Headers();
        const raw = response.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
        const hasBody = method !== "HEAD" && !NULL_BODY_STATUSES.has(status);
        let streamed: ReadableStream<Uint8Array> | null = null;
        if (hasBody) {
          const stream = streamOf(response, request);
          streamed = stream.body;
          failBody = stream.fail;
        } else response.resume();
        resolve(
          new Response(streamed, {
            status,
            statusText: response.statusMessage ?? "",
            headers: responseHeaders,
          }),
        );
      } catch (error) {
        request.destroy();
        reject(new TypeError("fetch failed", { cause: error }));
      }
    });
    request.end(body);
  });
}

/** A web stream of `response`'s body, read as it is pulled; cancelling it ends the request. */
function streamOf(
  response: IncomingMessage,
  request: ClientRequest,
): { body: ReadableStream<Uint8Array>; fail: (error: unknown) => void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let settled = false;
  const settle = (error?: unknown) => {
    if (settled) return;
    settled = true;
    if (error === undefined) controller.close();
    else controller.error(error);
  };
  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      response.on("data", (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) response.pause();
      });
      response.once("end", () => settle());
      response.once("error", (error) => settle(new TypeError("terminated", { cause: error })));
      response.once("close", () => {
        if (!response.complete)
          settle(new TypeError("terminated", { cause: new Error("other side closed") }));
      });
    },
    pull() {
      response.resume();
    },
    cancel() {
      settled = true;
      request.destroy();
    },
  });
  return { body, fail: settle };
}
