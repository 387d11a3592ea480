import type { Tool } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config/schema.js";
import type { Logger } from "../telemetry/logger.js";
import type { WireSink } from "../telemetry/wire-trace.js";
import type { ClientRequests } from "./client-requests.js";
import { type ConnectionHooks, ServerConnection, type ServerState } from "./connection.js";

export interface FleetOptions {
  logger: Logger;
  wire?: WireSink;
  /** Called as each server settles (ready or failed), for progress displays. */
  onSettled?: (state: ServerState, settled: number, total: number) => void;
  onToolsChanged?: (server: string, tools: Tool[]) => void;
  onStatus?: ConnectionHooks["onStatus"];
  onResourcesChanged?: ConnectionHooks["onResourcesChanged"];
  onPromptsChanged?: ConnectionHooks["onPromptsChanged"];
  onResourceUpdated?: ConnectionHooks["onResourceUpdated"];
  /** What the client answers when a server asks (elicitation, roots, sampling). */
  requests?: ClientRequests;
  failureLogLevel?: ConnectionHooks["failureLogLevel"];
  cacheCatalogs?: ConnectionHooks["cacheCatalogs"];
}

/**
 * All configured servers and their connections. Connects them in parallel; one server failing,
 * hanging or crashing never holds up or takes down another.
 */
export class Fleet {
  readonly #connections: Map<string, ServerConnection>;
  readonly #options: FleetOptions;

  constructor(servers: ServerConfig[], options: FleetOptions) {
    this.#options = options;
    this.#connections = new Map(
      servers.map((config) => [
        config.name,
        new ServerConnection(config, {
          logger: options.logger,
          ...(options.wire ? { wire: options.wire } : {}),
          ...(options.onToolsChanged ? { onToolsChanged: options.onToolsChanged } : {}),
          ...(options.onStatus ? { onStatus: options.onStatus } : {}),
          ...(options.onResourcesChanged ? { onResourcesChanged: options.onResourcesChanged } : {}),
          ...(options.onPromptsChanged ? { onPromptsChanged: options.onPromptsChanged } : {}),
          ...(options.onResourceUpdated ? { onResourceUpdated: options.onResourceUpdated } : {}),
          ...(options.requests ? { requests: options.requests } : {}),
          ...(options.failureLogLevel ? { failureLogLevel: options.failureLogLevel } : {}),
          ...(options.cacheCatalogs ? { cacheCatalogs: true } : {}),
        }),
      ]),
    );
  }

  /** Connect every enabled server at once; resolves when each is `ready` or `failed`. Never rejects. */
  async connectAll(signal?: AbortSignal): Promise<void> {
    const pending = [...this.#connections.values()].filter(
      (connection) => connection.status === "connecting",
    );
    let settled = 0;
    await Promise.all(
      pending.map(async (connection) => {
        await connection.connect(signal);
        settled += 1;
        this.#options.onSettled?.(connection.state(), settled, pending.length);
      }),
    );
  }

  /** The connection for a server name, if configured. */
  get(name: string): ServerConnection | undefined {
    return this.#connections.get(name);
  }

  /** Every connection, in config order. */
  connections(): ServerConnection[] {
    return [...this.#connections.values()];
  }

  /** Close every connection in parallel. Idempotent. */
  async close(): Promise<void> {
    await Promise.all(this.connections().map((connection) => connection.close()));
  }
}
