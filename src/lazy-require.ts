import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * Load a package on first use rather than at import: `yaml` only when a YAML file is read, `pino` only
 * when a logger is made. Importing Switchyard then costs a library user only what they use.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}

/** Parse YAML text (the `yaml` package, loaded on first use). */
export const parseYaml = (text: string): unknown => lazyRequire<typeof import("yaml")>("yaml")().parse(text);
