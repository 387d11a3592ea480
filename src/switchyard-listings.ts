import { optionsObject } from "./calls/check-input.js";
import { checkIdentity } from "./calls/identity.js";
import type { PolicyEngine, PolicyTarget } from "./calls/policy.js";
import type { Catalog } from "./catalog/catalog.js";
import type {
  PromptEntry,
  ResourceCatalog,
  ResourceEntry,
  ResourceTemplateEntry,
} from "./catalog/resources.js";
import type { ListOptions, ToolInfo, ToolsOptions } from "./switchyard-options.js";
import type { Identity } from "./telemetry/audit.js";

/** What the listings read: the catalogs, the policy that filters them, and whom they are for by default. */
export interface ListingParts {
  catalog: Catalog;
  lists: ResourceCatalog;
  policy: PolicyEngine | undefined;
  identity: Identity;
}

/**
 * The facade's listings — tools, resources, resource templates, prompts — as an identity sees them: what
 * the policy that admits its requests lets it use (everything without a policy, or with `policy: false`).
 */
export class FacadeListings {
  readonly #parts: ListingParts;

  constructor(parts: ListingParts) {
    this.#parts = parts;
  }

  tools(options: ToolsOptions): ToolInfo[] {
    return this.#listed("tools", this.#parts.catalog.entries(), options, (entry) => entry).map(
      ({ name, server, tool, description, inputSchema, unsupported, appOnly }) => ({
        name,
        server,
        tool,
        description,
        inputSchema,
        ...(unsupported !== undefined ? { unsupported } : {}),
        ...(appOnly ? { appOnly } : {}),
      }),
    );
  }

  resources(options: ListOptions): ResourceEntry[] {
    return this.#listed("resources", this.#parts.lists.resources(), options, (entry) => ({
      kind: "resource",
      name: entry.uri,
      server: entry.server,
      tool: entry.uri,
    }));
  }

  resourceTemplates(options: ListOptions): ResourceTemplateEntry[] {
    return this.#listed("resourceTemplates", this.#parts.lists.resourceTemplates(), options, (entry) => ({
      kind: "resource",
      name: entry.uriTemplate,
      server: entry.server,
      tool: entry.uriTemplate,
      template: true,
    }));
  }

  prompts(options: ListOptions): PromptEntry[] {
    return this.#listed("prompts", this.#parts.lists.prompts(), options, (entry) => ({
      kind: "prompt",
      name: entry.name,
      server: entry.server,
      tool: entry.prompt,
    }));
  }

  /** What a listing shows an identity: what the policy lets it use (everything without a policy). */
  #listed<T>(what: string, entries: T[], options: ListOptions, target: (entry: T) => PolicyTarget): T[] {
    const { identity, policy: filtered = true } = optionsObject(options, `${what} options`);
    if (identity !== undefined) checkIdentity(identity, what);
    const policy = this.#parts.policy;
    if (!policy || !filtered) return entries;
    const who = identity ?? this.#parts.identity;
    return entries.filter((entry) => policy.lists(who, target(entry)));
  }
}
