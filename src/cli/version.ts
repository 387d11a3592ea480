import { readFileSync } from "node:fs";

/** The package's own package.json (two folders up from dist/cli/, as from src/cli/). */
const PACKAGE_JSON = new URL("../../package.json", import.meta.url);

/** What the package's package.json says; read once. */
export const PACKAGE = JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as {
  version: string;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

/** The package's version, as `switchyard --version` prints it. */
export const PACKAGE_VERSION = PACKAGE.version;
