// The gateway's operations endpoints beside its MCP path: `/healthz` (the process answers), `/readyz`
// (every enabled server can take requests) and `/metrics` (Prometheus). They need the gateway's
// authentication like the MCP path, unless the gateway was told they are open (`openOperations`).
import type { Switchyard } from "../switchyard.js";
import type { GatewayMetrics } from "./metrics.js";

/** `GET /healthz`: 200 while the process answers. */
export const HEALTH_PATH = "/healthz";
/** `GET /readyz`: 200 when every enabled server is ready or lazy, else 503 with each one that is not. */
export const READY_PATH = "/readyz";
/** `GET /metrics`: the gateway's metrics in Prometheus's text format. */
export const METRICS_PATH = "/metrics";

const PATHS = new Set([HEALTH_PATH, READY_PATH, METRICS_PATH]);

/** Whether `pathname` is one of the operations endpoints. */
export function isOperationsPath(pathname: string): boolean {
  return PATHS.has(pathname);
}

/** A server that keeps `/readyz` at 503, and why. */
export interface NotReady {
  name: string;
  status: string;
  error?: string;
}

/** Which enabled servers cannot take requests now: neither ready nor lazy (a lazy one starts on demand). */
export function notReady(yard: Switchyard): NotReady[] {
  return yard
    .servers()
    .filter((server) => server.status !== "ready" && server.status !== "lazy" && server.status !== "disabled")
    .map((server) => ({
      name: server.name,
      status: server.status,
      ...(server.error !== undefined ? { error: server.error } : {}),
    }));
}

/** Answer one operations request (its path checked by {@link isOperationsPath}). */
export async function answerOperations(
  request: Request,
  parts: { yard: Switchyard; metrics: GatewayMetrics; closed: boolean },
): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD")
    return new Response("Method Not Allowed", { status: 405, headers: { allow: "GET, HEAD" } });
  const { pathname } = new URL(request.url);
  if (pathname === HEALTH_PATH)
    return parts.closed ? json(503, { status: "closing" }) : json(200, { status: "ok" });
  if (pathname === READY_PATH) {
    if (parts.closed) return json(503, { ready: false, reason: "the gateway is shutting down" });
    const servers = notReady(parts.yard);
    return servers.length === 0 ? json(200, { ready: true }) : json(503, { ready: false, servers });
  }
  const { contentType, text } = await parts.metrics.text();
  return new Response(text, { status: 200, headers: { "content-type": contentType } });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}
