import { isSwitchyardError } from "../errors.js";
import type { Switchyard } from "../switchyard.js";
import type { Identity } from "../telemetry/audit.js";

/**
 * One client's resource subscriptions (`resources/subscribe`, 2025 revisions): each URI subscribed on
 * the server that lists it (`yard.subscribeResource`, for the client's identity: the policy decides
 * each), its updates passed to `onUpdated`. A URI no
 * server lists now — its server is down, or not yet listing it — is kept, and subscribed once a server
 * lists it. Closed with the client's connection.
 */
export class ClientSubscriptions {
  readonly #yard: Switchyard;
  readonly #identity: Identity;
  readonly #onUpdated: (uri: string) => void;
  /** URI → the function that ends its subscription upstream, or `undefined` while it waits for a server. */
  readonly #uris = new Map<string, (() => Promise<void>) | undefined>();
  #stopWatching: (() => void) | undefined;
  #closed = false;

  constructor(yard: Switchyard, identity: Identity, onUpdated: (uri: string) => void) {
    this.#yard = yard;
    this.#identity = identity;
    this.#onUpdated = onUpdated;
  }

  /**
   * Subscribe to `uri` (again: nothing more happens).
   * @throws SwitchyardError as `subscribeResource`, but not `RESOURCE_NOT_FOUND` (the URI waits).
   */
  async subscribe(uri: string): Promise<void> {
    if (this.#uris.has(uri)) return;
    this.#uris.set(uri, undefined);
    await this.#try(uri);
  }

  /** End the subscription to `uri`, if there is one. */
  async unsubscribe(uri: string): Promise<void> {
    const end = this.#uris.get(uri);
    this.#uris.delete(uri);
    await end?.();
  }

  /** End every subscription (the client went). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopWatching?.();
    const ends = [...this.#uris.values()];
    this.#uris.clear();
    await Promise.allSettled(ends.map((end) => end?.()));
  }

  async #try(uri: string): Promise<void> {
    try {
      // Updates name the URI as this client subscribed to it (qualified or not).
      const end = await this.#yard.subscribeResource(uri, () => this.#onUpdated(uri), {
        identity: this.#identity,
      });
      if (this.#closed || !this.#uris.has(uri)) return void (await end());
      this.#uris.set(uri, end);
    } catch (error) {
      if (!isSwitchyardError(error, "RESOURCE_NOT_FOUND")) {
        this.#uris.delete(uri);
        throw error;
      }
      this.#watch();
    }
  }

  /** While URIs wait for a server, try them again at each change of the resources listed. */
  #watch(): void {
    this.#stopWatching ??= this.#yard.onListChange((change) => {
      if (change.kind !== "resources") return;
      const waiting = [...this.#uris].filter(([, end]) => end === undefined).map(([uri]) => uri);
      for (const uri of waiting) void this.#try(uri).catch(() => {});
    });
  }
}
