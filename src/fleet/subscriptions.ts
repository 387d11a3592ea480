import type { Client, McpSubscription, RequestOptions } from "@modelcontextprotocol/client";
import { messageOf, SwitchyardError } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";

/**
 * The resources one server is subscribed to (`resources/subscribe`), kept across its lives: after a
 * restart or a reconnect each is subscribed to again. The 2026-07-28 revision has no
 * `resources/subscribe`: there one `subscriptions/listen` stream carries every subscribed URI, opened
 * anew for a new set before the old one is closed.
 */
export class ServerSubscriptions {
  readonly #server: string;
  readonly #uris = new Set<string>();
  /** On the 2026-07-28 revision, the stream that carries the subscriptions. */
  #listening: McpSubscription | undefined;

  constructor(server: string) {
    this.#server = server;
  }

  /** Whether `uri` is subscribed to. */
  has(uri: string): boolean {
    return this.#uris.has(uri);
  }

  /**
   * Subscribe to `uri` on the server's current life (once: a URI subscribed to already asks nothing).
   * @throws SwitchyardError `CAPABILITY_MISSING` (`capability: "resources.subscribe"`) when the server
   *   does not offer subscriptions; what the SDK throws otherwise.
   */
  async subscribe(client: Client, uri: string, options: RequestOptions): Promise<void> {
    if (this.#uris.has(uri)) return;
    if (client.getServerCapabilities()?.resources?.subscribe !== true) {
      throw new SwitchyardError(
        "CAPABILITY_MISSING",
        `server ${this.#server} does not offer resource subscriptions (resources.subscribe); ${uri} cannot be watched`,
        { server: this.#server, capability: "resources.subscribe", delivery: "final", serverFault: false },
      );
    }
    if (client.getDiscoverResult() !== undefined) await this.#listen(client, [...this.#uris, uri], options);
    else await client.subscribeResource({ uri }, options);
    this.#uris.add(uri);
  }

  /** Stop `uri`'s updates; nothing is sent for a URI not subscribed to. */
  async unsubscribe(client: Client, uri: string, options: RequestOptions): Promise<void> {
    if (!this.#uris.delete(uri)) return;
    if (client.getDiscoverResult() !== undefined) await this.#listen(client, [...this.#uris], options);
    else await client.unsubscribeResource({ uri }, options);
  }

  /** Forget `uri` without telling the server (it is not there to tell). */
  forget(uri: string): boolean {
    return this.#uris.delete(uri);
  }

  /**
   * Subscribe again on a new life of the server (its old stream went with the old session). A failure
   * is logged: the subscription is kept for the next life.
   */
  resubscribe(client: Client, logger: Logger): void {
    this.#listening = undefined;
    if (this.#uris.size === 0 || client.getServerCapabilities()?.resources?.subscribe !== true) return;
    if (client.getDiscoverResult() !== undefined) {
      this.#listen(client, [...this.#uris]).catch((error: unknown) =>
        logger.warn({}, `could not subscribe again: ${messageOf(error)}`),
      );
      return;
    }
    for (const uri of this.#uris) {
      client
        .subscribeResource({ uri })
        .catch((error: unknown) => logger.warn({ uri }, `could not subscribe again: ${messageOf(error)}`));
    }
  }

  async #listen(client: Client, uris: string[], options: RequestOptions = {}): Promise<void> {
    const previous = this.#listening;
    this.#listening = uris.length ? await client.listen({ resourceSubscriptions: uris }, options) : undefined;
    await previous?.close().catch(() => {});
  }
}
