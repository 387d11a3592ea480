import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chatHistoryFile } from "../../src/cli/chat-input.js";
import { serverCacheDir, serverCacheFile } from "../../src/fleet/catalog-cache.js";
import { defaultStorePath, loadConfigFile, oauthStoreFolder, openStore } from "../../src/internal.js";
import { runCli, sdk } from "../helpers.js";

// The user's home as the system knows it (the password database), whatever $HOME says.
const REAL_HOME = userInfo().homedir;

/** Whether `file` is `folder` or inside it. */
function isInside(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** Every folder or file Switchyard writes to when nothing names one, as this process would use it. */
function defaultFolders(): Record<string, string> {
  const { SWITCHYARD_CHAT_HISTORY: _chosen, ...env } = process.env;
  return {
    HOME: process.env.HOME ?? "",
    store: defaultStorePath(),
    "servers' catalogs": serverCacheDir(),
    "OAuth tokens": oauthStoreFolder(),
    "chat history": chatHistoryFile(env) ?? "",
  };
}

/** Fails unless every default is outside the user's home and inside this run's temp folder. */
function expectRunFolders(): void {
  const folders = Object.entries(defaultFolders());
  const inUserHome = folders.filter(([, folder]) => isInside(folder, REAL_HOME));
  expect(Object.fromEntries(inUserHome), `in the user's home ${REAL_HOME}`).toEqual({});
  const runFolder = inject("testRunFolder");
  expect(runFolder, "the run's temp folder (vitest.config.ts: globalSetup)").toEqual(expect.any(String));
  const outside = folders.filter(([, folder]) => !isInside(folder, runFolder));
  expect(Object.fromEntries(outside), `outside the run's folder ${runFolder}`).toEqual({});
}

let dir: string;
let config: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-user-folders-"));
  config = path.join(dir, "switchyard.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { clean: sdk() } }));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a test run's own folders", () => {
  it("hold HOME and every folder Switchyard defaults to, none of them in the user's home", () => {
    expectRunFolders();
  });

  it("take the catalog cache and the run record of a CLI tools and call", async () => {
    // First the folders: with them wrong, the CLI would write into the user's home.
    expectRunFolders();
    const tools = await runCli(["--config", config, "tools"]);
    expect(tools.code, tools.stderr).toBe(0);
    const call = await runCli(["--config", config, "call", "clean_echo", '{"text":"hi"}']);
    expect(call.code, call.stderr).toBe(0);

    const cached = serverCacheFile(loadConfigFile(config).servers[0]!);
    expect(existsSync(cached)).toBe(true);
    expect(existsSync(path.join(REAL_HOME, ".cache", "switchyard", "servers", path.basename(cached)))).toBe(
      false,
    );
    const store = await openStore({ path: defaultStorePath() });
    try {
      const runs = await store.runs();
      expect(runs.map((run) => [run.kind, run.input])).toEqual([
        ["call", expect.stringContaining("clean_echo")],
      ]);
    } finally {
      await store.close();
    }
  });
});
