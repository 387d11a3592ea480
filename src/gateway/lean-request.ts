// Which POSTs the gateway serves on its lean path (gateway.ts `serveNode`): one JSON-RPC message, not
// `initialize`, of a 2025-11-25 session, with the headers the SDK's transport would accept; or one
// JSON-RPC object carrying the 2026-07-28 per-request envelope claim (the SDK's modern handler owns every
// answer to such a request, its rejections included). Anything else — a batch, a body that does not
// parse or is past the SDK's bound, a missing or wrong header — goes the full path, where the SDK
// answers it as it always has (415, 413, 406, 400, …).
import type { IncomingMessage } from "node:http";
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJsonContentType,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { isSingleMessage } from "./session-transport.js";

/** A POST the lean path may serve: its session, its `MCP-Protocol-Version` (if sent), its message. */
export interface LeanMessage {
  era: "session";
  sessionId: string;
  protocolVersion: string | undefined;
  message: JSONRPCMessage;
}

/** A 2026-07-28 POST the lean path may serve: its body, parsed (the SDK's modern handler checks it). */
export interface ModernMessage {
  era: "modern";
  body: object;
}

/** The lean path's reading of a POST to `path` (its body read whole), or undefined for the full path. */
export function leanMessage(
  req: IncomingMessage,
  body: Buffer,
  path: string,
): LeanMessage | ModernMessage | undefined {
  const { headers } = req;
  if (
    req.method !== "POST" ||
    pathOf(req.url) !== path ||
    body.length > DEFAULT_MAX_REQUEST_BODY_SIZE ||
    !isJsonContentType(headers["content-type"] ?? null)
  )
    return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  if (claimsEnvelope(message)) return { era: "modern", body: message as object };
  const sessionId = headers["mcp-session-id"];
  const protocolVersion = headers["mcp-protocol-version"];
  const accept = headers.accept ?? "";
  if (
    typeof sessionId !== "string" ||
    (protocolVersion !== undefined && typeof protocolVersion !== "string") ||
    !accept.includes("application/json") ||
    !accept.includes("text/event-stream")
  )
    return undefined;
  if (!isSingleMessage(message) || ("method" in message && message.method === "initialize")) return undefined;
  if (!isLegacy(message, protocolVersion)) return undefined;
  return { era: "session", sessionId, protocolVersion, message };
}

/**
 * Whether a parsed body is one JSON-RPC request or notification, not `initialize`, whose `params._meta`
 * carries the 2026-07-28 envelope claim: the SDK's classification (`isLegacyRequest`) never finds such a
 * message legacy, so its modern handler answers it — served, or refused with the envelope's, the headers' or the version's error.
 */
function claimsEnvelope(message: unknown): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const { method, params } = message as { method?: unknown; params?: { _meta?: unknown } };
  // `initialize` with a claim the SDK does not find well-formed is still the 2025 handshake.
  if (typeof method !== "string" || method === "initialize") return false;
  const meta = params?._meta;
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
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
