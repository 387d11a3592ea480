// The gateway's Prometheus metrics (`GET /metrics`), on prom-client with a registry of the gateway's own
// (never the process-wide default one, which another library in the process may fill). Names follow the
// MCP semantic conventions' metrics (`mcp.client.operation.duration` → `mcp_client_operation_duration_seconds`);
// the per-server gauges are read from `servers()` and `findings()` when scraped, so nothing is kept twice.
import type * as Prometheus from "prom-client";
import { DEFAULT_GATEWAY_DURATION_BUCKETS_S } from "../config/defaults.js";
import { lazyRequire } from "../lazy-require.js";
import type { Switchyard } from "../switchyard.js";
import type { SwitchyardEvent } from "../telemetry/events.js";

const loadPrometheus = lazyRequire<typeof Prometheus>("prom-client");

/** One request the gateway answered, as its server-side duration records it. */
export interface ServerOperation {
  /** The JSON-RPC method (`tools/call`, `resources/read`, …). */
  method: string;
  /** The fleet's server it went to, when one did; empty otherwise. */
  server: string;
  /** `tool_error` for a tool's error result, the failure's code, or undefined when it succeeded. */
  errorType: string | undefined;
  seconds: number;
}

/** What {@link GatewayMetrics.text} answers with. */
export interface MetricsText {
  contentType: string;
  text: string;
}

const OPERATION_LABELS = ["mcp_method_name", "mcp_server", "error_type"] as const;

/**
 * A gateway's metrics: the duration of every request it sent to a server (client side, from the
 * Switchyard's `call_finished` events) and of every request it answered (server side), and per server:
 * calls in flight, queued, breaker state, concurrency limit, trust findings, readiness.
 */
export class GatewayMetrics {
  readonly #registry: Prometheus.Registry;
  readonly #server: Prometheus.Histogram<(typeof OPERATION_LABELS)[number]>;
  readonly #unobserve: () => void;

  constructor(yard: Switchyard) {
    const prom = loadPrometheus();
    this.#registry = new prom.Registry();
    const registers = [this.#registry];
    const histogram = (name: string, help: string) =>
      new prom.Histogram({
        name,
        help,
        labelNames: OPERATION_LABELS,
        buckets: [...DEFAULT_GATEWAY_DURATION_BUCKETS_S],
        registers,
      });
    const client = histogram(
      "mcp_client_operation_duration_seconds",
      "Duration of requests the gateway sent to its servers (mcp.client.operation.duration), from admission to answer",
    );
    this.#server = histogram(
      "mcp_server_operation_duration_seconds",
      "Duration of requests the gateway answered for its clients (mcp.server.operation.duration)",
    );
    this.#unobserve = yard.observe((event: SwitchyardEvent) => {
      if (event.type !== "call_finished" || event.server === undefined) return;
      client.observe(
        {
          mcp_method_name: event.method ?? "tools/call",
          mcp_server: event.servedBy ?? event.server,
          error_type: errorTypeOf(event.error?.code),
        },
        event.ms / 1000,
      );
    });
    this.#serverGauges(prom, registers, yard);
  }

  /** A request the gateway answered. */
  serverOperation(operation: ServerOperation): void {
    this.#server.observe(
      {
        mcp_method_name: operation.method,
        mcp_server: operation.server,
        error_type: errorTypeOf(operation.errorType),
      },
      operation.seconds,
    );
  }

  /** The metrics in Prometheus's text format (version 0.0.4), with their content type. */
  async text(): Promise<MetricsText> {
    return { contentType: this.#registry.contentType, text: await this.#registry.metrics() };
  }

  /** Stop counting the Switchyard's requests. Idempotent. */
  close(): void {
    this.#unobserve();
  }

  #serverGauges(prom: typeof Prometheus, registers: Prometheus.Registry[], yard: Switchyard): void {
    // Each gauge is set afresh at each scrape from what the Switchyard says now (a server removed from
    // the config is gone from the next scrape, not frozen at its last value).
    const gauge = (
      name: string,
      help: string,
      labelNames: string[],
      read: (set: (labels: Record<string, string>, value: number) => void) => void,
    ) =>
      new prom.Gauge({
        name,
        help,
        labelNames,
        registers,
        collect() {
          this.reset();
          read((labels, value) => this.set(labels, value));
        },
      });
    gauge("switchyard_server_calls_in_flight", "Requests a server is running now", ["mcp_server"], (set) => {
      for (const server of yard.servers()) set({ mcp_server: server.name }, server.inFlight);
    });
    gauge(
      "switchyard_server_queue_length",
      "Requests waiting for a server's concurrency limit",
      ["mcp_server"],
      (set) => {
        for (const server of yard.servers()) set({ mcp_server: server.name }, server.queued);
      },
    );
    gauge(
      "switchyard_server_concurrency_limit",
      "Requests a server may have in flight now: its maxConcurrency, or where its adaptive limit stands",
      ["mcp_server", "mode"],
      (set) => {
        for (const server of yard.servers())
          set({ mcp_server: server.name, mode: server.limitMode }, server.limit);
      },
    );
    gauge(
      "switchyard_server_breaker_state",
      "A server's circuit breaker: 1 for the state it is in (closed, open, probing), 0 for the others",
      ["mcp_server", "state"],
      (set) => {
        for (const server of yard.servers())
          for (const state of ["closed", "open", "probing"])
            set({ mcp_server: server.name, state }, server.breaker === state ? 1 : 0);
      },
    );
    gauge(
      "switchyard_server_ready",
      "1 when a server can take requests now (ready), or will start on its first (lazy); 0 otherwise",
      ["mcp_server", "status"],
      (set) => {
        for (const server of yard.servers())
          set(
            { mcp_server: server.name, status: server.status },
            server.status === "ready" || server.status === "lazy" ? 1 : 0,
          );
      },
    );
    gauge(
      "switchyard_server_trust_findings",
      "A server's current trust findings (switchyard scan), by severity",
      ["mcp_server", "severity"],
      (set) => {
        const counts = new Map<string, Map<string, number>>();
        for (const server of yard.servers()) counts.set(server.name, new Map());
        for (const finding of yard.findings()) {
          const bySeverity = counts.get(finding.server) ?? new Map<string, number>();
          bySeverity.set(finding.severity, (bySeverity.get(finding.severity) ?? 0) + 1);
          counts.set(finding.server, bySeverity);
        }
        for (const [server, bySeverity] of counts)
          for (const [severity, count] of bySeverity) set({ mcp_server: server, severity }, count);
      },
    );
  }
}

/** The `error_type` label: empty for a success, `tool_error` for a tool's error result, else the code. */
function errorTypeOf(code: string | undefined): string {
  if (code === undefined) return "";
  return code === "TOOL_ERROR" ? "tool_error" : code;
}
