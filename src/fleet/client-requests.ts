import { pathToFileURL } from "node:url";
import type {
  Client,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
} from "@modelcontextprotocol/client";

/**
 * What the client answers when a server asks it something: the user (elicitation), the folders it may
 * work in (roots), the model (sampling). Each is declared as a capability only when it is given.
 */
export interface ClientRequests {
  /** Answers `elicitation/create`, pushed (2025) or embedded in an `input_required` result (2026-07-28). */
  elicit?: (server: string, params: ElicitRequestParams, signal: AbortSignal) => Promise<ElicitResult>;
  /** The elicitation handler can send the user to a URL: URL mode is declared besides form mode. */
  elicitUrl?: boolean;
  /** Absolute folder paths, answered on `roots/list` as `file://` URIs. */
  roots?: readonly string[];
  /** Answers `sampling/createMessage`. */
  sample?: (
    server: string,
    params: CreateMessageRequestParams,
    signal: AbortSignal,
  ) => Promise<CreateMessageResult>;
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

/** Register the handlers of `requests` on `client`, for the server named `server`. */
export function registerClientRequests(client: Client, server: string, requests: ClientRequests | undefined) {
  if (!requests) return;
  const { elicit, roots, sample } = requests;
  if (elicit) {
    client.setRequestHandler("elicitation/create", (request, ctx) =>
      elicit(server, request.params, ctx.mcpReq.signal),
    );
  }
  if (roots) {
    client.setRequestHandler("roots/list", () => ({
      roots: roots.map((folder) => ({ uri: pathToFileURL(folder).href, name: folder })),
    }));
  }
  if (sample) {
    client.setRequestHandler("sampling/createMessage", (request, ctx) =>
      sample(server, request.params, ctx.mcpReq.signal),
    );
  }
}
