import type { Transport } from "@modelcontextprotocol/client";
import { type CallScope, callScope } from "../telemetry/call-scope.js";
import type { WireRecord, WireSink } from "../telemetry/wire-trace.js";

/** Requests whose answers are still awaited, remembered for their call ids; older ones are forgotten. */
const MAX_PENDING = 10_000;

/**
 * Wrap a transport so that every JSON-RPC message it carries, both ways, also goes to `sink`.
 * A Proxy rather than a subclass, so the SDK still sees the wrapped transport's own shape (stdio
 * transports are recognized by their `pid` and `stderr`).
 */
export function tapTransport(transport: Transport, server: string, sink: WireSink): Transport {
  // The call a request was sent for, by JSON-RPC id, so that its answer names the call too.
  const pending = new Map<string | number, CallScope>();
  const record = (direction: "to-server" | "from-server", message: unknown, scope: CallScope | undefined) => {
    const entry: WireRecord = { server, direction, time: new Date().toISOString(), message };
    if (scope?.runId !== undefined) entry.runId = scope.runId;
    if (scope) entry.callId = scope.callId;
    sink(entry);
  };

  return new Proxy(transport, {
    get(target, property, receiver) {
      if (property === "send") {
        return (message: Parameters<Transport["send"]>[0], options?: Parameters<Transport["send"]>[1]) => {
          const scope = callScope.getStore();
          const id = requestId(message);
          if (scope && id !== undefined && "method" in message) {
            if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
            pending.set(id, scope);
          }
          record("to-server", message, scope);
          return target.send(message, options);
        };
      }
      return forwardGet(target, property, receiver);
    },
    set(target, property, value) {
      if (property === "onmessage" && typeof value === "function") {
        const deliver = value as NonNullable<Transport["onmessage"]>;
        target.onmessage = (message, extra) => {
          const id = requestId(message);
          const scope = id !== undefined && !("method" in message) ? pending.get(id) : undefined;
          if (scope) pending.delete(id!);
          record("from-server", message, scope);
          deliver(message, extra);
        };
        return true;
      }
      return Reflect.set(target, property, value);
    },
  });
}

function requestId(message: object): string | number | undefined {
  const id = (message as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

type Method = (...args: unknown[]) => unknown;

/** A transport's methods bound to it, each bound once (a Proxy's `get` runs for every message sent). */
const boundMethods = new WeakMap<object, WeakMap<Method, Method>>();

/**
 * What a Proxy over a transport gives for a property it does not change: the transport's own value,
 * its methods bound to the transport (the SDK calls them on the Proxy), the same bound function each time.
 */
export function forwardGet<T extends object>(
  target: T,
  property: string | symbol,
  receiver: unknown,
): unknown {
  const value: unknown = Reflect.get(target, property, receiver);
  if (typeof value !== "function") return value;
  let bound = boundMethods.get(target);
  if (!bound) {
    bound = new WeakMap();
    boundMethods.set(target, bound);
  }
  let method = bound.get(value as Method);
  if (!method) {
    method = (value as Method).bind(target);
    bound.set(value as Method, method);
  }
  return method;
}
