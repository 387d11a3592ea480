import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NODE, ROOT, runCli } from "../helpers.js";

/** Node 22.13+ (and 22.5+ with --experimental-sqlite): the SQLite store needs nothing installed. */
const HAS_NODE_SQLITE = spawnSync(NODE, ["--no-warnings", "-e", "require('node:sqlite')"]).status === 0;
const NO_MODEL = { OPENAI_API_KEY: "", OPENAI_BASE_URL: "", SWITCHYARD_MODEL: "" };
const ENGLISH = { LANG: "C.UTF-8", LC_ALL: "", LC_MESSAGES: "" };

interface PackageJson {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const pkg = () => JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as PackageJson;

/**
 * A fresh folder none of whose parents holds a node_modules: Node looks for packages in every parent,
 * so a stray /tmp/node_modules would make a missing package found after all.
 */
/** The folders isolatedDir made, removed after the tests (they are not under the system's temp folder). */
const isolated: string[] = [];
afterAll(() => {
  for (const folder of isolated) rmSync(folder, { recursive: true, force: true });
});

function isolatedDir(prefix: string): string {
  for (const base of [tmpdir(), "/var/tmp", path.join(ROOT, "..")]) {
    const parents: string[] = [];
    for (let at = path.resolve(base); ; at = path.dirname(at)) {
      parents.push(at);
      if (at === path.dirname(at)) break;
    }
    if (parents.some((parent) => existsSync(path.join(parent, "node_modules")))) continue;
    const folder = mkdtempSync(path.join(base, prefix));
    isolated.push(folder);
    return folder;
  }
  throw new Error("no folder without a node_modules above it for a fake install; remove the stray one");
}

/** Whether Node, loading a module from `folder`, finds `name`. */
function resolvesFrom(folder: string, name: string): boolean {
  try {
    createRequire(path.join(folder, "x.js")).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * A node_modules of symlinks to this repository's packages, without the ones named: what an install
 * that lacks them looks like to Node's resolution.
 */
function nodeModulesWithout(folder: string, ...missing: string[]): void {
  const link = (from: string, to: string) => {
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(from)) {
      const name = path.relative(path.join(ROOT, "node_modules"), path.join(from, entry));
      if (entry === ".bin" || missing.includes(name)) continue;
      if (entry.startsWith("@")) link(path.join(from, entry), path.join(to, entry));
      else symlinkSync(path.join(from, entry), path.join(to, entry));
    }
  };
  link(path.join(ROOT, "node_modules"), path.join(folder, "node_modules"));
}

/** A copy of the built package (dist, examples, package.json) installed without `missing`. */
function installWithout(...missing: string[]): string {
  const root = isolatedDir("switchyard-install-");
  cpSync(path.join(ROOT, "dist"), path.join(root, "dist"), { recursive: true });
  cpSync(path.join(ROOT, "examples"), path.join(root, "examples"), {
    recursive: true,
    filter: (source) => !source.includes(`${path.sep}.data`),
  });
  cpSync(path.join(ROOT, "package.json"), path.join(root, "package.json"));
  nodeModulesWithout(root, ...missing);
  for (const name of missing)
    expect(resolvesFrom(path.join(root, "examples/servers"), name), name).toBe(false);
  return root;
}

describe("packaging", () => {
  it("pins every runtime dependency (the SDK's server side among them, for the gateway); better-sqlite3 is optional", () => {
    const { dependencies, devDependencies, optionalDependencies, peerDependencies } = pkg();
    expect(dependencies["@modelcontextprotocol/server"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(devDependencies).not.toHaveProperty("@modelcontextprotocol/server");
    expect(dependencies).not.toHaveProperty("better-sqlite3");
    expect(devDependencies).not.toHaveProperty("better-sqlite3");
    // Only a Node without node:sqlite (< 22.13) needs it: an optional peer from the 12.x this code is
    // tested with (scripts/sqlite-engine.mjs installs that version on such a Node in this repository).
    expect(optionalDependencies?.["better-sqlite3"] ?? peerDependencies?.["better-sqlite3"]).toMatch(
      /^\^?12\.\d+\.\d+$/,
    );
    for (const [name, version] of Object.entries({ ...dependencies, ...optionalDependencies }))
      expect(version, name).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("the library's entry point loads a few bundled files, none of them the CLI's or the testing kit's", () => {
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const source = readFileSync(file, "utf8");
      for (const [, spec] of source.matchAll(/^(?:import|export)\s[^;]*?from\s*"(\.[^"]+)"/gms))
        visit(path.resolve(path.dirname(file), spec!));
    };
    visit(path.join(ROOT, "dist/index.js"));
    // 15: the root shares the trust scans' chunks with the switchyard/trust entry (its catalog scans
    // every listing), which splits them off as chunks of their own; 16: the SQLite engine is a chunk the
    // root shares with switchyard/sqlite (the example servers' way to it).
    expect(loaded.size).toBeLessThanOrEqual(16);
    for (const file of loaded) {
      const source = readFileSync(file, "utf8");
      // The testing kit (ScriptedModel), the CLI (commander) and the example servers stay out.
      expect(source, file).not.toMatch(/class ScriptedModel\b|from "commander"|examples\/servers/);
      // ASCII only: V8 then keeps the source one byte per character.
      expect(/[^\t\n\r\x20-\x7e]/.test(source), file).toBe(false);
    }
  });

  it("the orders example without better-sqlite3: served by node:sqlite where this Node has it, else each call says what to do", async () => {
    const root = installWithout("better-sqlite3");
    const config = path.join(root, "switchyard.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          orders: {
            command: NODE,
            args: ["examples/servers/orders.mjs"],
            env: { ORDERS_DB: path.join(root, "o.db") },
          },
        },
      }),
    );
    const env = { XDG_CACHE_HOME: path.join(root, "cache") };
    const servers = await runCli(["--config", config, "servers"], { env, cwd: root });
    expect(servers.code).toBe(0);
    expect(servers.stdout).toMatch(/^orders\s+ready\s+stdio/m);
    const call = await runCli(
      ["--config", config, "call", "orders_get_customer", '{"customer_id":"C10001"}'],
      { env, cwd: root },
    );
    if (HAS_NODE_SQLITE) {
      expect(call.stderr).toBe("");
      expect(call.code).toBe(0);
      expect(call.stdout).toContain("C10001");
    } else {
      expect(call.code).toBe(1);
      expect(call.stderr).toContain(
        `the orders example keeps its data in SQLite: better-sqlite3 is not installed and this Node (${process.version}) has no node:sqlite: use Node 22.13 or newer (24 recommended, nothing to install), or npm install better-sqlite3@12`,
      );
    }
  });

  it("the demo without better-sqlite3: runs on node:sqlite where this Node has it, else warns first and the orders step says what is missing", async () => {
    const root = installWithout("better-sqlite3");
    const { code, stdout, stderr } = await runCopy(root, ["demo"], {
      ...NO_MODEL,
      ...ENGLISH,
      SWITCHYARD_DATA_DIR: path.join(root, "data"),
    });
    expect(stdout).toMatch(/^orders\s+ready/m);
    if (HAS_NODE_SQLITE) {
      expect(stderr).not.toContain("warning:");
      expect(stdout).not.toContain("better-sqlite3");
      expect(code).toBe(0);
    } else {
      expect(code).toBe(1);
      expect(stderr).toContain(
        "warning: the orders server has no SQLite here, so it answers with an error: better-sqlite3 is not installed",
      );
      expect(stdout).toContain("npm install better-sqlite3@12");
    }
  });
});

/** Run a copied install's CLI. */
function runCopy(root: string, args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(NODE, [path.join(root, "dist/cli/main.js"), ...args], {
      cwd: root,
      env: { ...process.env, XDG_CACHE_HOME: path.join(root, "cache"), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
