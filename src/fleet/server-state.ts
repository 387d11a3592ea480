import type { Prompt, Resource, ResourceTemplateType, Tool } from "@modelcontextprotocol/client";
import type { TransportKind } from "../config/schema.js";
import type { ErrorCode } from "../errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { WireSink } from "../telemetry/wire-trace.js";
import type { ClientRequests } from "./client-requests.js";

/**
 * Where a server stands: `ready`, `failed` (with a reason), `needs-auth` (an OAuth server with no
 * valid token: `switchyard login <server>`, error code `AUTH_REQUIRED`) and `disabled` are the settled states;
 * `connecting`, `restarting` (after a crash, within `restart.maxRestarts`) and `closed` pass. `lazy`: a
 * `lazy: true` server not started yet, its lists from its cached catalog; the first request (or anything
 * else that needs it) starts it, and it is `ready` or `failed` from then on.
 */
export type ServerStatus =
  | "lazy"
  | "connecting"
  | "ready"
  | "restarting"
  | "failed"
  | "needs-auth"
  | "disabled"
  | "closed";

/** What the last health ping said: `unknown` until one ran (pings are off unless `health.intervalMs`). */
export type Health = "ok" | "failing" | "unknown";

/** A snapshot of one server, as `servers()` and `switchyard servers` report it. */
export interface ServerState {
  name: string;
  status: ServerStatus;
  transport: TransportKind;
  /** Protocol version agreed in the handshake. */
  protocolVersion?: string;
  /** Tools the server offers (before allow/deny filters). */
  tools: number;
  /** Resources the server lists (none when it does not offer resources). */
  resources: number;
  /** Prompts the server lists (none when it does not offer prompts). */
  prompts: number;
  /** The server serves skills (it declared the Skills extension, `io.modelcontextprotocol/skills`). */
  skills?: true;
  /** Tool calls running as tasks on the server (the tasks extension): created, not yet over. */
  tasks: number;
  /** Spawn or first request → handshake done and tools listed. */
  connectMs?: number;
  /** Why the server is `failed` (or was lost), with its last stderr lines when it is a process. */
  error?: string;
  /** The error code of why the server failed, when it is a known kind (`AUTH_REQUIRED`, …). */
  errorCode?: ErrorCode;
  /** `serverInfo` from the handshake. */
  serverInfo?: { name: string; version: string };
  /** The server's process id (stdio and launched HTTP servers). */
  pid?: number;
  /** Times the server was restarted (or reconnected) after it was lost. */
  restarts: number;
  health: Health;
}

/** What a connection tells the rest of Switchyard, and what it answers servers with. */
export interface ConnectionHooks {
  logger: Logger;
  wire?: WireSink;
  /** The server's tool list changed (after `notifications/tools/list_changed`, or a restart). */
  onToolsChanged?: (server: string, tools: Tool[]) => void;
  /**
   * The server's status changed. `recovered` is true when it became ready again after it was lost or
   * failed (a restart or a reconnect finished the handshake and listed its tools).
   */
  onStatus?: (server: string, status: ServerStatus, recovered: boolean) => void;
  /** The server's resources or resource templates changed (after `resources/list_changed`, or a restart). */
  onResourcesChanged?: (
    server: string,
    resources: Resource[],
    resourceTemplates: ResourceTemplateType[],
  ) => void;
  /** The server's prompts changed (after `prompts/list_changed`, or a restart). */
  onPromptsChanged?: (server: string, prompts: Prompt[]) => void;
  /** A resource the server was subscribed to changed (`notifications/resources/updated`). */
  onResourceUpdated?: (server: string, uri: string) => void;
  /** What the client answers when the server asks (elicitation, roots, sampling). */
  requests?: ClientRequests;
  /**
   * The level a failure to connect, or (`lazy`) to start for a first request, is logged at; default
   * `warn`. `info` for a caller that reports those failures itself, so that each is said once.
   */
  failureLogLevel?: "warn" | "info";
  /**
   * Keep every server's catalog in the cache after each life lists it (as `lazy` servers' are kept),
   * for a later connect that treats servers as lazy. Default: only `lazy` servers'.
   */
  cacheCatalogs?: boolean;
}
