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
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import {
  DEFAULT_MAX_SERVER_REQUESTS_PER_CALL,
  DEFAULT_UNINVITED_ROOTS_PER_MINUTE,
} from "../config/defaults.js";
import { MCP_APP_MIME_TYPE, SKILLS_EXTENSION, UI_EXTENSION } from "./extensions.js";
import type { RequestOrigin } from "./request-origin.js";

const MINUTE_MS = 60_000;

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
  /**
   * The client shows MCP Apps (its host renders `ui://` views, or passes them on to one that does): the
   * UI extension is declared, so servers that offer apps only to such clients offer them.
   */
  apps?: boolean;
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

/** The client capabilities that `requests` can serve, and the extensions Switchyard hosts. */
export function clientCapabilities(requests: ClientRequests | undefined): ClientCapabilities {
  // Switchyard is a host of the Skills extension (SEP-2640): servers may serve it skills.
  const extensions = {
    extensions: {
      [SKILLS_EXTENSION]: {},
      ...(requests?.apps ? { [UI_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } } : {}),
    },
  };
  if (!requests) return extensions;
  return {
    ...extensions,
    ...(requests.elicit
      ? { elicitation: { form: { applyDefaults: true }, ...(requests.elicitUrl ? { url: {} } : {}) } }
      : {}),
    ...(requests.roots ? { roots: {} } : {}),
    ...(requests.sample ? { sampling: {} } : {}),
  };
}

/**
 * How many requests a server may send the client: {@link DEFAULT_MAX_SERVER_REQUESTS_PER_CALL} for each
 * of the client's requests in flight to it; with none in flight, no elicitation or sampling (nothing
 * invited them: MCP has servers ask only while serving a client's request) and
 * {@link DEFAULT_UNINVITED_ROOTS_PER_MINUTE} `roots/list`. What is over is refused before any handler.
 */
export class ServerRequestBudget {
  readonly #server: string;
  /** The client's requests in flight to the server: how many of the server's each has had answered. */
  readonly #inFlight = new Set<{ asked: number }>();
  /** When the uninvited `roots/list` of the last minute came. */
  #uninvitedRoots: number[] = [];

  constructor(server: string) {
    this.#server = server;
  }

  /** A request of the client's is in flight to the server until the returned function is called. */
  open(): () => void {
    const request = { asked: 0 };
    this.#inFlight.add(request);
    return () => this.#inFlight.delete(request);
  }

  /**
   * Count one request of `method` from the server against the budget.
   * @throws ProtocolError (JSON-RPC -32600, invalid request) when it is over: the server gets it as its
   *   answer.
   */
  admit(method: string): void {
    for (const request of this.#inFlight) {
      if (request.asked < DEFAULT_MAX_SERVER_REQUESTS_PER_CALL) {
        request.asked += 1;
        return;
      }
    }
    const server = this.#server;
    if (this.#inFlight.size > 0) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `${method} refused: server ${server} already sent ${DEFAULT_MAX_SERVER_REQUESTS_PER_CALL} requests during each of the client's requests in flight, the most it may`,
      );
    }
    if (method === "roots/list") {
      const now = Date.now();
      this.#uninvitedRoots = this.#uninvitedRoots.filter((at) => now - at < MINUTE_MS);
      if (this.#uninvitedRoots.length < DEFAULT_UNINVITED_ROOTS_PER_MINUTE) {
        this.#uninvitedRoots.push(now);
        return;
      }
    }
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      method === "roots/list"
        ? `roots/list refused: server ${server} already asked ${DEFAULT_UNINVITED_ROOTS_PER_MINUTE} times this minute with no request of the client's in flight`
        : `${method} refused: no request of the client's is in flight to server ${server}, and a server may ask only while it serves one`,
    );
  }
}

/**
 * Register the handlers of `requests` on `client`, for the server named `server`; each request of the
 * server's is counted against `budget` first, and refused when over it, before its handler; `originOf`
 * says whose request a question being handled belongs to.
 */
export function registerClientRequests(
  client: Client,
  options: {
    server: string;
    requests: ClientRequests | undefined;
    budget: ServerRequestBudget;
    originOf: () => RequestOrigin | undefined;
  },
) {
  const { server, requests, budget, originOf } = options;
  if (!requests) return;
  const { elicit, roots, sample } = requests;
  if (elicit) {
    client.setRequestHandler("elicitation/create", (request, ctx) => {
      budget.admit("elicitation/create");
      return elicit(server, request.params, ctx.mcpReq.signal, originOf());
    });
  }
  if (roots) {
    client.setRequestHandler("roots/list", () => {
      budget.admit("roots/list");
      return { roots: roots.map((folder) => ({ uri: pathToFileURL(folder).href, name: folder })) };
    });
  }
  if (sample) {
    client.setRequestHandler("sampling/createMessage", (request, ctx) => {
      budget.admit("sampling/createMessage");
      return sample(server, request.params, ctx.mcpReq.signal, originOf());
    });
  }
}
