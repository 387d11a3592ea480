import type { CreateMessageRequestParams, CreateMessageResult } from "@modelcontextprotocol/client";
import type { ApprovalHandler } from "./calls/approval.js";
import type { PolicyOptions } from "./calls/policy.js";
import type { RequestInterceptor, RequestOptions } from "./calls/request.js";
import type { CatalogEntry } from "./catalog/catalog.js";
import type { ElicitationHandler, SamplingApproval } from "./client-answers.js";
import type { SwitchyardConfig } from "./config/schema.js";
import type { ClientRequests, ServerLogMessage } from "./fleet/client-requests.js";
import type { RequestOrigin } from "./fleet/request-origin.js";
import type { ServerState } from "./fleet/server-state.js";
import type { ModelProvider } from "./models/model.js";
import { resolveModel } from "./models/resolve.js";
import type { Store } from "./store/store.js";
import type { AuditSink, Identity } from "./telemetry/audit.js";
import type { Observer } from "./telemetry/events.js";
import type { Logger } from "./telemetry/logger.js";
import { Redactor, redactingAuditSink, redactingLogger, redactingWireSink } from "./telemetry/redact.js";
import type { WireSink } from "./telemetry/wire-trace.js";

/** Options for {@link Switchyard.connect} and {@link Switchyard.fromFile}. */
export interface SwitchyardOptions {
  /** Structured logger; default: silent. */
  logger?: Logger;
  /** Receives every raw JSON-RPC message of every server, both ways. */
  wireTrace?: WireSink;
  /** Called as each server finishes connecting (ready or failed), for progress displays. */
  onServerSettled?: (state: ServerState, settled: number, total: number) => void;
  /**
   * The level a server's failure to connect (or, `lazy`, to start for its first request) is logged at;
   * default `warn`. `info` for a caller that reports it itself, from `servers()` and the errors of the
   * requests it fails, as the CLI does: then it is said once.
   */
  serverFailureLogLevel?: "warn" | "info";
  /**
   * Keep every server's catalog in the cache folder once it lists it (as `lazy: true` servers' are
   * kept), so that a later connect with `lazy` servers lists them without starting them. Default: only
   * `lazy` servers' catalogs are kept. The CLI keeps them all.
   */
  cacheCatalogs?: boolean;
  /** Abandons connecting; servers not yet connected end up `failed`. */
  signal?: AbortSignal;
  /** For a config object: the folder relative paths resolve against; default: the working directory. */
  baseDir?: string;
  /** Receives every event: requests, and the runs of agents and plans that use this Switchyard. */
  observer?: Observer;
  /** Steps every request goes through (audit, rewriting, …), in order; more can be added with `use`. */
  interceptors?: RequestInterceptor[];
  /**
   * Answers servers that ask the user something (`elicitation/create`, pushed by 2025 servers or
   * embedded in a 2026-07-28 `input_required` result). Given, the `elicitation` capability is declared
   * (form mode; URL mode too with `elicitationUrl`); absent, nothing is declared and such tools fail
   * with `CAPABILITY_MISSING`. Accepted content gets the schema's defaults and is validated against it.
   */
  onElicitation?: ElicitationHandler;
  /** `onElicitation` can send the user to a URL: declare URL mode as well; default false. */
  elicitationUrl?: boolean;
  /**
   * Approves each `sampling/createMessage` request before the model answers it. Sampling is declared
   * only with this hook and a model (`samplingModel`, else the config's `model` section or environment).
   */
  onSampling?: SamplingApproval;
  /** The model that answers sampling requests; default: the configured model, when there is one. */
  samplingModel?: ModelProvider;
  /**
   * Answers every `sampling/createMessage` request itself, in place of `onSampling` and a model (the
   * gateway forwards them to its own client). Given, `sampling` is declared.
   */
  onSamplingRequest?: SamplingForwarder;
  /**
   * Told of every log message (`notifications/message`) a server sends, whatever the logger's level,
   * with the origin of the request it belongs to when that can be told (the gateway's relay passes each
   * on to the client whose call it is). The logger gets them too.
   */
  onServerLog?: (log: ServerLogMessage) => void;
  /**
   * This host shows MCP Apps (`io.modelcontextprotocol/ui`): the UI extension is declared to every
   * server, with the `text/html;profile=mcp-app` view type, so servers that offer apps only to hosts
   * that render them offer them. The gateway's relay sets it: it passes apps on to its hosts. Default false.
   */
  mcpApps?: boolean;
  /**
   * Record every run, step and request into this store as it happens (`openStore(config)`), and keep
   * the audit log there unless `audit` says otherwise. `close()` waits for the last writes; the store
   * stays open (its owner closes it). Default: nothing is recorded.
   */
  store?: Store;
  /**
   * Who requests and listings are for when they do not say (`callTool(…, { identity })`,
   * `tools({ identity })`); default: the config's `identity`, else the OS user with no roles.
   */
  identity?: Identity;
  /**
   * Policy rules in code, checked before the config's `policy.rules` (and a `decide` hook before both).
   * With neither this nor a config `policy` section, every request is allowed.
   */
  policy?: PolicyOptions;
  /**
   * Decides requests whose policy decision is `approve`, within the request's deadline (past it:
   * `TIMEOUT`). Without it such requests fail with `POLICY_DENIED` (approval required, no one to give it).
   */
  onApproval?: ApprovalHandler;
  /** Receives an audit entry for every policy decision, approval and request let through. */
  audit?: AuditSink;
  /** Applied to the arguments before they go to the audit log; default: the redactor's `value`. */
  redact?: (value: unknown) => unknown;
  /**
   * Replaces secrets in every log line, wire record, event (and so run record), audit entry, span and
   * request failure; default `Redactor.fromConfig(config)`: the default keys, the config's `redact`
   * section, its secret values and the environment's, and common token and credential patterns. Results
   * handed to the caller are not redacted (their failures are).
   */
  redactor?: Redactor;
}

