// A registry's server.json as a config entry: a package pinned to its version (npx, uvx, docker) or a
// remote by its URL and transport; what the user must supply as `${VARIABLE}` placeholders (never a
// value marked secret); and `source`, where it came from.

import { type ServerSource, SwitchyardError } from "../../internal.js";
import type {
  RegistryArgument,
  RegistryInput,
  RegistryPackage,
  RegistryRemote,
  ServerResponse,
} from "./api.js";

/** The package registries `add` can run a server from, and the command each runs with. */
const RUNNERS = { npm: "npx", pypi: "uvx", oci: "docker" } as const;
type RunnableType = keyof typeof RUNNERS;

/** What `add` writes, and what to tell the user about it. */
export interface RegistryEntry {
  /** The config entry: `command`/`args`/`env`, or `url`/transport/`headers`; with `source`. */
  entry: Record<string, unknown>;
  /** How it runs, in one line: `npx -y pkg@1.2.0`, or the remote's URL. */
  runs: string;
  /** What exactly runs: `npm:<package>@<version>`, `pypi:<package>==<version>`, `oci:<image>`, or the URL. */
  pin: string;
  /** The variables its placeholders read: the user sets them before starting it. */
  variables: string[];
  /** Optional inputs left out (their names), for the user to add by hand. */
  optional: string[];
}

/** How a server runs, in a few words (`search`'s column): `npm <pkg>`, `pypi <pkg>`, `oci <image>`, `remote <url>`. */
export function howItRuns(response: ServerResponse): string {
  const { packages = [], remotes = [] } = response.server;
  const ways = [
    ...packages.map((pkg) => `${pkg.registryType} ${pkg.identifier}`),
    ...remotes.map((remote) => `${remote.type} ${remote.url}`),
  ];
  return ways.join(", ") || "-";
}

/**
 * The config entry for one version of a server: its first package that runs over stdio from npm, PyPI or
 * an OCI registry, else its first remote (`streamable-http` or `sse`).
 * @throws SwitchyardError `REGISTRY_ERROR` when it has neither, or its package has no version to pin.
 */
export function entryFor(
  response: ServerResponse,
  options: { registry: string; transportKey: "transport" | "type" },
): RegistryEntry {
  const { server } = response;
  const pkg = server.packages?.find(
    (candidate) => candidate.registryType in RUNNERS && (candidate.transport?.type ?? "stdio") === "stdio",
  );
  const remote = server.remotes?.find(
    (candidate) => candidate.type === "streamable-http" || candidate.type === "sse",
  );
  if (!pkg && !remote) {
    const offered = howItRuns(response);
    throw new SwitchyardError(
      "REGISTRY_ERROR",
      `server ${server.name}@${server.version} has nothing Switchyard can run: no npm, PyPI or OCI package over stdio and no streamable-http or sse remote (it lists: ${offered}); write its entry by hand from its documentation`,
    );
  }
  const built = pkg ? packageEntry(server.name, pkg) : remoteEntry(remote!, options.transportKey);
  const source: ServerSource = {
    registry: options.registry,
    name: server.name,
    version: server.version,
    package: built.pin,
    ...(response._meta && Object.keys(response._meta).length ? { meta: response._meta } : {}),
  };
  return { ...built, entry: { ...built.entry, source } };
}

/** A variable's name from an input's name: `api-key` → `API_KEY`. */
function variableName(name: string): string {
  return name
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase();
}

/** Inputs as the values the entry holds: required ones (fixed values, or placeholders), the optional ones named. */
class Inputs {
  readonly variables = new Set<string>();
  readonly optional: string[] = [];

  /** The value an input is written with; undefined for an optional one without a fixed value. */
  value(input: RegistryInput, fallbackName: string): string | undefined {
    const fixed = input.value ?? (input.isRequired ? undefined : input.default);
    if (fixed !== undefined && !(input.isSecret && !/\{[^}]+\}/.test(fixed))) {
      // `{id}` in a publisher's value stands for what the user gives: a placeholder of ours.
      return fixed.replace(/\{([^}]+)\}/g, (_, id: string) => this.#placeholder(variableName(id)));
    }
    if (!input.isRequired) {
      this.optional.push(fallbackName);
      return undefined;
    }
    return this.#placeholder(variableName(fallbackName));
  }

  #placeholder(variable: string): string {
    this.variables.add(variable);
    return `\${${variable}}`;
  }
}

