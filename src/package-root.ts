import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/**
 * A file of Switchyard's own package (`package.json`, `examples/fleet.json`, `dist/viewer/assets`), by
 * its path from the package's folder: the nearest folder above this module with a package.json,
 * wherever the module is (dist/, dist/chunks/ or src/ under the test runner). Found on first use.
 */
export function packageFile(...parts: string[]): string {
  if (root === undefined) {
    let at = path.dirname(fileURLToPath(import.meta.url));
    while (!existsSync(path.join(at, "package.json"))) {
      const up = path.dirname(at);
      if (up === at)
        throw new Error(`Switchyard's package.json was not found above ${fileURLToPath(import.meta.url)}`);
      at = up;
    }
    root = at;
  }
  return path.join(root, ...parts);
}

/** The fields of Switchyard's package.json that the code reads. */
export interface PackageJson {
  version: string;
  bin: { switchyard: string };
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

let manifest: PackageJson | undefined;

/** Switchyard's package.json, read once on first use (never at import). */
export function packageJson(): PackageJson {
  manifest ??= JSON.parse(readFileSync(packageFile("package.json"), "utf8")) as PackageJson;
  return manifest;
}