/** A sampling request as the gateway forwards it: the server that asks, its params, its signal. */
export interface ForwardedSamplingRequest {
  server: string;
  params: CreateMessageRequestParams;
  signal: AbortSignal;
  /** The origin of the request the server asked during, when it can be told (see `ElicitationRequest`). */
  origin?: RequestOrigin;
}

/** Answers a sampling request in full (see `onSamplingRequest`). */
export type SamplingForwarder = (request: ForwardedSamplingRequest) => Promise<CreateMessageResult>;

/** The config's `identity` section as an identity. */
export function identityOf(section: SwitchyardConfig["identity"]): Identity | undefined {
  if (!section) return undefined;
  return {
    user: section.user,
    roles: section.roles ?? [],
    ...(section.attributes ? { attributes: section.attributes } : {}),
  };
}

/** The options with the redactor in place: the logger, the wire trace and the audit log redacted. */
export function withRedaction(config: SwitchyardConfig, options: SwitchyardOptions): SwitchyardOptions {
  const redactor = options.redactor ?? Redactor.fromConfig(config);
  return {
    ...options,
    redactor,
    redact: options.redact ?? redactor.value,
    ...(options.logger ? { logger: redactingLogger(options.logger, redactor) } : {}),
    ...(options.wireTrace ? { wireTrace: redactingWireSink(options.wireTrace, redactor) } : {}),
    ...(options.onServerLog ? { onServerLog: redactingLogListener(options.onServerLog, redactor) } : {}),
    // The audit log: the sink given, else the store (as `store` says).
    ...(options.audit || options.store
      ? { audit: redactingAuditSink((options.audit ?? options.store)!, redactor) }
      : {}),
  };
}

/** `listener`, given each server log message with its data redacted (as the logger writes it). */
function redactingLogListener(
  listener: (log: ServerLogMessage) => void,
  redactor: Redactor,
): (log: ServerLogMessage) => void {
  return (log) => listener({ ...log, data: redactor.value(log.data) });
}

/**
 * The fleet's answers, with sampling answered by `onSamplingRequest` when it is given, and servers' log
 * messages handed to `onServerLog`.
 */
export function withForwardedSampling(options: SwitchyardOptions, requests: ClientRequests): ClientRequests {
  const forward = options.onSamplingRequest;
  if (options.onServerLog) requests = { ...requests, log: options.onServerLog };
  if (options.mcpApps) requests = { ...requests, apps: true };
  if (!forward) return requests;
  return {
    ...requests,
    sample: (server, params, signal, origin) =>
      forward({ server, params, signal, ...(origin !== undefined ? { origin } : {}) }),
  };
}

/** The model for sampling requests: only when sampling is asked for and a model can be had. */
export function samplingModel(
  config: SwitchyardConfig,
  options: SwitchyardOptions,
): { model?: ModelProvider } {
  if (!options.onSampling) return {};
  if (options.samplingModel) return { model: options.samplingModel };
  try {
    return { model: resolveModel(config.model ? { section: config.model } : {}) };
  } catch {
    return {}; // no model configured: sampling is not offered
  }
}

/** Options of `readResource` and `subscribeResource`. */
export interface ResourceOptions extends RequestOptions {
  /** The server to ask: needed when several servers list the URI. */
  server?: string;
}

/** Options of the listings (`tools()`, `resources()`, `resourceTemplates()`, `prompts()`). */
export interface ListOptions {
  /** List what this identity may use; default: the Switchyard's identity. */
  identity?: Identity;
  /** `false`: everything, whoever may use what (for caches and administration); default true. */
  policy?: boolean;
}

/** Options of {@link Switchyard.tools}. */
export type ToolsOptions = ListOptions;

/** A tool as `tools()` lists it. */
export interface ToolInfo {
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: CatalogEntry["inputSchema"];
  /** Why the tool cannot be called from here (it requires task augmentation); it is never offered to a model. */
  unsupported?: string;
  /** MCP Apps: the server offers it to its app alone (`_meta.ui.visibility: ["app"]`); never offered to a model. */
  appOnly?: true;
}
