// Which store a config asks for, and opening it.
import { homedir } from "node:os";
import path from "node:path";
import { DEFAULT_RECORD_TEXT_CHARS, DEFAULT_STORE_FILE } from "../config/defaults.js";
import type { StoreSection, SwitchyardConfig } from "../config/schema.js";
import { SwitchyardError } from "../errors.js";
import { PostgresStore } from "./postgres.js";
import { SqliteStore } from "./sqlite.js";
import type { Store, StoreOptions } from "./store.js";

/**
 * Where the embedded store lives when the config names no file: `$XDG_DATA_HOME/switchyard/switchyard.db`,
 * else `~/.local/share/switchyard/switchyard.db`.
 */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME;
  // The XDG spec: a relative path is invalid and must be ignored.
  const data = xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), ".local", "share");
  return path.join(data, "switchyard", DEFAULT_STORE_FILE);
}

/**
 * Open the store a config asks for: its `store` section (`{ path }`: a SQLite file; `{ url }`: a
 * PostgreSQL database), or a resolved config (its `store`); nothing: the embedded default file
 * ({@link defaultStorePath}). The schema is created or brought up to date.
 * @throws SwitchyardError `STORE_ERROR` when it cannot be opened; `INVALID_INPUT` for `store: false`
 *   (recording is off: do not open one) or a section of the wrong shape.
 */
export async function openStore(
  config?: SwitchyardConfig | StoreSection | string,
  options: StoreOptions = {},
): Promise<Store> {
  const section = typeof config === "string" ? { path: config } : sectionOf(config);
  if (section === false)
    throw new SwitchyardError(
      "INVALID_INPUT",
      "the config says store: false (recording is off): no store to open",
    );
  const textChars = options.textChars ?? DEFAULT_RECORD_TEXT_CHARS;
  if (!(Number.isInteger(textChars) && textChars > 0))
    throw new SwitchyardError("INVALID_INPUT", `textChars must be a whole number above 0 (got ${textChars})`);
  const policy = { textChars, ...(options.redact ? { redact: options.redact } : {}) };
  const auditKey = options.auditKey ?? keyOf(config);
  if ("url" in section && section.url !== undefined) return PostgresStore.open(section.url, policy, auditKey);
  return SqliteStore.open(
    path.resolve("path" in section && section.path ? section.path : defaultStorePath()),
    policy,
    auditKey,
  );
}

function sectionOf(config: SwitchyardConfig | StoreSection | undefined): StoreSection {
  if (config === undefined) return {};
  if (config === false) return false;
  if (typeof config !== "object" || config === null)
    throw new SwitchyardError(
      "INVALID_INPUT",
      "openStore takes a config, a store section ({ path } or { url }) or a file path",
    );
  if ("servers" in config && Array.isArray(config.servers)) return config.store ?? {};
  const section = config as Record<string, unknown>;
  for (const key of Object.keys(section)) {
    if (key !== "path" && key !== "url")
      throw new SwitchyardError("INVALID_INPUT", `store section: unknown key ${key}; it takes path or url`);
  }
  return section as StoreSection;
}

/** A resolved config's `audit.key`, when `openStore` was given a config. */
function keyOf(config: SwitchyardConfig | StoreSection | string | undefined): string | undefined {
  if (typeof config !== "object" || config === null || !("servers" in config)) return undefined;
  return config.audit?.key;
}
