// The `registries` section read for `switchyard search` and `add`: from the file as written (a server's
// unset variable must not stop a search), and a registry's token filled from the environment only when
// that registry is asked.

import path from "node:path";
import { check, invalid } from "./check.js";
import { interpolateEnv } from "./interpolate.js";
import { readConfigFile } from "./load.js";
import {
  DEFAULT_REGISTRY_URL,
  type RegistryEntry,
  type RegistrySection,
  registriesSchema,
} from "./sections/registries.js";

/**
 * The `registries` section of a config file, checked, its placeholders left as written; absent when the
 * file has none.
 * @throws SwitchyardError `CONFIG_INVALID` when the file cannot be read or the section is malformed.
 */
export function readRegistries(file: string): RegistrySection | undefined {
  const raw = readConfigFile(path.resolve(file));
  const section =
    typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>).registries : undefined;
  return section === undefined ? undefined : check(registriesSchema, section, ["registries"]);
}

/** The registry to ask: what `--registry` names (a listed name or a URL), else the section's default, else the official one. */
export interface ChosenRegistry {
  url: string;
  /** The listed entry it is, when it is one (its name and token). */
  entry?: RegistryEntry;
}

/**
 * The registry `wanted` names — a name in `registries.list`, or an http(s) URL (a listed one brings its
 * token) — else `registries.default`, else {@link DEFAULT_REGISTRY_URL}.
 * @throws SwitchyardError `CONFIG_INVALID` for a name that is neither listed nor a URL.
 */
export function chooseRegistry(section: RegistrySection | undefined, wanted?: string): ChosenRegistry {
  const name = wanted ?? section?.default;
  if (name === undefined) return { url: DEFAULT_REGISTRY_URL };
  const list = section?.list ?? [];
  const byName = list.find((entry) => entry.name === name);
  if (byName) return { url: byName.url, entry: byName };
  if (!/^https?:\/\//i.test(name) || !URL.canParse(name)) {
    const names = list.map((entry) => entry.name);
    throw invalid(
      "registries",
      names.length
        ? `no registry named "${name}": the config lists ${names.join(", ")}; or give an http(s) URL`
        : `no registry named "${name}": give an http(s) URL, or list it in "registries.list"`,
    );
  }
  const trimmed = name.replace(/\/+$/, "");
  const byUrl = list.find((entry) => entry.url.replace(/\/+$/, "") === trimmed);
  return byUrl ? { url: byUrl.url, entry: byUrl } : { url: name };
}

/**
 * A listed registry's bearer token, its `${VAR}` filled from `env`; undefined when it has none.
 * @throws SwitchyardError `CONFIG_INVALID` naming the variable when it is not set.
 */
export function registryToken(
  entry: RegistryEntry | undefined,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  if (entry?.token === undefined) return undefined;
  return interpolateEnv(entry.token, env, ["registries", "list", entry.name, "token"]) as string;
}
