#!/usr/bin/env node
// After `tsc`: copy the files the build does not compile into dist/ beside the code that reads them
// (the trace viewer's page: src/viewer/assets → dist/viewer/assets). Part of `npm run build`.
import { cpSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const COPIED = ["viewer/assets"];
for (const folder of COPIED) {
  const target = path.join(root, "dist", folder);
  rmSync(target, { recursive: true, force: true });
  cpSync(path.join(root, "src", folder), target, { recursive: true });
}
