import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_MAX_BODY_BYTES } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import type { GatewayAuth } from "./auth.js";
import type { Gateway } from "./gateway.js";
import { createHttpGuard, type HttpGuard } from "./http-guard.js";
import { nodeHeaders, readBody, toWebRequest, writeWebResponse } from "./node-request.js";
import { isProbe } from "./operations.js";

/** Options of {@link listenHttp}. */
export interface ListenOptions {
  /** The TCP port; 0 picks a free one. */
  port: number;
  /** The address to listen on; default {@link DEFAULT_GATEWAY_HOST} (loopback). */
  host?: string;
  /** A larger request body is answered 413; default {@link DEFAULT_GATEWAY_MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /** Told of requests that failed in the adapter (not MCP errors: those are answers). */
  onError?: (error: unknown) => void;
  /** Host header names accepted besides the loopback ones (DNS-rebinding protection: http-guard.ts). */
  allowedHosts?: readonly string[];
  /** Browser Origin hostnames accepted besides the loopback ones. */
  allowedOrigins?: readonly string[];
  /** OAuth mode: the protected resource metadata is served from it (`/.well-known/oauth-protected-resource`). */
  auth?: Pick<GatewayAuth, "metadata">;
}

/** A listening gateway: its URL (`http://host:port/mcp`) and how to stop it. */
export interface HttpListener extends AsyncDisposable {
  url: string;
  port: number;
  /** Stop listening and drop open connections; the gateway itself stays open. Idempotent. */
  close(): Promise<void>;
}

/**
 * Serve a gateway on `node:http`. A POST of one JSON-RPC message in a 2025-11-25 session held here, or
 * of one 2026-07-28 message, is served on node's own request and response (`Gateway.serveNode`); every other request becomes a
 * web-standard `Request` for `Gateway.handle` (its signal aborts when the client goes away, which
 * cancels its calls) and the `Response` is streamed back (SSE included).
 * @throws SwitchyardError `INVALID_INPUT` when the port cannot be bound (in use, not allowed).
 */
export async function listenHttp(gateway: Gateway, options: ListenOptions): Promise<HttpListener> {
  const host = options.host ?? DEFAULT_GATEWAY_HOST;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_GATEWAY_MAX_BODY_BYTES;
  const guard = createHttpGuard({
    host,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });
  // Host and Origin first (a rebound page gets nothing, not even a challenge), then the metadata route.
  // Probes are let past the Host check: a kubelet names the pod's address, and what /healthz and an
  // unauthenticated /readyz tell (a status, nothing more) is nothing a rebound page could use.
  const handle = async (request: Request) =>
    (isProbe(request) ? undefined : guard.check(request)) ??
    options.auth?.metadata(request) ??
    (await gateway.handle(request));
  const server = createServer((req, res) => {
    void serve(gateway, handle, { req, res, maxBodyBytes, guard }).catch((error) => {
      options.onError?.(error);
      if (!res.headersSent)
        res.writeHead((error as { status?: number }).status ?? 500, { connection: "close" });
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new SwitchyardError(
          "INVALID_INPUT",
          `cannot listen on ${host}:${options.port}: ${(error as Error).message} (choose another --http port)`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/mcp`,
    port,
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function serve(
  gateway: Gateway,
  handle: (request: Request) => Promise<Response>,
  http: { req: IncomingMessage; res: ServerResponse; maxBodyBytes: number; guard: HttpGuard },
) {
  const { req, res } = http;
  const body =
    req.method === "GET" || req.method === "HEAD" ? undefined : await readBody(req, http.maxBodyBytes);
  // The lean path: a POST that passes the Host and Origin checks may be served on node's own request and
  // response (the gateway says whether it took it); anything else, or a refusal, takes the full path.
  if (
    body &&
    req.method === "POST" &&
    http.guard.check({ headers: nodeHeaders(req) }) === undefined &&
    (await gateway.serveNode(req, res, body))
  )
    return;
  await writeWebResponse(res, await handle(toWebRequest(req, body, res)));
}
