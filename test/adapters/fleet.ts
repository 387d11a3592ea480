import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfigFile, Switchyard, type SwitchyardOptions } from "../../src/index.js";
import { ROOT } from "../helpers.js";

/** The example fleet (examples/fleet.json), its orders database in a fresh folder. */
export async function exampleFleet(options: SwitchyardOptions = {}): Promise<Switchyard> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "switchyard-adapters-"));
  const config = loadConfigFile(path.join(ROOT, "examples/fleet.json"), {
    ...process.env,
    SWITCHYARD_DATA_DIR: dataDir,
  });
  return Switchyard.connect(config, options);
}
