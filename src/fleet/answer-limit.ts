// How much of an HTTP server's answers is read: every body counted while it streams and cut at
// `maxResultBytes`, as the stdio transport cuts a line, so that no answer is ever held whole.
import type { FetchLike, JSONRPCMessage } from "@modelcontextprotocol/client";
import { ID_WINDOW_CHARS, requestIdOf, tooLargeAnswer } from "./answer-size.js";
import { opensLastingStream } from "./stream-fetch.js";

const LF = 10;
const CR = 13;
/** Headers that no longer describe a body this file replaced. */
const BODY_HEADERS = ["content-length", "content-encoding", "transfer-encoding"];

/**
 * `baseFetch` with every response body bounded by `maxBytes` while it streams:
 * - a JSON (or any non-SSE) body is refused by its Content-Length up front, else read only to the limit;
 * - an SSE answer to a POST is bounded whole, its events (progress, the server's requests) included;
 * - a lasting stream of server-to-client messages is bounded event by event: an event over the limit
 *   is skipped, the stream lives on.
 * What is cut is cancelled (the server sees its connection close), and an answer to requests is
 * replaced by an error response for each (`RESULT_TOO_LARGE_RPC_CODE`): those calls fail with
 * `RESULT_TOO_LARGE` and the session lives on.
 */
export function fetchWithinLimit(baseFetch: FetchLike, maxBytes: number): FetchLike {
  return async (url, init) => {
    const response = await baseFetch(url, init);
    if (!response.body || (response.status >= 300 && response.status < 400)) return response;
    const ids = () => requestIds(init?.body);
    if (mediaType(response) !== "text/event-stream") return await readWithin(response, maxBytes, ids);
    const lasting = opensLastingStream(url, init);
    return withBody(response, boundEvents(response.body, { maxBytes, ids, whole: !lasting }));
  };
}

/** A non-SSE body read to the end, or to `maxBytes` and then replaced by an error for its requests. */
async function readWithin(
  response: Response,
  maxBytes: number,
  ids: () => Array<string | number>,
): Promise<Response> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body!.cancel().catch(() => {});
    return tooLarge(
      response,
      ids(),
      `the server's answer was ${declared} bytes (its Content-Length), over the ${maxBytes}-byte limit (maxResultBytes); it was not read`,
    );
  }
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return tooLarge(
        response,
        ids(),
        `the server's answer went over the ${maxBytes}-byte limit (maxResultBytes) at ${size} bytes; the rest was not read`,
      );
    }
    chunks.push(value);
  }
  return withBody(response, Buffer.concat(chunks));
}

/** `response` with its body cut: an error response for each request it answered, or the reason. */
function tooLarge(response: Response, ids: Array<string | number>, reason: string): Response {
  if (!response.ok || ids.length === 0) return withBody(response, reason, "text/plain");
  const answers = ids.map((id) => tooLargeAnswer(id, reason));
  return withBody(response, JSON.stringify(answers.length === 1 ? answers[0] : answers), "application/json");
}

/**
 * An SSE body passed on an event at a time (each held until its blank line), within `maxBytes`:
 * `whole`, the answer to a POST, is cut once all of it passes the limit — the rest cancelled and an
 * error event sent for each of its requests; otherwise (a lasting stream) only an event over the limit
 * is, skipped to its end, and answered with an error when it was a response.
 */