/** A package run with its runner, pinned to its version. */
function packageEntry(serverName: string, pkg: RegistryPackage): RegistryEntry {
  if (!pkg.version || pkg.version === "latest")
    throw new SwitchyardError(
      "REGISTRY_ERROR",
      `server ${serverName}: its ${pkg.registryType} package ${pkg.identifier} gives no version to pin; write its entry by hand with the version you choose`,
    );
  const inputs = new Inputs();
  const env: Record<string, string> = {};
  for (const variable of pkg.environmentVariables ?? []) {
    if (!variable.name) continue;
    const value = inputs.value(variable, variable.name);
    if (value !== undefined) env[variable.name] = value;
  }
  const type = pkg.registryType as RunnableType;
  const command = RUNNERS[type];
  const runtime = argumentsOf(pkg.runtimeArguments, inputs);
  const args = argumentsOf(pkg.packageArguments, inputs);
  let launch: string[];
  let pinned: string;
  if (type === "npm") {
    pinned = `${pkg.identifier}@${pkg.version}`;
    launch = ["-y", ...runtime, pinned, ...args];
  } else if (type === "pypi") {
    pinned = `${pkg.identifier}==${pkg.version}`;
    launch = [...runtime, pinned, ...args];
  } else {
    // An image named with its tag or digest already keeps it; else the version is its tag.
    const image = /(:[^/]+|@sha256:[0-9a-f]+)$/.test(pkg.identifier)
      ? pkg.identifier
      : `${pkg.identifier}:${pkg.version}`;
    pinned = image;
    // docker passes on only the variables named with -e: each one the entry sets.
    const passed = Object.keys(env).flatMap((name) => ["-e", name]);
    launch = ["run", "-i", "--rm", ...passed, ...runtime, image, ...args];
  }
  const entry: Record<string, unknown> = { command, args: launch };
  if (Object.keys(env).length) entry.env = env;
  return {
    entry,
    runs: `${command} ${launch.join(" ")}`,
    pin: `${type}:${pinned}`,
    variables: [...inputs.variables],
    optional: inputs.optional,
  };
}

/** Arguments as the command line takes them: named ones as `--flag value`, positional ones in order. */
function argumentsOf(list: RegistryArgument[] | undefined, inputs: Inputs): string[] {
  const args: string[] = [];
  for (const argument of list ?? []) {
    const label = argument.valueHint ?? argument.name ?? "argument";
    if (argument.type === "named") {
      if (!argument.name) continue;
      // An optional flag with nothing fixed is left out (named in the note), as an optional variable is.
      const value = inputs.value(argument, label.replace(/^-+/, ""));
      if (value !== undefined) args.push(argument.name, value);
    } else {
      const value = inputs.value(argument, label);
      if (value !== undefined) args.push(value);
    }
  }
  return args;
}

/** A remote server: its URL, its transport, its headers (required ones as placeholders). */
function remoteEntry(remote: RegistryRemote, transportKey: "transport" | "type"): RegistryEntry {
  const inputs = new Inputs();
  const url = remote.url.replace(/\{([^}]+)\}/g, (_, id: string) => inputs.value({ isRequired: true }, id)!);
  const headers: Record<string, string> = {};
  for (const header of remote.headers ?? []) {
    if (!header.name) continue;
    const value = inputs.value(header, header.name);
    if (value !== undefined) headers[header.name] = value;
  }
  const entry: Record<string, unknown> = { url, [transportKey]: remote.type === "sse" ? "sse" : "http" };
  if (Object.keys(headers).length) entry.headers = headers;
  return { entry, runs: url, pin: url, variables: [...inputs.variables], optional: inputs.optional };
}
