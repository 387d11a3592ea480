// A 2026-07-28 POST on the lean path (gateway.ts `serveNode`, lean-request.ts says which): given to the
// SDK's modern handler (`createMcpHandler`'s `fetch`: its validation ladder — version, envelope, standard
// headers, required client capabilities, scope challenges —, a server built for the request, the
// exchange on the SDK's `PerRequestHTTPServerTransport`) with its body already parsed and, for the web
// `Request` it would read, only what it reads of one: method, URL, headers and an abort signal. Its
// answer goes onto node's response: a JSON one in one write with its length, an SSE one streamed.
// Why not a transport of ours under the SDK's server, with no web `Response` at all: the modern exchange
// is only served by the handler's `serveModern`, whose steps (validateStandardRequestHeaders,
// missingClientCapabilities, findScopeChallenge, setNegotiatedProtocolVersion,
// installModernOnlyHandlers, seedClientIdentityFromEnvelope, `invoke`) are package-internal to
// @modelcontextprotocol/server and not exported, and the transport it builds answers with a `Response`.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo, McpHttpHandler } from "@modelcontextprotocol/server";
import { closeSignal, requestInfoOf, writeWebResponse } from "./node-request.js";

/**
 * Serve one 2026-07-28 message (`body`, parsed) on node's request and response. The signal the SDK is
 * given aborts when the client goes away before its answer is written (which cancels the call).
 */
export async function serveModernNode(
  handler: McpHttpHandler,
  http: { req: IncomingMessage; res: ServerResponse },
  body: object,
  authInfo: AuthInfo,
): Promise<void> {
  const { req, res } = http;
  const request = requestInfoOf(req, closeSignal(res));
  const response = await handler.fetch(request, { authInfo, parsedBody: body });
  if (res.destroyed || response.headers.get("content-type")?.startsWith("text/event-stream"))
    return writeWebResponse(res, response);
  // JSON, or no body (202): one write, its length known.
  const answer = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  res.writeHead(response.status, response.statusText, [
    ...[...response.headers].flat(),
    "content-length",
    String(answer?.length ?? 0),
  ]);
  res.end(answer);
}
