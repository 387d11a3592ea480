import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "../../src/index.js";
import { NODE, processesWith, ROOT, runCli, sdk } from "../helpers.js";
import { allDocuments, codeBlocks, read, sectionOf } from "./docs-pages.js";

const README = read("README.md");

function run(file: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(NODE, [file], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the README", () => {
  it("library example runs as written on this Node, against the example fleet", async () => {
    const [example] = codeBlocks(README, "Library");
    expect(example).toContain('from "switchyard"');
    // The one change: the import names the built package by path, as an install would resolve it.
    const code = example!.replace(
      'from "switchyard"',
      `from ${JSON.stringify(pathToFileURL(`${ROOT}dist/index.js`).href)}`,
    );
    // A project whose switchyard.config.json is the example fleet (its servers beside it).
    const project = mkdtempSync(path.join(tmpdir(), "switchyard-readme-"));
    copyFileSync(path.join(ROOT, "examples/fleet.json"), path.join(project, "switchyard.config.json"));
    symlinkSync(path.join(ROOT, "examples/servers"), path.join(project, "servers"));
    const file = path.join(project, "example.mjs");
    writeFileSync(file, code);

    const data = path.join(project, "data");
    const { code: exit, stdout, stderr } = await run(file, project, { SWITCHYARD_DATA_DIR: data });
    expect(stderr).toBe("");
    expect(exit).toBe(0);
    expect(stdout).toMatch(/^false C10001 \(张伟\) has \d+ order\(s\) in the last 7 day\(s\)/);
    // yard.close() in `finally` stopped every server: none is left with the example's data folder.
    expect(processesWith(data, "environ")).toEqual([]);
  });

  it("config example, comments and all, loads as written from switchyard.config.json", () => {
    const [example] = codeBlocks(README, "Config");
    expect(example).toContain("// ");
    const file = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-readme-")), "switchyard.config.json");
    writeFileSync(file, example!);
    const config = loadConfigFile(file, { HOME: "/home/me", TOKEN: "t0k" });
    expect(config.servers.map((server) => server.name)).toEqual([
      "orders",
      "search",
      "legacy",
      "hasher",
      "db",
    ]);
    expect(config.warnings).toEqual([]);
  });

  it("names the environment a stdio server gets, as src/fleet/server-process.ts passes it", () => {
    const source = readFileSync(path.join(ROOT, "src/fleet/server-process.ts"), "utf8");
    const inherited = /const INHERITED_ENV = \[([^\]]*)\]/.exec(source)![1]!.match(/[A-Z_]+/g)!;
    const english = sectionOf(read("docs/config.md"), "Variables").replace(/\s+/g, " ");
    const sentence = /does not get your whole environment: only ([^(]*)\(/.exec(english)![1]!;
    expect(sentence.match(/[A-Z_]{2,}/g)).toEqual(inherited);
    const chinese = sectionOf(read("docs/zh-CN/config.md"), "变量").replace(/\s+/g, " ");
    const zh = /不会得到你的全部环境变量：只有([^（]*)（/.exec(chinese)![1]!;
    expect(zh.match(/[A-Z_]{2,}/g)).toEqual(inherited);
  });
});

describe("what the README says the store keeps", () => {
  it("a call's result text, as runs show --json gives it back; no document says results are not stored", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-readme-store-"));
    const config = path.join(dir, "switchyard.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { s: sdk() } }));
    const env = Object.fromEntries(
      ["XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"].map((name) => [
        name,
        path.join(dir, name.toLowerCase()),
      ]),
    );
    const cli = (...args: string[]) => runCli(["--config", config, ...args], { env });
    expect((await cli("call", "s_echo", '{"text":"kept in the store"}')).code).toBe(0);
    const [call] = JSON.parse((await cli("--json", "runs")).stdout) as Array<{ id: string }>;
    const shown = JSON.parse((await cli("--json", "runs", "show", call!.id)).stdout) as {
      calls: Array<{ result?: string }>;
    };
    expect(shown.calls.map((recorded) => recorded.result)).toEqual(["kept in the store"]);

    const denials = allDocuments().flatMap((file) => {
      const text = read(file).replace(/\s+/g, " ");
      const sentences = text.matchAll(
        /[^.;。；]*(?:results are not stored|store keeps no results|结果不会保存)[^.;。；]*/gi,
      );
      return [...sentences].map((sentence) => `${file}: ${sentence[0].trim()}`);
    });
    expect(denials).toEqual([]);
  });
});
