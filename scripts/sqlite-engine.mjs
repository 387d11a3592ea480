#!/usr/bin/env node
// `prepare` (run by `npm install` and `npm ci` in this repository, never when switchyard is installed as
// a package): the embedded store and the example orders server need a SQLite engine. Node 22.13 and
// newer have node:sqlite: nothing to do, nothing compiled. An older Node (20, end of life) needs
// better-sqlite3, a native module (an optional peer dependency, so npm does not install it by itself):
// when it does not load, install the version package.json names (not saved), so that
// `npm install && npm run demo` and `npm test` keep working there.
//
//   node scripts/sqlite-engine.mjs [--check]     --check: say which engine loads, install nothing
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
// The version package.json names (a peer range's lowest: "^12.11.1" → 12.11.1, the one tested).
const version = (pkg.peerDependencies?.["better-sqlite3"] ?? pkg.optionalDependencies?.["better-sqlite3"])
  ?.replace(/^[\^~]/, "");


/** Whether the engine loads, asked in a child process: Node 22's experimental warning is not printed
 * here, and a package installed by this script is seen (this process remembers it missing). */
function loads(name) {
  const code =
    name === "node:sqlite"
      ? "require('node:sqlite')"
      : "const D = require('better-sqlite3'); new D(':memory:').close()";
  return spawnSync(process.execPath, ["--no-warnings", "-e", code], { cwd: root }).status === 0;
}

if (loads("node:sqlite")) {
  console.log(`sqlite: node:sqlite (Node ${process.version}): nothing to build`);
} else if (loads("better-sqlite3")) {
  console.log(`sqlite: better-sqlite3 (Node ${process.version} has no node:sqlite)`);
} else if (process.argv.includes("--check") || !version) {
  console.error(
    `sqlite: Node ${process.version} has no node:sqlite and better-sqlite3 does not load: use Node 24 (or 22.13+), or npm install better-sqlite3${version ? `@${version}` : ""}`,
  );
  process.exitCode = 1;
} else {
  console.log(
    `sqlite: Node ${process.version} has no node:sqlite (22.13+ has): installing better-sqlite3@${version} (a native module, compiled if no prebuilt binary is found), not saved`,
  );
  // Not `npm install --no-save better-sqlite3` here: npm keeps the root's optional peer edge and installs
  // nothing. So into a folder of its own under node_modules/.cache, one per Node ABI (a later npm install
  // keeps it: only the link is pruned, and made again here without building), linked as
  // node_modules/better-sqlite3.
  const prefix = path.join(root, "node_modules", ".cache", `switchyard-sqlite-abi${process.versions.modules}`);
  const built = path.join(prefix, "node_modules", "better-sqlite3");
  const npm = process.env.npm_execpath;
  // There but not built (its build failed): build it again.
  const args = existsSync(built)
    ? ["rebuild", "--prefix", prefix, "better-sqlite3"]
    : ["install", "--prefix", prefix, "--no-save", "--no-package-lock", "--no-audit", "--no-fund"];
  if (!existsSync(built)) args.push(`better-sqlite3@${version}`);
  let run = { status: 0 };
  if (!existsSync(path.join(built, "build", "Release", "better_sqlite3.node"))) {
    mkdirSync(prefix, { recursive: true });
    run = npm
      ? spawnSync(process.execPath, [npm, ...args], { cwd: root, stdio: "inherit" })
      : spawnSync("npm", args, { cwd: root, stdio: "inherit" });
  }
  const link = path.join(root, "node_modules", "better-sqlite3");
  if (run.status === 0 && existsSync(built)) {
    rmSync(link, { recursive: true, force: true });
    symlinkSync(path.relative(path.dirname(link), built), link, "dir");
  }
  if (run.status !== 0 || !loads("better-sqlite3")) {
    // Not fatal: everything but the SQLite store and the orders example works; both say what is missing.
    console.error(
      `sqlite: better-sqlite3@${version} did not install: the SQLite store and the orders example will say so; use Node 24, or install a C++ toolchain (make, g++, python3) and run npm install better-sqlite3@${version}`,
    );
  }
}
