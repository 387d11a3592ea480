import type { RequestInput, RequestOptions, RequestOutcome } from "./request.js";

/** An update of a subscribed resource (`notifications/resources/updated`), with the server's own URI. */
export interface ResourceUpdate {
  server: string;
  uri: string;
}

type Run = (input: RequestInput) => Promise<RequestOutcome>;

/**
 * Who listens to which subscribed resource. Every `subscribeResource` is a request of its own (the
 * policy decides it for its identity, it is recorded); the server is asked once per URI, and told to
 * stop when the last listener goes.
 */
export class ResourceListeners {
  readonly #run: Run;
  /** `server\0uri` → its listeners. */
  readonly #listeners = new Map<string, Set<(update: ResourceUpdate) => void>>();

  constructor(run: Run) {
    this.#run = run;
  }

  /**
   * Subscribe `onUpdated` to `uri`; resolves with the function that ends it.
   * @throws SwitchyardError as the subscribe request failed.
   */
  async subscribe(
    uri: string,
    onUpdated: (update: ResourceUpdate) => void,
    options: RequestOptions & { server?: string },
  ): Promise<() => Promise<void>> {
    const outcome = await this.#run({ ...options, kind: "subscribe", uri });
    if (!outcome.ok) throw outcome.error;
    const server = outcome.record.server!;
    const own = outcome.record.tool!;
    const key = `${server}\0${own}`;
    let listeners = this.#listeners.get(key);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(key, listeners);
    }
    const listener = (update: ResourceUpdate) => onUpdated(update);
    listeners.add(listener);
    const current = listeners;
    return async () => {
      if (!current.delete(listener) || current.size > 0) return;
      if (this.#listeners.get(key) === current) this.#listeners.delete(key);
      const { identity, timeoutMs, signal } = options;
      const ended = await this.#run({
        kind: "unsubscribe",
        uri: own,
        server,
        ...(identity ? { identity } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(signal ? { signal } : {}),
      });
      if (!ended.ok && ended.error.code !== "CLOSED") throw ended.error;
    };
  }

  /** A server said a subscribed resource changed: tell its listeners (one that throws does not stop the others). */
  updated(server: string, uri: string): void {
    for (const listener of this.#listeners.get(`${server}\0${uri}`) ?? []) {
      try {
        listener({ server, uri });
      } catch {
        // a listener must not throw; one that does does not stop the others
      }
    }
  }
}
