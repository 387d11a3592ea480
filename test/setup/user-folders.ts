// setupFiles: before each test file, its own HOME and XDG folders inside the run's temp folder
// (run-folder.ts), so that the library, the CLI and every child process they start (which inherit this
// environment) write their stores, caches, tokens and history there and never into the user's own.
// HOME too: os.homedir() reads it, the XDG fallbacks and MCP servers (given HOME, not XDG_*) use it.
import { existsSync, mkdtempSync } from "node:fs";
import { userInfo } from "node:os";
import path from "node:path";
import { inject } from "vitest";

const home = mkdtempSync(path.join(inject("testRunFolder"), "home-"));
// pg reads ~/.pgpass for a test database URL without a password: still the user's own, read only.
const pgpass = path.join(userInfo().homedir, ".pgpass");
if (process.env.PGPASSFILE === undefined && existsSync(pgpass)) process.env.PGPASSFILE = pgpass;
Object.assign(process.env, {
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, ".config"),
  XDG_CACHE_HOME: path.join(home, ".cache"),
  XDG_DATA_HOME: path.join(home, ".local", "share"),
  XDG_STATE_HOME: path.join(home, ".local", "state"),
});
