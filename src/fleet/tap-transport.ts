import type { Transport } from "@modelcontextprotocol/client";
import type { WireSink } from "../telemetry/wire-trace.js";

/**
 * Wrap a transport so that every JSON-RPC message it carries, both ways, also goes to `sink`.
 * A Proxy rather than a subclass, so the SDK still sees the wrapped transport's own shape (stdio
 * transports are recognized by their `pid` and `stderr`).
 */
export function tapTransport(transport: Transport, server: string, sink: WireSink): Transport {
  const record = (direction: "to-server" | "from-server", message: unknown) =>
    sink({ server, direction, time: new Date().toISOString(), message });

  return new Proxy(transport, {
    get(target, property, receiver) {
      if (property === "send") {
        return (message: Parameters<Transport["send"]>[0], options?: Parameters<Transport["send"]>[1]) => {
          record("to-server", message);
          return target.send(message, options);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, property, value) {
      if (property === "onmessage" && typeof value === "function") {
        const deliver = value as NonNullable<Transport["onmessage"]>;
        target.onmessage = (message, extra) => {
          record("from-server", message);
          deliver(message, extra);
        };
        return true;
      }
      return Reflect.set(target, property, value);
    },
  });
}
