// The config file's top level: the names it is looked for by, `inputs` (VS Code's), `roots`, the schema of
// the whole file (each section's from its own file) and `SwitchyardConfig`, the file resolved.

import { z } from "zod";
import { agentSchema } from "./agent.js";
import { type AuditSection, auditSchema } from "./audit.js";
import { type GatewaySection, gatewaySchema } from "./gateway.js";
import { type LimitsSection, limitsSchema } from "./limits.js";
import { modelSchema } from "./model.js";
import { type IdentitySection, identitySchema, type PolicySection, policySchema } from "./policy.js";
import { redactSchema } from "./redact.js";
import { type RegistrySection, registriesSchema } from "./registries.js";
import { routingSchema } from "./routing.js";
import { type SecuritySection, securitySchema } from "./security.js";
import type { ServerConfig } from "./server.js";
import { type StoreSection, storeSchema } from "./store.js";

/** Names tried, in order, in the working directory when no config file is named. */
export const DEFAULT_CONFIG_FILES: readonly string[] = Object.freeze([
  "switchyard.config.json",
  "switchyard.config.yaml",
  "switchyard.config.yml",
]);

/** VS Code's `inputs`: values the config asks the user for, used as `${input:id}`. */
export const inputsSchema = z.array(
  z.object({
    id: z.string({ error: "expected the input's id (a string)" }).min(1, "expected a non-empty id"),
    type: z.string().optional(),
    description: z.string().optional(),
    password: z.boolean({ error: "expected true or false" }).optional(),
    default: z.string({ error: "expected a string" }).optional(),
  }),
  { error: 'expected a list of { "id", "type": "promptString", "description" } inputs' },
);

/** The top level of a config file, before server entries are checked one by one. */
export const configFileSchema = z.object({
  inputs: inputsSchema.optional(),
  mcpServers: z.record(z.string(), z.unknown(), { error: "expected an object of server entries" }).optional(),
  servers: z.record(z.string(), z.unknown(), { error: "expected an object of server entries" }).optional(),
  model: modelSchema.optional(),
  agent: agentSchema.optional(),
  routing: routingSchema.optional(),
  redact: redactSchema.optional(),
  security: securitySchema.optional(),
  store: storeSchema.optional(),
  audit: auditSchema.optional(),
  identity: identitySchema.optional(),
  policy: policySchema.optional(),
  gateway: gatewaySchema.optional(),
  limits: limitsSchema.optional(),
  registries: registriesSchema.optional(),
  roots: z
    .array(z.string().min(1, "expected a non-empty folder path"), {
      error: 'expected a list of folders, such as ["./data"]',
    })
    .optional(),
});

/** A value a config placeholder was filled with: the variable (`NAME`, or `input:id`) and the value. */
export interface Substitution {
  variable: string;
  value: string;
  /** An input declared `password: true`, or a value filled into a server's `env` or `headers`. */
  secret?: boolean;
}

/** A whole resolved config: servers in file order plus the optional sections. */
export interface SwitchyardConfig {
  servers: ServerConfig[];
  model?: z.infer<typeof modelSchema>;
  agent?: z.infer<typeof agentSchema>;
  routing?: z.infer<typeof routingSchema>;
  /** More to redact than the defaults: key names and regular expressions (`redact`). */
  redact?: z.infer<typeof redactSchema>;
  /** What a scan's high finding does (`security.onFinding`); absent: quarantine. */
  security?: SecuritySection;
  /**
   * What `${VAR}`, `${env:VAR}` and `${input:id}` placeholders were filled with (`secret`: an input
   * declared `password: true`, or a value that went into a server's `env` or `headers`), for the
   * redactor to know the secrets among them; absent when none were.
   */
  substitutions?: Substitution[];
  /** Where runs, sessions and the audit log are kept (a `path` is absolute); absent: the default file. */
  store?: StoreSection;
  /** What a request does when its audit row cannot be written, and the key that signs the log (`audit`). */
  audit?: AuditSection;
  /** Who calls are for when nobody says (the CLI's `--user`/`--role` win over it). */
  identity?: IdentitySection;
  /** Who may call what (calls/policy.ts); absent: every call is allowed. */
  policy?: PolicySection;
  /** How `switchyard serve` serves the fleet: mode, who may use it (`auth`), accepted Host/Origin names. */
  gateway?: GatewaySection;
  /** Caps over the whole fleet (`limits.inFlight`); absent: each server's own limits only. */
  limits?: LimitsSection;
  /**
   * The registries `search` and `add` ask and the servers a team may add (`registries`); its `token`
   * placeholders are left as written, filled only when that registry is asked.
   */
  registries?: RegistrySection;
  /** Folder that relative paths were resolved against. */
  baseDir: string;
  /** Absolute folders offered to servers as roots (`roots/list`); absent: no roots (the capability is not declared). */
  roots?: string[];
  /** Unknown keys that were ignored, as `path: message` lines. */
  warnings: string[];
}
