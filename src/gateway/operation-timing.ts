import type {
  HandlerResultTypeMap,
  RequestMethod,
  RequestTypeMap,
  Server,
  ServerContext,
} from "@modelcontextprotocol/server";
import type { Switchyard } from "../switchyard.js";
import { recordOperation } from "../telemetry/operation-metrics.js";
import type { GatewayMetrics } from "./metrics.js";

type Handler<M extends RequestMethod> = (
  request: RequestTypeMap[M],
  ctx: ServerContext,
) => HandlerResultTypeMap[M] | Promise<HandlerResultTypeMap[M]>;

/**
 * `server.setRequestHandler`, each answer's duration recorded as `mcp.server.operation.duration`: in
 * the gateway's `/metrics` (by method, the fleet's server it went to — a tool's or a prompt's — and its
 * error type) and, when a meter provider is registered, in OpenTelemetry. The error type is
 * `tool_error` for a tool's error result, else the failure's code.
 */
export function timedHandlers(server: Server, parts: { yard: Switchyard; metrics?: GatewayMetrics }) {
  const { metrics, yard } = parts;
  return <M extends RequestMethod>(method: M, handler: Handler<M>): void => {
    server.setRequestHandler(method, async (request, ctx) => {
      const started = performance.now();
      let errorType: string | undefined;
      try {
        const result = await handler(request, ctx);
        if ((result as { isError?: boolean }).isError === true) errorType = "tool_error";
        return result;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        errorType = code === undefined ? "_OTHER" : String(code);
        throw error;
      } finally {
        const seconds = (performance.now() - started) / 1000;
        const name = (request as { params?: { name?: unknown } }).params?.name;
        const named = typeof name === "string" ? name : undefined;
        metrics?.serverOperation({ method, server: serverOf(yard, method, named) ?? "", errorType, seconds });
        recordOperation("server", seconds, () => ({
          "mcp.method.name": method,
          ...(errorType !== undefined ? { "error.type": errorType } : {}),
          ...(method === "tools/call" && named !== undefined
            ? { "gen_ai.tool.name": named, "gen_ai.operation.name": "execute_tool" }
            : {}),
          ...(method === "prompts/get" && named !== undefined ? { "gen_ai.prompt.name": named } : {}),
        }));
      }
    });
  };
}

/** The fleet's server a tool call or a prompt goes to, by its catalog name. */
function serverOf(yard: Switchyard, method: string, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (method === "tools/call") return yard.describeTool(name)?.server;
  if (method === "prompts/get") return yard.describePrompt(name)?.server;
  return undefined;
}
