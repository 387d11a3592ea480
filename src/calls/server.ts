import type { CallToolResult } from "@modelcontextprotocol/client";
import type { CatalogEntry } from "../catalog/catalog.js";
import type { ServerConnection, ServerState } from "../fleet/connection.js";
import { type GuardedCallOptions, type GuardState, ServerGuard } from "./server-guard.js";

/** One server as `servers()` reports it: its connection's state and its guard's counters. */
export type ServerInfo = ServerState & GuardState;

/**
 * One configured server as the rest of Switchyard sees it: its connection (process, transport,
 * restarts) and its guard (breaker, bulkhead, deadline, retries), kept in step — a server that comes
 * back after it was lost starts with a closed breaker.
 */
export class ManagedServer {
  readonly connection: ServerConnection;
  readonly guard: ServerGuard;

  constructor(connection: ServerConnection) {
    this.connection = connection;
    this.guard = new ServerGuard(connection);
  }

  get name(): string {
    return this.connection.name;
  }

  info(): ServerInfo {
    return { ...this.connection.state(), ...this.guard.state() };
  }

  /** Call a tool through the guard. */
  call(
    entry: CatalogEntry,
    args: Record<string, unknown>,
    options: GuardedCallOptions,
  ): Promise<CallToolResult> {
    return this.guard.call(entry, args, options);
  }

  /** The connection finished a restart or reconnect: what the breaker counted is over. */
  recovered(): void {
    this.guard.recovered();
  }
}
