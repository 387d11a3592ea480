#!/usr/bin/env node
// `npm run build`: the package's JavaScript and its types in dist/.
//
// - tsc writes the declarations (dist/**/*.d.ts), with their doc comments, for editors and users.
// - esbuild bundles the JavaScript: one file per entry point of package.json (`exports`, `bin`), the
//   code they share in dist/chunks/, source maps back to src/. A process that imports Switchyard then
//   loads a handful of files, not a hundred, without comments and in ASCII (so V8 keeps the source as
//   one byte per character): about 7 MB less memory than tsc's file-per-module output. Every entry
//   point shares the same chunks, so a class is one class whichever entry point it came through.
// - Files the build does not compile are copied beside the code that reads them (the trace viewer's
//   page: src/viewer/assets → dist/viewer/assets).
import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

/** dist/x/y.js → src/x/y.ts, for every file package.json points at. */
const entryPoints = [
  ...Object.values(pkg.exports).map((target) => target.default),
  ...Object.values(pkg.bin),
].map((file) => path.join(root, "src", path.relative("dist", file).replace(/\.js$/, ".ts")));

rmSync(dist, { recursive: true, force: true });
const tsc = path.join(root, "node_modules/typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.json", "--emitDeclarationOnly"], { cwd: root, stdio: "inherit" });
await build({
  entryPoints,
  outbase: path.join(root, "src"),
  outdir: dist,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Packages stay packages: installed once, shared with the host, loaded lazily where our code says so.
  packages: "external",
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning",
});
// esbuild writes strings, regular expressions and names in ASCII, but keeps some doc comments as they
// are; one "→" in a comment would make V8 keep the whole file two bytes per character.
for (const file of readdirSync(dist, { recursive: true, encoding: "utf8" })) {
  if (!file.endsWith(".js")) continue;
  const source = readFileSync(path.join(dist, file), "utf8");
  const ascii = source.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
  if (ascii !== source) writeFileSync(path.join(dist, file), ascii);
}
for (const folder of ["viewer/assets"]) {
  cpSync(path.join(root, "src", folder), path.join(dist, folder), { recursive: true });
}
