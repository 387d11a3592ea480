// What one identity may take of a gateway: its open HTTP streams here (GET streams and requests not yet
// answered in full), its sessions in sessions.ts; both refuse with the 429 made here. Counted per
// identity, so one token at its cap holds up no one else.
import { DEFAULT_GATEWAY_STREAM_RETRY_AFTER_MS } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";

/** Which `gateway.limits` key a refusal is for. */
export type LimitName = "sessionsPerUser" | "streamsPerUser";

/** JSON-RPC's "server error" range: the request was not served, and may be sent again later. */
const LIMIT_REACHED = -32000;

/**
 * A 429 with `Retry-After` (whole seconds, at least 1) and a JSON-RPC error that names the identity,
 * the cap (`gateway.limits.<limit>`) and what to do (`hint`); `data` carries the same as fields.
 */
export function tooManyRequests(refusal: {
  limit: LimitName;
  max: number;
  user: string;
  retryAfterMs: number;
  what: string;
  hint: string;
  id?: unknown;
}): Response {
  const retryAfter = Math.max(1, Math.ceil(refusal.retryAfterMs / 1_000));
  const message = `${refusal.user} has ${refusal.max} ${refusal.what}, the most gateway.limits.${refusal.limit} allows: ${refusal.hint}, or try again in ${retryAfter} s`;
  const id = typeof refusal.id === "string" || typeof refusal.id === "number" ? refusal.id : null;
  return Response.json(
    {
      jsonrpc: "2.0",
      id,
      error: {
        code: LIMIT_REACHED,
        message,
        data: { limit: refusal.limit, max: refusal.max, user: refusal.user, retryAfterSeconds: retryAfter },
      },
    },
    // The connection is closed after the answer: a refused client keeps no socket (a descriptor) here.
    { status: 429, headers: { "retry-after": String(retryAfter), connection: "close" } },
  );
}

/** A positive whole number for a limit, or the `INVALID_INPUT` that names it. */
export function limitOf(name: string, value: number | undefined, fallback: number): number {
  const limit = value ?? fallback;
  if (!Number.isInteger(limit) || limit < 1)
    throw new SwitchyardError(
      "INVALID_INPUT",
      `gateway ${name} must be a positive integer (got ${String(limit)})`,
    );
  return limit;
}

/**
 * The HTTP requests each identity has open: one place from when a request is admitted until its
 * response's body ends, fails or is cancelled (the client went away).
 */
export class StreamSlots {
  readonly #max: number;
  readonly #open = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** How many `user` has open now. */
  count(user: string): number {
    return this.#open.get(user) ?? 0;
  }

  /**
   * Take a place of `user`'s: the function that gives it back (once; later calls do nothing), or the 429
   * to answer with when `user` has every place taken.
   */
  take(user: string): (() => void) | Response {
    if (this.count(user) >= this.#max)
      return tooManyRequests({
        limit: "streamsPerUser",
        max: this.#max,
        user,
        retryAfterMs: DEFAULT_GATEWAY_STREAM_RETRY_AFTER_MS,
        what: "requests open (GET streams and calls not yet answered)",
        hint: "close a stream it no longer reads, or wait for its calls to end",
      });
    this.#open.set(user, this.count(user) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.count(user) - 1;
      if (left > 0) this.#open.set(user, left);
      else this.#open.delete(user);
    };
  }

  /**
   * Serve one request of `user` in a place of its own, or answer 429 when `user` has every place taken.
   * The place is given back when the response has no body, when its body ends (or fails, or is
   * cancelled), or when `serve` throws.
   */
  async serve(user: string, serve: () => Promise<Response>): Promise<Response> {
    const release = this.take(user);
    if (release instanceof Response) return release;
    let response: Response;
    try {
      response = await serve();
    } catch (error) {
      release();
      throw error;
    }
    if (!response.body) {
      release();
      return response;
    }
    return new Response(heldUntilDone(response.body, release), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }
}

/** `body` passed on as it comes; `done` is called once when it ends, fails or is cancelled. */
function heldUntilDone(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: ended, value } = await reader.read();
        if (ended) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    async cancel(reason) {
      done();
      await reader.cancel(reason);
    },
  });
}
