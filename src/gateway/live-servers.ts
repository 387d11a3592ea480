import type { McpHttpHandler, Server } from "@modelcontextprotocol/server";
import type { Switchyard } from "../switchyard.js";

/**
 * The server instances of live connections (stdio, 2025-11-25 HTTP sessions), told of the Switchyard's
 * list changes as they come; the same changes are published to the 2026-07-28 handler's
 * `subscriptions/listen` streams (`notify`). Servers' log messages are not for everyone: the relay hands
 * each to the client whose call it belongs to.
 */
export class LiveServers {
  readonly #servers = new Set<Server>();
  readonly #stops: (() => void)[];

  constructor({ yard, notify }: { yard: Switchyard; notify: McpHttpHandler["notify"] }) {
    this.#stops = [
      yard.onCatalogChange(() => {
        notify.toolsChanged();
        for (const server of this.#servers) void server.sendToolListChanged().catch(() => {});
      }),
      yard.onListChange((change) => {
        if (change.kind === "resources") notify.resourcesChanged();
        else notify.promptsChanged();
        for (const server of this.#servers) {
          const sent =
            change.kind === "resources" ? server.sendResourceListChanged() : server.sendPromptListChanged();
          void sent.catch(() => {});
        }
      }),
    ];
  }

  /** Tell `server` of changes until it closes. */
  keep(server: Server): Server {
    this.#servers.add(server);
    const onclose = server.onclose;
    server.onclose = () => {
      onclose?.();
      this.#servers.delete(server);
    };
    return server;
  }

  /** Stop listening to the Switchyard. */
  close(): void {
    for (const stop of this.#stops) stop();
  }
}
