// Where things are, whether the bench runs from its TypeScript source (tsx) or compiled
// (.bench-build/, as `npm run bench` runs it).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRepo(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "switchyard"
    ) {
      return dir;
    }
  }
  throw new Error("cannot find the switchyard package above the bench");
}

/** The repository's root folder. */
export const REPO = findRepo();
