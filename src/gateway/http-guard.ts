// DNS-rebinding protection for the gateway's HTTP side: the Host header must name the gateway, and a
// browser's Origin header one the gateway allows. A web page on another site cannot then reach a
// gateway on the user's loopback by pointing its own hostname at 127.0.0.1. The checks are the MCP
// SDK's own (`validateHostHeader`, `validateOriginHeader`); this file decides the allowlists.
import {
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
} from "@modelcontextprotocol/server";
import type { HeaderSource } from "./node-request.js";

export interface HttpGuardOptions {
  /** The address the gateway listens on (`127.0.0.1` by default). */
  host: string;
  /**
   * Hostnames the Host header may name (no port), besides `localhost`, `127.0.0.1` and `[::1]` on a
   * loopback address. On another address with none given, any Host is accepted: the gateway is then
   * meant to be reached by name, and its tokens protect it.
   */
  allowedHosts?: readonly string[];
  /**
   * Hostnames a browser's Origin may name (port-agnostic; `moz-extension://*` style for a scheme), besides
   * the loopback names on a loopback address. A request without Origin (every non-browser client) passes.
   */
  allowedOrigins?: readonly string[];
}

/** Whether an address is the machine's own: `localhost`, `127.0.0.0/8` or `::1`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** The Host and Origin checks of {@link createHttpGuard}. */
export interface HttpGuard {
  /** Undefined for a request that may go on (only its headers are read), else the 403 to send. */
  check(request: HeaderSource): Response | undefined;
}

/**
 * The gateway's Host and Origin checks: `check(request)` is undefined for a request that may go on,
 * else the 403 to send (a JSON-RPC error naming the header and what to set in `gateway`).
 */
export function createHttpGuard(options: HttpGuardOptions): HttpGuard {
  const loopback = isLoopbackHost(options.host);
  const local = loopback ? localhostAllowedHostnames() : [];
  const hosts =
    loopback || (options.allowedHosts?.length ?? 0) > 0
      ? [...local, ...(options.allowedHosts ?? [])]
      : undefined;
  const origins = [...local, ...(options.allowedOrigins ?? [])];
  const refuse = (message: string) =>
    Response.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }, { status: 403 });
  return {
    check(request) {
      if (hosts) {
        const host = validateHostHeader(request.headers.get("host"), hosts);
        if (!host.ok)
          return refuse(
            `${host.message}; a gateway answers only for its own names (${hosts.join(", ")}): add this one to gateway.allowedHosts if clients reach it so`,
          );
      }
      const origin = validateOriginHeader(request.headers.get("origin"), origins);
      if (!origin.ok)
        return refuse(
          `${origin.message}; a browser page may call the gateway only from an origin in gateway.allowedOrigins`,
        );
      return undefined;
    },
  };
}
