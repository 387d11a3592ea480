import { Catalog } from "./catalog/catalog.js";
import { ResourceCatalog } from "./catalog/resources.js";
import type { TrustGate } from "./catalog/trust-gate.js";
import { clientAnswers } from "./client-answers.js";
import type { SwitchyardConfig } from "./config/schema.js";
import { Fleet } from "./fleet/fleet.js";
import { type SwitchyardOptions, samplingModel, withForwardedSampling } from "./switchyard-options.js";
import { type Trust, trustGate } from "./switchyard-trust.js";
import type { SwitchyardEvent } from "./telemetry/events.js";
import { silentLogger } from "./telemetry/logger.js";
import type { ToolPin } from "./trust/pins.js";

/** A Switchyard's fleet and the catalogs that list what its servers offer, kept in step with it. */
export interface FleetParts {
  fleet: Fleet;
  catalog: Catalog;
  lists: ResourceCatalog;
  /** What the catalog asks before it lists a server's tools (scans, pins, quarantine), and its writes. */
  trust: Trust;
  /**
   * Connect every server, then load the catalogs in one go, in order (so that the same fleet always
   * gets the same names); from then on each server's status and changes keep them in step.
   */
  connect(signal?: AbortSignal): Promise<void>;
}

/** What the fleet tells the rest of the Switchyard. */
export interface FleetEvents {
  /** A subscribed resource changed (`notifications/resources/updated`). */
  resourceUpdated(server: string, uri: string): void;
  /** A server came back after it was lost: its breaker's count is over. */
  recovered(server: string): void;
  /** Hand an event to the observers (what a scan found). */
  emit(event: SwitchyardEvent): void;
  /** A server's tools were listed again (`tools/list_changed`, a restart): what was cached of them is stale. */
  toolsListed?(server: string): void;
}

/**
 * The fleet of a config and its catalogs: tools (named, filtered), resources, templates and prompts.
 * A server is listed while it can take requests — ready, restarting (its requests wait), or lazy (its
 * cached catalog) — and its lists follow its `list_changed` notifications and restarts.
 */
export function buildFleet(
  config: SwitchyardConfig,
  options: SwitchyardOptions,
  pins: readonly ToolPin[],
  on: FleetEvents,
): FleetParts {
  const logger = options.logger ?? silentLogger;
  const keeper = trustGate(config, pins, {
    logger,
    store: options.store,
    audit: options.audit,
    emit: (event) => on.emit(event),
  });
  const trust: TrustGate = keeper.gate;
  const catalog = new Catalog(config.servers, (message) => logger.warn({}, message), trust);
  const lists = new ResourceCatalog(config.servers);
  let loaded = false;
  const fleet = new Fleet(config.servers, {
    logger,
    ...(options.wireTrace ? { wire: options.wireTrace } : {}),
    ...(options.onServerSettled ? { onSettled: options.onServerSettled } : {}),
    ...(options.serverFailureLogLevel ? { failureLogLevel: options.serverFailureLogLevel } : {}),
    ...(options.cacheCatalogs ? { cacheCatalogs: true } : {}),
    onToolsChanged: (server, tools) => {
      on.toolsListed?.(server);
      catalog.setServerTools(server, tools);
    },
    onResourcesChanged: (server, resources, templates) =>
      lists.setServerResources(server, resources, templates),
    onPromptsChanged: (server, prompts) => {
      trust.reviewPrompts(server, prompts);
      lists.setServerPrompts(server, prompts);
    },
    onResourceUpdated: (server, uri) => on.resourceUpdated(server, uri),
    requests: withForwardedSampling(
      options,
      clientAnswers({
        logger,
        ...(config.roots ? { roots: config.roots } : {}),
        ...(options.onElicitation ? { onElicitation: options.onElicitation } : {}),
        ...(options.elicitationUrl !== undefined ? { elicitationUrl: options.elicitationUrl } : {}),
        ...(options.onSampling ? { onSampling: options.onSampling } : {}),
        ...samplingModel(config, options),
      }),
    ),
    onStatus: (server, status, recovered) => {
      if (!loaded) return; // the first connect: the catalogs are loaded in one go, in order, after it
      if (recovered) on.recovered(server);
      const listed = status === "ready" || status === "restarting" || status === "lazy";
      if (status === "ready") trust.reviewInstructions(server, fleet.get(server)?.instructions);
      catalog.setServerListed(server, listed);
      lists.setServerListed(server, listed);
    },
  });
  return {
    fleet,
    catalog,
    lists,
    trust: keeper,
    async connect(signal) {
      try {
        await fleet.connectAll(signal);
      } catch (error) {
        await fleet.close();
        throw error;
      }
      const up = fleet
        .connections()
        .filter((connection) => ["ready", "restarting", "lazy"].includes(connection.status))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      catalog.load(new Map(up.map((connection) => [connection.name, connection.lists.tools])));
      for (const connection of up) {
        trust.reviewInstructions(connection.name, connection.instructions);
        const { resources, resourceTemplates, prompts } = connection.lists;
        lists.setServerResources(connection.name, resources, resourceTemplates);
        trust.reviewPrompts(connection.name, prompts);
        lists.setServerPrompts(connection.name, prompts);
        lists.setServerListed(connection.name, true);
      }
      loaded = true;
    },
  };
}
