// What the layer-check tests share: small source trees made in a temp folder (removed after each
// test), `scripts/check-layers.mjs` run on one, and its findings as sorted one-line strings.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect } from "vitest";

const SCRIPT = path.resolve(import.meta.dirname, "../../scripts/check-layers.mjs");

interface Violation {
  rule: string;
  file: string;
  line: number;
  target: string;
  kind: string;
}

/** Call at the top of a test file: the trees it makes are removed after each test. */
export function madeTrees(prefix: string) {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A tree of these files (paths relative to its root); returns its root. */
  function tree(files: Record<string, string>): string {
    const root = mkdtempSync(path.join(tmpdir(), `switchyard-${prefix}-`));
    made.push(root);
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    }
    return root;
  }

  /** The layer check on a tree, with these flags. */
  function check(root: string, ...args: string[]) {
    const run = spawnSync(process.execPath, [SCRIPT, "--root", root, ...args], { encoding: "utf8" });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  /** What the check finds in a tree, as `rule file:line → target`, sorted; its exit code agrees. */
  function violations(root: string): string[] {
    const { code, stdout, stderr } = check(root, "--json");
    expect(stderr).toBe("");
    const found = JSON.parse(stdout) as Violation[];
    expect(code).toBe(found.length > 0 ? 1 : 0);
    return found.map((v) => `${v.rule} ${v.file}:${v.line} → ${v.target}`).sort();
  }

  return { tree, check, violations };
}
