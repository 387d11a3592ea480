// globalSetup: one temp folder for the whole run, in which every test file gets its own HOME and XDG
// folders (user-folders.ts); removed when the run ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's temp folder: every test file's HOME and XDG folders are inside it. */
    testRunFolder: string;
  }
}

export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(path.join(tmpdir(), "switchyard-test-run-"));
  project.provide("testRunFolder", folder);
  return () => rmSync(folder, { recursive: true, force: true });
}
