import { readFileSync } from "node:fs";
import { packageFile } from "../package-root.js";

/** The package's own package.json. */
const PACKAGE_JSON = packageFile("package.json");

/** What the package's package.json says; read once. */
export const PACKAGE = JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as {
  version: string;
  bin: { switchyard: string };
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

/** The package's version, as `switchyard --version` prints it. */
export const PACKAGE_VERSION = PACKAGE.version;
