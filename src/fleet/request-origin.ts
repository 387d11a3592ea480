// Whose request a server's message belongs to. A request is sent under an origin (the gateway: the
// client's call it makes); what the server sends back — log messages, elicitation, sampling — is
// handed on with the one origin it can be tied to, or none, so that it never reaches another caller.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Transport } from "@modelcontextprotocol/client";
import { forwardGet } from "./tap-transport.js";

/** Who a request to a server is made for: an object the caller chooses and recognizes (compared by identity). */
export type RequestOrigin = object;

const origins = new AsyncLocalStorage<RequestOrigin>();
/**
 * Whether any work has run under an origin in this process: until then every origin is none, and
 * messages are handled without a scope (on Node 20 the first scope turns on async context tracking for
 * the whole process, which a Switchyard without a gateway need not pay for).
 */
let originsInUse = false;

/** Run `work` so that every request it sends to a server is made for `origin`. */
export function withRequestOrigin<T>(origin: RequestOrigin, work: () => T): T {
  originsInUse = true;
  return origins.run(origin, work);
}

/** The origin the code running now works for, if any. */
export function currentRequestOrigin(): RequestOrigin | undefined {
  return origins.getStore();
}

/**
 * Run `work` for no origin: a server's process, its streams and timers made there carry none, so that a
 * server (re)started during one caller's request does not hand that caller everything it sends later.
 */
export function outsideRequestOrigins<T>(work: () => T): T {
  return origins.exit(work);
}

/** Requests in flight remembered per session; past this, the oldest are forgotten (they were lost). */
const MAX_PENDING = 10_000;

/** Requests that stay open for as long as the connection does: no reply to them is ever due. */
const LASTING = new Set(["subscriptions/listen"]);

/** A message that came over the wire: the origin it was tied to when it arrived (see {@link RequestsInFlight}). */
const received = new AsyncLocalStorage<{ origin: RequestOrigin | undefined }>();

/**
 * The requests a session has sent and not yet had answered, each with its origin, and so the origin a
 * message from the server belongs to ({@link originOf}).
 */
export class RequestsInFlight {
  readonly #pending = new Map<string | number, RequestOrigin | undefined>();

  /**
   * Wrap the session's transport: requests going out are noted with their origin, answers coming in
   * cross them off, and every message that comes in is handled with the origin it is tied to.
   */
  track(transport: Transport): Transport {
    const pending = this.#pending;
    const tiedTo = () => this.#tiedTo();
    return new Proxy(transport, {
      get(target, property, receiver) {
        if (property === "send")
          return (message: Parameters<Transport["send"]>[0], options?: Parameters<Transport["send"]>[1]) => {
            const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
            if (isId(id) && typeof method === "string" && !LASTING.has(method)) {
              if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
              pending.set(id, currentRequestOrigin());
            }
            // A request given up on (timed out, aborted) is answered never: it is no longer in flight.
            if (method === "notifications/cancelled") {
              const { requestId } = (params ?? {}) as { requestId?: unknown };
              if (isId(requestId)) pending.delete(requestId);
            }
            return target.send(message, options);
          };
        return forwardGet(target, property, receiver);
      },
      set(target, property, value) {
        if (property === "onmessage" && typeof value === "function") {
          const deliver = value as NonNullable<Transport["onmessage"]>;
          target.onmessage = (message, extra) => {
            const { id, method } = message as { id?: unknown; method?: unknown };
            const origin = originsInUse ? tiedTo() : undefined;
            if (isId(id) && method === undefined) pending.delete(id);
            if (originsInUse) received.run({ origin }, () => deliver(message, extra));
            else deliver(message, extra);
          };
          return true;
        }
        if (property === "onclose" && typeof value === "function") {
          const closed = value as NonNullable<Transport["onclose"]>;
          target.onclose = () => {
            pending.clear();
            closed();
          };
          return true;
        }
        return Reflect.set(target, property, value);
      },
    });
  }

  /**
   * The origin of the server's message being handled now: the one it was tied to when it arrived over
   * the wire, or — a question embedded in an answer (2026-07-28 `input_required`), handled by the work
   * that got the answer — that work's.
   */
  originOf(): RequestOrigin | undefined {
    const wire = received.getStore();
    return wire ? wire.origin : currentRequestOrigin();
  }

  /**
   * The origin a message arriving now is tied to:
   * - the origin of the work that reads it, when that work's request is in flight here: the message
   *   came on that request's own stream (Streamable HTTP);
   * - else the origin of the requests in flight, when they all have the same one;
   * - else none: nothing in flight (the server sent it of its own accord), or requests of several
   *   origins (or of none: our own, such as a listing) in flight, which a server that names no request
   *   (stdio, legacy SSE, a standalone stream) cannot be told apart by.
   */
  #tiedTo(): RequestOrigin | undefined {
    const reading = currentRequestOrigin();
    const inFlight = new Set(this.#pending.values());
    if (reading !== undefined && inFlight.has(reading)) return reading;
    return inFlight.size === 1 ? inFlight.values().next().value : undefined;
  }
}

function isId(id: unknown): id is string | number {
  return typeof id === "string" || typeof id === "number";
}
