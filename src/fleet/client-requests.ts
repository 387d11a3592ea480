import { pathToFileURL } from "node:url";
import type {
  Client,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  LoggingLevel,
} from "@modelcontextprotocol/client";
import type { RequestOrigin } from "./request-origin.js";

/** A server's log message (`notifications/message`), with the origin of the request it belongs to. */
export interface ServerLogMessage {
  /** The server's config name. */
  server: string;
  level: LoggingLevel;
  /** The server's own logger name, when it gave one. */
  logger?: string;
  data: unknown;
  /**
   * The origin of the request the message was sent during (see `withRequestOrigin`); none when it
   * cannot be told: nothing in flight, or requests of several origins in flight on a server that names
   * no request in what it sends.
   */
  origin: RequestOrigin | undefined;
}

/**
 * What the client answers when a server asks it something: the user (elicitation), the folders it may
 * work in (roots), the model (sampling). Each is declared as a capability only when it is given. The
 * server's log messages go to `log`. `origin`: that of the request the server's message belongs to,
 * when it can be told (see {@link ServerLogMessage}).
 */
export interface ClientRequests {
  /** Answers `elicitation/create`, pushed (2025) or embedded in an `input_required` result (2026-07-28). */
  elicit?: (
    server: string,
    params: ElicitRequestParams,
    signal: AbortSignal,
    origin?: RequestOrigin,
  ) => Promise<ElicitResult>;
  /** The elicitation handler can send the user to a URL: URL mode is declared besides form mode. */
  elicitUrl?: boolean;
  /** Absolute folder paths, answered on `roots/list` as `file://` URIs. */
  roots?: readonly string[];
  /** Answers `sampling/createMessage`. */
  sample?: (
    server: string,
    params: CreateMessageRequestParams,
    signal: AbortSignal,
    origin?: RequestOrigin,
  ) => Promise<CreateMessageResult>;
  /** Told of each log message (`notifications/message`) the server sends. */
  log?: (message: ServerLogMessage) => void;
}

/** The client capabilities that `requests` can serve; `{}` when none. */
export function clientCapabilities(requests: ClientRequests | undefined): ClientCapabilities {
  if (!requests) return {};
  return {
    ...(requests.elicit
      ? { elicitation: { form: { applyDefaults: true }, ...(requests.elicitUrl ? { url: {} } : {}) } }
      : {}),
    ...(requests.roots ? { roots: {} } : {}),
    ...(requests.sample ? { sampling: {} } : {}),
  };
}

/**
 * Register the handlers of `requests` on `client`, for the server named `server`; `originOf` says whose
 * request a question being handled belongs to.
 */
export function registerClientRequests(
  client: Client,
  {
    server,
    requests,
    originOf,
  }: { server: string; requests: ClientRequests | undefined; originOf: () => RequestOrigin | undefined },
) {
  if (!requests) return;
  const { elicit, roots, sample } = requests;
  if (elicit) {
    client.setRequestHandler("elicitation/create", (request, ctx) =>
      elicit(server, request.params, ctx.mcpReq.signal, originOf()),
    );
  }
  if (roots) {
    client.setRequestHandler("roots/list", () => ({
      roots: roots.map((folder) => ({ uri: pathToFileURL(folder).href, name: folder })),
    }));
  }
  if (sample) {
    client.setRequestHandler("sampling/createMessage", (request, ctx) =>
      sample(server, request.params, ctx.mcpReq.signal, originOf()),
    );
  }
}
