// What a request for a 2025-11-25 session that cannot be served is answered: 404 for a session this
// gateway does not know or that has expired (the MCP spec: the client starts another), 403 for another
// identity's. Each message says what to do.

/** A time in ms as an ISO date (what sessions are stamped and told with). */
export const isoAt = (ms: number) => new Date(ms).toISOString();

/** JSON-RPC's "server error" code the SDKs answer an unknown session with. */
const SESSION_ERROR = -32001;
const START_ANOTHER =
  "start a new session: send initialize again without an Mcp-Session-Id header (MCP clients do this on a 404)";

/**
 * The 404 a request for an unknown or ended session gets: its client starts another (the MCP spec). A
 * sealed id no accepted key opens (`unsealed`: altered, or sealed with a key since retired) or that
 * arrives at a gateway with no `gateway.sessionKey` (`no key`) says so.
 */
export function sessionNotFound(why?: "unsealed" | "no key"): Response {
  const message =
    why === "unsealed"
      ? `Session not found: this session id was not sealed by any key this gateway accepts (it was altered, or its key was retired from gateway.previousSessionKeys); ${START_ANOTHER}`
      : why === "no key"
        ? `Session not found: this is a sealed session id and this gateway has no gateway.sessionKey to open it (give every replica the same key); ${START_ANOTHER}`
        : "Session not found";
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code: SESSION_ERROR, message } },
    { status: 404 },
  );
}

/** The 404 for a sealed session past its `gateway.limits.sessionMaxAgeMs`. */
export function sessionExpired(expiresAt: number): Response {
  return Response.json(
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: SESSION_ERROR,
        message: `Session not found: this session expired at ${isoAt(expiresAt)} (gateway.limits.sessionMaxAgeMs after its initialize); ${START_ANOTHER}`,
      },
    },
    { status: 404 },
  );
}

/** The 403 for a session begun by another identity: the token presented is not the one that began it. */
export function anotherUsers(): Response {
  return Response.json(
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: SESSION_ERROR,
        message:
          "this session belongs to another user: send the token it was begun with, or start your own session (initialize without an Mcp-Session-Id header)",
      },
    },
    { status: 403 },
  );
}
