// Which POSTs the gateway serves on its lean path (gateway.ts `serveNode`): one JSON-RPC message, not
// `initialize`, of a 2025-11-25 session, with the headers the SDK's transport would accept. Anything
// else — a batch, a body that does not parse, a missing or wrong header, a 2026-07-28 request — goes
// the full path, where the SDK answers it as it always has (415, 406, 400, …).
import type { IncomingMessage } from "node:http";
import {
  isJsonContentType,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { isSingleMessage } from "./session-transport.js";

/** A POST the lean path may serve: its session, its `MCP-Protocol-Version` (if sent), its message. */
export interface LeanMessage {
  sessionId: string;
  protocolVersion: string | undefined;
  message: JSONRPCMessage;
}

/** The lean path's reading of a POST to `path` (its body read whole), or undefined for the full path. */
export function leanMessage(req: IncomingMessage, body: Buffer, path: string): LeanMessage | undefined {
  const { headers } = req;
  const sessionId = headers["mcp-session-id"];
  const protocolVersion = headers["mcp-protocol-version"];
  const accept = headers.accept ?? "";
  if (
    req.method !== "POST" ||
    typeof sessionId !== "string" ||
    (protocolVersion !== undefined && typeof protocolVersion !== "string") ||
    pathOf(req.url) !== path ||
    !accept.includes("application/json") ||
    !accept.includes("text/event-stream") ||
    !isJsonContentType(headers["content-type"] ?? null)
  )
    return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  if (!isSingleMessage(message) || ("method" in message && message.method === "initialize")) return undefined;
  if (!isLegacy(message, protocolVersion)) return undefined;
  return { sessionId, protocolVersion, message };
}

/**
 * Whether a message is surely of the 2025 era, as the SDK's classification (`isLegacyRequest`) would
 * find: no 2026-07-28 envelope claim in its `_meta`, and no `MCP-Protocol-Version` header or one naming a
 * 2025-era revision. Anything else (a claim, a modern or unknown revision) takes the full path, where the
 * SDK classifies and answers it.
 */
function isLegacy(message: JSONRPCMessage, protocolVersion: string | undefined): boolean {
  if (protocolVersion !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)) return false;
  const params = (message as { params?: { _meta?: unknown } }).params;
  const meta = params?._meta;
  return !(typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta);
}

/** A request target's path, without its query. */
function pathOf(url: string | undefined): string {
  const target = url ?? "/";
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}
