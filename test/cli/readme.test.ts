import { execFile, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "../../src/index.js";
import { NODE, processesWith, ROOT, runCli, sdk } from "../helpers.js";
import {
  allDocuments,
  anchorsOf,
  codeBlocks,
  proseOf,
  read,
  relativeLinksOf,
  sectionOf,
} from "./docs-pages.js";

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

  it("keeps the library and config examples the same wherever they are shown", () => {
    const [library] = codeBlocks(README, "Library");
    const [config] = codeBlocks(README, "Config");
    expect(codeBlocks(read("README.zh-CN.md"), "库")[0]).toBe(library);
    expect(codeBlocks(read("docs/library.md"), "Connect, list, call")[0]).toBe(library);
    expect(codeBlocks(read("docs/zh-CN/library.md"), "连接、列出、调用")[0]).toBe(library);
    expect(codeBlocks(read("README.zh-CN.md"), "配置")[0]).toBe(config);
    expect(codeBlocks(read("docs/config.md"), "The file")[0]).toBe(config);
    expect(codeBlocks(read("docs/zh-CN/config.md"), "文件")[0]).toBe(config);
  });

  it("is a front door: at most 250 lines, each README", () => {
    for (const file of ["README.md", "README.zh-CN.md"])
      expect(read(file).trimEnd().split("\n").length, file).toBeLessThanOrEqual(250);
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

describe("the links of the READMEs and the docs", () => {
  it("each resolve to a file of the repository, and each #anchor to a heading of it", () => {
    const broken: string[] = [];
    for (const file of allDocuments()) {
      for (const link of relativeLinksOf(read(file))) {
        const [target, anchor] = link.split("#") as [string, string | undefined];
        const resolved = target ? path.join(path.dirname(file), decodeURI(target)) : file;
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${file}: ${link} (no file ${resolved})`);
        else if (
          anchor !== undefined &&
          resolved.endsWith(".md") &&
          !anchorsOf(read(resolved)).has(decodeURI(anchor))
        )
          broken.push(`${file}: ${link} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README links every guide page, and every guide page links back to it", () => {
    const linked = new Set(relativeLinksOf(README).map((link) => link.split("#")[0]));
    for (const file of allDocuments().filter(
      (doc) => doc.startsWith("docs/") && !doc.startsWith("docs/zh-CN/"),
    ))
      expect(linked.has(file), file).toBe(true);
    const chinese = new Set(relativeLinksOf(read("README.zh-CN.md")).map((link) => link.split("#")[0]));
    for (const file of allDocuments().filter((doc) => doc.startsWith("docs/zh-CN/"))) {
      expect(chinese.has(file), file).toBe(true);
      expect(relativeLinksOf(read(file)), file).toContain("../../README.zh-CN.md");
    }
  });
});

/** The rows of the `| command | …` table of a section: each row's first cell. */
function commandCells(text: string, heading: string): string[] {
  return sectionOf(text, heading)
    .split("\n")
    .filter((line) => line.startsWith("| `switchyard "))
    .map((line) => line.split(/(?<!\\)\|/)[1]!.trim());
}

describe("the CLI tables", () => {
  it("name commands that exist, each with flags its --help lists", async () => {
    const tables = [
      ...commandCells(README, "CLI"),
      ...commandCells(read("README.zh-CN.md"), "命令行"),
      ...commandCells(read("docs/cli.md"), "Commands"),
      ...commandCells(read("docs/zh-CN/cli.md"), "命令"),
    ];
    expect(tables.length).toBeGreaterThan(80);
    // Each command of a cell (`switchyard login <server>` / `switchyard logout <server>` is two), with the
    // flags written after it.
    const wanted = new Map<string, Set<string>>();
    for (const cell of tables)
      for (const part of cell.split(/`\s*\/\s*`/)) {
        const words = /switchyard ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/.exec(part)!;
        const command = words.slice(1).filter(Boolean).join(" ");
        const flags = wanted.get(command) ?? new Set<string>();
        for (const flag of part.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? []) flags.add(flag);
        wanted.set(command, flags);
      }
    const global = (await runCli(["--help"])).stdout;
    const problems: string[] = [];
    await Promise.all(
      [...wanted].map(async ([command, flags]) => {
        const help = await runCli([...command.split(" "), "--help"]);
        if (help.code !== 0 || !help.stdout.startsWith(`Usage: switchyard ${command} `))
          problems.push(`switchyard ${command}: no such command (${help.stderr.trim()})`);
        for (const flag of flags)
          if (!new RegExp(`${flag}\\b`).test(help.stdout) && !new RegExp(`${flag}\\b`).test(global))
            problems.push(`switchyard ${command}: its --help lists no ${flag}`);
      }),
    );
    expect(problems).toEqual([]);
  });

  it("list every command switchyard --help lists", async () => {
    const global = (await runCli(["--help"])).stdout;
    const listed = [...global.split("Commands:")[1]!.matchAll(/^ {2}([a-z][a-z-]*)/gm)]
      .map((match) => match[1]!)
      .filter((command) => command !== "help");
    for (const [file, heading] of [
      ["README.md", "CLI"],
      ["README.zh-CN.md", "命令行"],
      ["docs/cli.md", "Commands"],
      ["docs/zh-CN/cli.md", "命令"],
    ] as const) {
      const named = commandCells(read(file), heading).join(" ");
      expect(
        listed.filter((command) => !named.includes(`switchyard ${command}`)),
        file,
      ).toEqual([]);
    }
  });
});

describe("the code of the READMEs and the docs", () => {
  it("imports from the package only names its entry points export", async () => {
    const problems: string[] = [];
    for (const file of allDocuments()) {
      const code = [...read(file).matchAll(/^```(?:ts|js|mjs)\n([\s\S]*?)^```/gm)]
        .map((m) => m[1]!)
        .join("\n");
      for (const match of code.matchAll(/import \{([^}]*)\} from "(switchyard(?:\/[a-z-]+)?)"/g)) {
        const entry = match[2]!;
        const names = match[1]!
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name && !name.startsWith("type "));
        const exported = await exportsOf(entry);
        for (const name of names) if (!exported.has(name)) problems.push(`${file}: ${name} from ${entry}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("names the root entry's runtime exports, all of them and their number", async () => {
    const root = await runtimeExportsOf("switchyard");
    for (const [file, sentence] of [
      ["docs/library.md", /It exports (\d+)\s+runtime names: ([^.]*)\./],
      ["docs/zh-CN/library.md", /它导出 (\d+) 个运行时名字：([^。]*)。/],
    ] as const) {
      const match = sentence.exec(proseOf(read(file)).replace(/\s+/g, " "))!;
      expect(match, file).not.toBeNull();
      const named = [...match[2]!.matchAll(/`([A-Za-z_]+)`/g)].map((m) => m[1]!);
      expect(Number(match[1]), file).toBe(root.length);
      expect(named.sort(), file).toEqual([...root].sort());
    }
  });
});

/** The runtime names a package entry exports, as a user's script sees them (the built package, by its name). */
async function runtimeExportsOf(specifier: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    NODE,
    ["--input-type=module", "-e", `console.log(JSON.stringify(Object.keys(await import("${specifier}"))))`],
    { cwd: ROOT },
  );
  return JSON.parse(stdout) as string[];
}

/** What an entry exports, runtime names and types: its runtime names and its declaration file's exports. */
const exportsCache = new Map<string, Set<string>>();
async function exportsOf(specifier: string): Promise<Set<string>> {
  let names = exportsCache.get(specifier);
  if (!names) {
    const { exports } = JSON.parse(read("package.json")) as { exports: Record<string, { types: string }> };
    const declarations = read(exports[specifier.replace(/^switchyard/, ".")]!.types);
    const listed = [...declarations.matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((m) =>
      m[1]!.split(",").map((name) =>
        name
          .replace(/^\s*type\s+/, "")
          .split(/\s+as\s+/)
          .pop()!
          .trim(),
      ),
    );
    const declared = [
      ...declarations.matchAll(
        /^export (?:declare )?(?:abstract )?(?:class|function|const|interface|type) (\w+)/gm,
      ),
    ].map((m) => m[1]!);
    names = new Set([...(await runtimeExportsOf(specifier)), ...listed, ...declared]);
    exportsCache.set(specifier, names);
  }
  return names;
}
