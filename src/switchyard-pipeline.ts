import { AuditWriter } from "./calls/audit-writer.js";
import { FleetLimit } from "./calls/fleet-limit.js";
import { osIdentity } from "./calls/identity.js";
import { RequestPipeline } from "./calls/pipeline.js";
import type { PolicyEngine } from "./calls/policy.js";
import { compilePolicy } from "./calls/policy-rules.js";
import { ManagedServer } from "./calls/server.js";
import type { SwitchyardConfig } from "./config/schema.js";
import { matchesUriTemplate } from "./fleet/uri-templates.js";
import { StoreRecorder } from "./store/recorder.js";
import type { FleetParts } from "./switchyard-fleet.js";
import { identityOf, type SwitchyardOptions } from "./switchyard-options.js";
import type { Identity } from "./telemetry/audit.js";
import { Observers, type SwitchyardEvent } from "./telemetry/events.js";
import { silentLogger } from "./telemetry/logger.js";
import { type Redactor, redactingObserver } from "./telemetry/redact.js";

/** A Switchyard's request side: the one pipeline, and what it is built over. */
export interface FacadePipeline {
  pipeline: RequestPipeline;
  /** Each server's guard and result cache, by name. */
  servers: Map<string, ManagedServer>;
  /** Who is told every event: the options' observer, the store's recorder, then those `observe` adds. */
  observers: Observers;
  /** The one engine that decides listings and requests; none: all allowed. */
  policy: PolicyEngine | undefined;
  /** Who requests and listings are for when they do not say. */
  identity: Identity;
  /** Resolves once what the requests wrote is written: the store's records, the audit log's last row. */
  settle(): Promise<void>;
}

/** What the pipeline asks of the facade it serves (late-bound: the facade is still being made). */
export interface FacadeHooks {
  redactor: Redactor;
  /** Hand an event to the observers, redacted (an audit row that could not be written). */
  emit(event: SwitchyardEvent): void;
  isClosed(): boolean;
}

/**
 * The request pipeline of a config and its fleet: each server's guard (under one fleet-wide limit when
 * `limits.inFlight` sets one), the observers with the store's recorder, the policy (the config's and the
 * options' code), the identity, the audit writer, and the options' interceptors in order.
 */
export function buildPipeline(
  config: SwitchyardConfig,
  parts: FleetParts,
  options: SwitchyardOptions,
  hooks: FacadeHooks,
): FacadePipeline {
  const { redactor } = hooks;
  // One fleet-wide limit shared by every server's guard, only when the config sets one.
  const inFlight = config.limits?.inFlight;
  const fleetLimit = inFlight !== undefined ? new FleetLimit(inFlight) : undefined;
  const servers = new Map<string, ManagedServer>(
    parts.fleet
      .connections()
      .map((connection) => [connection.name, new ManagedServer(connection, fleetLimit)]),
  );
  const logger = options.logger ?? silentLogger;
  const observers = new Observers();
  if (options.observer) observers.add(options.observer);
  const recorder = options.store
    ? new StoreRecorder(options.store, {
        onError: (error) => logger.warn({ err: error }, `store: a record was not written: ${String(error)}`),
      })
    : undefined;
  if (recorder) observers.add(recorder);
  const policy = compilePolicy(config.policy, {
    servers: config.servers,
    ...(options.policy ? { code: options.policy } : {}),
  });
  const identity = options.identity ?? identityOf(config.identity) ?? osIdentity();
  const audit = options.audit
    ? new AuditWriter(options.audit, {
        logger,
        redact: options.redact,
        onWriteError: config.audit?.onWriteError,
        onUnwritten: (event) => hooks.emit(event),
      })
    : undefined;
  const pipeline = new RequestPipeline({
    catalog: parts.catalog,
    lists: parts.lists,
    serverState: (name) => parts.fleet.get(name)?.state(),
    serverNames: () => servers.keys(),
    matchesTemplate: matchesUriTemplate,
    server: (name) => servers.get(name),
    observer: redactingObserver(observers, redactor),
    redact: (event) => redactor.event(event),
    redactText: redactor.text,
    logger,
    policy,
    onApproval: options.onApproval,
    audit,
    identity,
    isClosed: () => hooks.isClosed(),
    scopeCalls: options.wireTrace !== undefined,
    // Without a store there is nothing to wait for: a task call then makes no deadline signal for it.
    recorded: recorder ? () => recorder.flush() : undefined,
  });
  for (const interceptor of options.interceptors ?? []) pipeline.use(interceptor);
  return {
    pipeline,
    servers,
    observers,
    policy,
    identity,
    async settle() {
      await Promise.all([recorder?.flush(), audit?.close()]);
    },
  };
}