function boundEvents(
  source: ReadableStream<Uint8Array>,
  limit: { maxBytes: number; ids: () => Array<string | number>; whole: boolean },
): ReadableStream<Uint8Array> {
  const { maxBytes } = limit;
  const reader = source.getReader();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  /** The current event's bytes, passed on when it ends. */
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let total = 0;
  /** Nothing on the current line yet; the last byte was a CR (a LF after it ends no line). */
  let lineEmpty = true;
  let afterCR = false;
  /** While an event too large to keep is skipped: its first characters, its last ones, its size. */
  let dropping: { head: string; tail: string; size: number } | undefined;
  /** Chunks passed on so far. */
  let passed = 0;
  const pass = (controller: ReadableStreamDefaultController<Uint8Array>, chunk: Uint8Array) => {
    controller.enqueue(chunk);
    passed += 1;
  };

  const skip = (piece: Uint8Array) => {
    if (!dropping) {
      const parts = [...held, piece];
      const head = decoder.decode(
        Buffer.concat(parts, Math.min(ID_WINDOW_CHARS * 4, heldBytes + piece.byteLength)),
      );
      dropping = { head, tail: "", size: heldBytes };
      held = [];
      heldBytes = 0;
      parts.pop();
      for (const part of parts) dropping.tail = tailOf(dropping.tail, part);
    }
    dropping.size += piece.byteLength;
    dropping.tail = tailOf(dropping.tail, piece);
  };
  const tailOf = (tail: string, piece: Uint8Array) =>
    (tail + decoder.decode(piece.subarray(-ID_WINDOW_CHARS))).slice(-ID_WINDOW_CHARS);
  /** The event that ends with `piece`: passed on, or, skipped, answered with an error. */
  const finish = (piece: Uint8Array, controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (!dropping && heldBytes + piece.byteLength <= maxBytes) {
      for (const chunk of held) pass(controller, chunk);
      if (piece.byteLength) pass(controller, piece);
      held = [];
      heldBytes = 0;
      return;
    }
    skip(piece);
    const { head, tail, size } = dropping!;
    dropping = undefined;
    const id = requestIdOf(dataOf(head), tail.trimEnd());
    const reason = `the server's answer was ${size} bytes, over the ${maxBytes}-byte limit (maxResultBytes); it was dropped`;
    if (id !== undefined) pass(controller, encoder.encode(eventOf(tooLargeAnswer(id, reason))));
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Read until something is passed on: a pull that enqueues nothing is not called again.
      const before = passed;
      while (passed === before) {
        const { done, value } = await reader.read();
        if (done) {
          for (const chunk of held) controller.enqueue(chunk);
          controller.close();
          return;
        }
        total += value.byteLength;
        if (limit.whole && total > maxBytes) {
          await reader.cancel().catch(() => {});
          const reason = `the server's answer went over the ${maxBytes}-byte limit (maxResultBytes) at ${total} bytes; the rest was not read`;
          for (const id of limit.ids())
            controller.enqueue(encoder.encode(eventOf(tooLargeAnswer(id, reason))));
          controller.close();
          return;
        }
        let start = 0;
        for (let i = 0; i < value.length; i++) {
          const byte = value[i];
          if (byte === LF && afterCR) {
            afterCR = false;
            continue;
          }
          afterCR = byte === CR;
          if (byte !== LF && byte !== CR) lineEmpty = false;
          else if (!lineEmpty) lineEmpty = true;
          else {
            // A blank line: the event ends here.
            finish(value.subarray(start, i + 1), controller);
            start = i + 1;
          }
        }
        const rest = value.subarray(start);
        if (rest.byteLength === 0) continue;
        if (dropping || heldBytes + rest.byteLength > maxBytes) skip(rest);
        else {
          held.push(rest);
          heldBytes += rest.byteLength;
        }
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The start of an event's data: what follows its first `data:` field. */
function dataOf(event: string): string {
  const at = event.search(/(^|[\r\n])data:/);
  if (at === -1) return "";
  const data = event.slice(event.indexOf("data:", at) + 5);
  return data.startsWith(" ") ? data.slice(1) : data;
}

function eventOf(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** The ids of the requests in a POST's JSON-RPC body (one message or a batch). */
function requestIds(body: unknown): Array<string | number> {
  if (typeof body !== "string") return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{ id?: unknown; method?: unknown }>;
    return messages
      .filter((m) => typeof m?.method === "string" && (typeof m.id === "string" || typeof m.id === "number"))
      .map((m) => m.id as string | number);
  } catch {
    return [];
  }
}

function mediaType(response: Response): string {
  return (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** `response` with another body (and, when given, its type); what described the old body goes. */
function withBody(
  response: Response,
  body: ConstructorParameters<typeof Response>[0],
  type?: string,
): Response {
  const headers = new Headers(response.headers);
  for (const name of BODY_HEADERS) headers.delete(name);
  if (type) headers.set("content-type", type);
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
