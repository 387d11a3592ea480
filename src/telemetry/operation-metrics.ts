// The MCP semantic conventions' operation metrics through `@opentelemetry/api` alone:
// `mcp.client.operation.duration` (each request Switchyard sends a server, from sent to answered) and
// `mcp.server.operation.duration` (each request the gateway answers). Like spans, they cost nothing until
// the application registers a meter provider with the API (an SDK's `MeterProvider`): the API is not
// even loaded before.
import type { Attributes, Histogram, MeterProvider } from "@opentelemetry/api";
import { DEFAULT_GATEWAY_DURATION_BUCKETS_S } from "../config/defaults.js";
import { API_GLOBAL, loadApi } from "./tracer.js";

/** The instrumentation scope of Switchyard's metrics (its spans' too). */
const METER_NAME = "switchyard";

const NAMES = {
  client: "mcp.client.operation.duration",
  server: "mcp.server.operation.duration",
} as const;
const DESCRIPTIONS = {
  client:
    "The duration of the MCP request as observed on the sender, from the time it was sent until the response",
  server:
    "MCP request duration as observed on the receiver, from the time it was received until the result is sent",
} as const;

let cached: { provider: MeterProvider; histograms: Record<keyof typeof NAMES, Histogram> } | undefined;

/** The histograms of the meter provider registered now; undefined while none is. */
function histograms(): Record<keyof typeof NAMES, Histogram> | undefined {
  const registered = (globalThis as Record<symbol, { metrics?: unknown } | undefined>)[API_GLOBAL];
  if (registered?.metrics === undefined) return undefined;
  const provider = loadApi().metrics.getMeterProvider();
  if (cached?.provider !== provider) {
    const meter = provider.getMeter(METER_NAME);
    const histogram = (kind: keyof typeof NAMES) =>
      meter.createHistogram(NAMES[kind], {
        unit: "s",
        description: DESCRIPTIONS[kind],
        advice: { explicitBucketBoundaries: [...DEFAULT_GATEWAY_DURATION_BUCKETS_S] },
      });
    cached = { provider, histograms: { client: histogram("client"), server: histogram("server") } };
  }
  return cached.histograms;
}

/**
 * Record one MCP operation's duration (`client`: a request sent to a server; `server`: a request the
 * gateway answered) with its attributes (`mcp.method.name`, `error.type` when it failed — `tool_error`
 * for a tool's error result —, `gen_ai.tool.name`, …); nothing while no meter provider is registered.
 * `attributes` is called only when one is.
 */
export function recordOperation(
  kind: "client" | "server",
  seconds: number,
  attributes: () => Attributes,
): void {
  const found = histograms();
  if (found) found[kind].record(seconds, attributes());
}
