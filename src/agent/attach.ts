import { abortable } from "../abort.js";
import type { ResourceContents } from "../calls/request.js";
import { shapeToolResult } from "../context/shape-result.js";
import type { TokenCounter } from "../context/tokens.js";
import { SwitchyardError } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";
import type { SwitchyardEvent } from "../telemetry/events.js";
import type { ToolHost } from "./run-call.js";

/** Opens the user message that carries a run's attached resources, before its question. */
export const ATTACHED_RESOURCES_NOTE =
  "Resources attached to the next question (read from the servers for it; use them as context):";

/** What reading a run's attachments needs: the host, the run, and each resource's share of the window. */
export interface AttachOptions {
  host: ToolHost;
  runId: string;
  identity?: Identity | undefined;
  signal?: AbortSignal | undefined;
  onEvent?: ((event: SwitchyardEvent) => void) | undefined;
  budgetTokens: number;
  counter: TokenCounter;
  /** What a cancelled run says: the error the reads end with when the signal aborts. */
  cancelled: () => unknown;
}

/**
 * The user message of a run's attached resources: each read through the host's pipeline (for the run's
 * identity: the policy decides each read, and it is recorded with the run), then shaped to a result's
 * share of the window (JSON kept valid, binary described).
 * @throws SwitchyardError the first read's failure (the run ends before the model is asked anything).
 */
export async function attachResources(uris: readonly string[], options: AttachOptions): Promise<string> {
  const { host } = options;
  const read = async (uri: string): Promise<ResourceContents> => {
    const outcome = await host.request({
      kind: "resource",
      uri,
      runId: options.runId,
      ...(options.identity ? { identity: options.identity } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
    if (!outcome.ok) throw outcome.error;
    return outcome.result as ResourceContents;
  };
  if (uris.some((uri) => typeof uri !== "string"))
    throw new SwitchyardError("INVALID_INPUT", "attach: each resource must be a URI (a string)");
  const resources = await abortable(Promise.all(uris.map(read)), options.signal, options.cancelled);
  const parts = resources.map(({ server, uri, contents }) => {
    if (contents.length === 0) return `[server ${server}] [resource ${uri}: empty]`;
    const shaped = shapeToolResult({
      tool: uri,
      outcome: "ok",
      text: "",
      content: contents.map((resource) => ({ type: "resource", resource })),
      budgetTokens: options.budgetTokens,
      counter: options.counter,
      anchor: false,
      more: "read the resource itself for the rest",
    });
    // The shaped text opens with the resource's own line ("[resource <uri> (<type>)]").
    return `[server ${server}] ${shaped.text}`;
  });
  return [ATTACHED_RESOURCES_NOTE, ...parts].join("\n\n");
}
