// Requests sent on a session's transport beside the SDK's Client, answered with the raw JSON-RPC
// response: what the tasks extension of 2026-07-28 needs, whose answers the SDK 2.4.0 rejects
// (a tools/call answered with `resultType: "task"`) or does not know (tasks/get, tasks/update).
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type { DispatchOptions, JsonRpcResponse } from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";

/** Ids of our own requests: strings, where the SDK numbers its own, so that they never collide. */
const ID_PREFIX = "switchyard-raw-";

interface Pending {
  resolve: (response: JsonRpcResponse) => void;
  reject: (error: unknown) => void;
}

/**
 * The raw requests of one session: sent on its transport (`attach`), their answers taken from the
 * messages it receives (`take`) before the SDK sees them.
 */
export class RawRequests {
  readonly #pending = new Map<string, Pending>();
  #transport: Transport | undefined;
  #next = 0;

  /** The transport the requests go out on (the session's, with its wire trace). */
  attach(transport: Transport): void {
    this.#transport = transport;
  }

  /** Take a message that answers one of ours; true when it did. */
  take(message: unknown): boolean {
    const { id, result, error } = message as { id?: unknown; result?: unknown; error?: unknown };
    if (typeof id !== "string" || !id.startsWith(ID_PREFIX)) return false;
    const pending = this.#pending.get(id);
    if (!pending) return true;
    this.#pending.delete(id);
    if (error !== undefined) pending.resolve({ kind: "error", error: error as never });
    else pending.resolve({ kind: "result", result: (result ?? {}) as JsonValue });
    return true;
  }

  /** Every request waiting fails: the connection closed. */
  closed(): void {
    const error = new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  /**
   * Send `request` (`{ method, params }`) and wait for its answer. The signal, or the context's
   * `requestTimeoutMs`, ends the wait; the server is then told (`notifications/cancelled`).
   */
  dispatch = (request: JsonValue, options: DispatchOptions = {}): Promise<JsonRpcResponse> => {
    const transport = this.#transport;
    if (!transport) return Promise.reject(new SdkError(SdkErrorCode.NotConnected, "Not connected"));
    const id = `${ID_PREFIX}${++this.#next}`;
    const { signal } = options;
    const timeoutMs = options.context?.requestTimeoutMs;
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", aborted);
        this.#pending.delete(id);
      };
      const giveUp = (reason: unknown) => {
        settle();
        const why = reason instanceof Error ? reason.message : String(reason);
        transport
          .send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: why } })
          .catch(() => {});
        reject(reason);
      };
      const aborted = () => giveUp(signal!.reason);
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      this.#pending.set(id, {
        resolve: (response) => {
          settle();
          resolve(response);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal?.addEventListener("abort", aborted, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () =>
            giveUp(new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs })),
          timeoutMs,
        );
      }
      const message = { jsonrpc: "2.0", id, ...(request as object) } as JSONRPCMessage;
      transport.send(message).catch((error: unknown) => {
        settle();
        reject(error);
      });
    });
  };
}
