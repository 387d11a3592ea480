// The gateway's operations endpoints beside its MCP path: `/healthz` (the process answers), `/readyz`
// (every enabled server can take requests) and `/metrics` (Prometheus). `/metrics` and the reasons
// `/readyz` gives need the gateway's authentication like the MCP path, unless the gateway was told they
// are open (`openOperations`). `/healthz` and `/readyz`'s bare status answer anyone: an orchestrator's
// probes carry no token (a kubelet's httpGet cannot read one from a Secret), and a status tells nothing.
import type { Switchyard } from "../switchyard.js";
import type { GatewayMetrics } from "./metrics.js";

/** `GET /healthz`: 200 while the process answers. */
export const HEALTH_PATH = "/healthz";
/** `GET /readyz`: 200 when every enabled server is ready or lazy, else 503 with each one that is not. */
export const READY_PATH = "/readyz";
/** `GET /metrics`: the gateway's metrics in Prometheus's text format. */
export const METRICS_PATH = "/metrics";

const PATHS = new Set([HEALTH_PATH, READY_PATH, METRICS_PATH]);

/** A probe: a GET or HEAD of `/healthz` or `/readyz`, answered to anyone (their status, no details). */
export function isProbe(request: Request): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const { pathname } = new URL(request.url);
  return pathname === HEALTH_PATH || pathname === READY_PATH;
}

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

/**
 * Answer one operations request (its path checked by {@link isOperationsPath}). `trusted`: the caller
 * was authenticated (or the endpoints are open); an untrusted caller gets `/healthz` and `/readyz`'s
 * status alone, and 401 (`refusal`) for `/metrics`.
 */
export async function answerOperations(
  request: Request,
  parts: { yard: Switchyard; metrics: GatewayMetrics; closed: boolean; trusted: boolean; refusal?: Response },
): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD")
    return new Response("Method Not Allowed", { status: 405, headers: { allow: "GET, HEAD" } });
  const { pathname } = new URL(request.url);
  if (pathname === HEALTH_PATH)
    return parts.closed ? json(503, { status: "closing" }) : json(200, { status: "ok" });
  if (pathname === READY_PATH) {
    if (parts.closed) return json(503, { ready: false, reason: "the gateway is shutting down" });
    const servers = notReady(parts.yard);
    if (servers.length === 0) return json(200, { ready: true });
    return json(503, parts.trusted ? { ready: false, servers } : { ready: false });
  }
  if (!parts.trusted && parts.refusal) return parts.refusal;
  const { contentType, text } = await parts.metrics.text();
  return new Response(text, { status: 200, headers: { "content-type": contentType } });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}
