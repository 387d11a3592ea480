import type { SwitchyardConfig } from "../config/schema.js";
import { type CatalogTool, catalogToolDescriptors, type ServerAbout } from "./catalog-tools.js";
import { routerOptionsFromConfig } from "./from-config.js";
import { Router, type RouterOptions } from "./router.js";

// One router per host and routing section, kept in step with the host's catalog: what the agent, tool
// search, `switchyard route`, the gateway's search mode and the adapters all rank with.

/** What a catalog change says (a Switchyard's `onCatalogChange`): which server's tools changed. */
export interface RoutableCatalogChange {
  server: string;
}

/** What the router glue needs of a Switchyard. */
export interface RoutableHost {
  /**
   * The catalog. The router indexes all of it (`{ policy: false }`: a Switchyard lists every tool,
   * whoever may call it): each run offers only what its identity may call of what the router picks.
   */
  tools(options?: { policy?: boolean }): CatalogTool[];
  serverInstructions(name: string): string | undefined;
  /** Tells of each change of the catalog, server by server; the router follows it incrementally. */
  onCatalogChange?(listener: (change: RoutableCatalogChange) => void): () => void;
  /** Without `onCatalogChange`: a key that changes with the catalog, checked before each selection. */
  catalogKey?(): string;
}

/** The config's `routing` section. */
export type RoutingSection = SwitchyardConfig["routing"];

/** A router kept in step with a host's catalog. */
export interface FollowingRouter {
  router: Router;
  /** Bring the router up to date with the catalog (cheap when nothing changed). */
  sync(): void;
}

/** The routers built for each host, per routing section (one for "no section"). */
const routers = new WeakMap<object, Map<unknown, FollowingRouter>>();
const NO_SECTION = Symbol("no routing section");
/** Stops a router's catalog subscription once the router is garbage. */
const unsubscribeWhenCollected = new FinalizationRegistry<() => void>((stop) => stop());
/** Routers made by {@link routerFor} and {@link followCatalog}, and how each keeps up with its host. */
const following = new WeakMap<Router, FollowingRouter>();

/**
 * The router of a host (a Switchyard) for a `routing` config section: the same object for the same host
 * and section, so the agent (`ask`, `chat`, `demo`), `switchyard route` and the gateway's search rank
 * alike. It
 * follows the catalog incrementally: after each change only that server's part of the index is
 * replaced (with nothing when the server is down).
 *
 * When it builds the router, `onWarning` is told of each `routing.pinned` id and each hint's tool glob
 * that names no tool of the catalog as it is then ({@link Router.unmatched}), once: a misspelt name would
 * be skipped silently, while a server not up yet lists its tools later (and they are used then).
 * @throws SwitchyardError `CONFIG_INVALID` for `embedding`/`hybrid` without an `embeddings` endpoint.
 */
export function routerFor(
  host: RoutableHost,
  routing?: RoutingSection,
  options: {
    onError?: (error: unknown, strategy: string) => void;
    onWarning?: (message: string) => void;
  } = {},
): Router {
  let byHost = routers.get(host);
  if (!byHost) {
    byHost = new Map();
    routers.set(host, byHost);
  }
  const key = routing ?? NO_SECTION;
  let entry = byHost.get(key);
  if (!entry) {
    entry = followCatalog(host, routerOptionsFromConfig(routing, options.onError));
    byHost.set(key, entry);
    for (const message of unmatchedWarnings(entry.router)) options.onWarning?.(message);
  }
  entry.sync();
  return entry.router;
}

/**
 * What a router's pinned ids and hints name that its catalog lacks (`Router.unmatched`), as warnings: a
 * server that is down or not started yet may list it later, so none of it is an error.
 */
export function unmatchedWarnings(router: Router): string[] {
  return router
    .unmatched()
    .map((message) => `${message}; a server that is down or not started yet may list it later`);
}

/**
 * Bring a router made by {@link routerFor} or {@link followCatalog} up to date with its host's catalog
 * (cheap when nothing changed); other routers are left as they are.
 */
export function syncRouter(router: Router): void {
  following.get(router)?.sync();
}

/**
 * A router over the host's catalog that keeps up with it: servers named by catalog changes are marked,
 * and each is replaced in the index before the next selection — its current tools, or none when it is
 * down. A host without change events is compared server by server whenever its `catalogKey` moves.
 */
export function followCatalog(host: RoutableHost, options: RouterOptions): FollowingRouter {
  const router = new Router([], options);
  const seen = new Map<string, readonly CatalogTool[]>();
  const dirty = new Set<string>();
  let key: string | undefined;

  const update = (server: string, tools: readonly CatalogTool[]) => {
    const instructions = host.serverInstructions(server);
    const about = new Map<string, ServerAbout>(instructions ? [[server, { description: instructions }]] : []);
    router.updateServer(server, catalogToolDescriptors(tools, about));
    if (tools.length) seen.set(server, tools);
    else seen.delete(server);
  };
  const byServer = () => {
    const grouped = new Map<string, CatalogTool[]>();
    for (const tool of host.tools({ policy: false })) {
      const { unsupported, appOnly } = tool as { unsupported?: string; appOnly?: boolean };
      if (unsupported !== undefined || appOnly) continue; // never offered to a model
      const list = grouped.get(tool.server) ?? [];
      list.push(tool);
      grouped.set(tool.server, list);
    }
    return grouped;
  };
  const syncAll = () => {
    const current = byServer();
    for (const server of new Set([...seen.keys(), ...current.keys()])) {
      const tools = current.get(server) ?? [];
      if (!sameTools(seen.get(server) ?? [], tools)) update(server, tools);
    }
  };

  syncAll();
  key = host.catalogKey?.();
  if (host.onCatalogChange) {
    // The listener holds only `dirty`: once the router is gone, it is removed from the host.
    const stop = host.onCatalogChange((change) => dirty.add(change.server));
    unsubscribeWhenCollected.register(router, stop);
  }

  const entry: FollowingRouter = {
    router,
    sync() {
      if (host.onCatalogChange) {
        if (dirty.size === 0) return;
        const current = byServer();
        for (const server of dirty) update(server, current.get(server) ?? []);
        dirty.clear();
        return;
      }
      const now = host.catalogKey?.();
      if (now !== undefined && now === key) return;
      key = now;
      syncAll();
    },
  };
  following.set(router, entry);
  return entry;
}

function sameTools(a: readonly CatalogTool[], b: readonly CatalogTool[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (tool, i) =>
        tool.name === b[i]!.name &&
        tool.description === b[i]!.description &&
        tool.inputSchema === b[i]!.inputSchema,
    )
  );
}

/** How a router made here keeps up with its host (for {@link routeTools}-style selections). */
export function followingOf(router: Router): FollowingRouter | undefined {
  return following.get(router);
}
