import { packageJson } from "../package-root.js";

/** What the package's package.json says; read once. */
export const PACKAGE = packageJson();

/** The package's version, as `switchyard --version` prints it. */
export const PACKAGE_VERSION = PACKAGE.version;
