import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";
import { GUIDE_PAGES, read } from "./docs-pages.js";

// README.zh-CN.md is a translation of README.md kept in step with it, and each guide page docs/<page>.md
// has its translation docs/zh-CN/<page>.md: every `switchyard …` command and every --flag of one appears
// in the other, they have the same sections, and each links to the other at its top.
const english = read("README.md");
const chinese = read("README.zh-CN.md");

/** The code of a Markdown text: fenced blocks and inline code spans (what a translation keeps as is). */
function codeOf(text: string): string[] {
  const fenced = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
  const inline = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return [...fenced, ...inline];
}

/** Every `switchyard <command>` (and `<command> <subcommand>`) written in code. */
function commandsOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const code of codeOf(text))
    for (const m of code.matchAll(/\bswitchyard ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)) {
      found.add(`switchyard ${m[1]}`);
      if (m[2]) found.add(`switchyard ${m[1]} ${m[2]}`);
    }
  return found;
}

/** Every --flag written anywhere. */
function flagsOf(text: string): Set<string> {
  return new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((m) => m[0]));
}

const missing = (from: Set<string>, to: Set<string>) => [...from].filter((item) => !to.has(item)).sort();

/** The same items in both documents: what one has and the other lacks, named by the file that lacks it. */
function expectBothHave(en: Set<string>, zh: Set<string>, files = ["README.md", "README.zh-CN.md"]) {
  const [enFile, zhFile] = files;
  expect({
    [`missing from ${zhFile}`]: missing(en, zh),
    [`missing from ${enFile}`]: missing(zh, en),
  }).toEqual({
    [`missing from ${zhFile}`]: [],
    [`missing from ${enFile}`]: [],
  });
}

describe("README.zh-CN.md", () => {
  it("names every switchyard command README.md names, and no other", () => {
    const en = commandsOf(english);
    const zh = commandsOf(chinese);
    expect(en.size).toBeGreaterThan(20);
    expectBothHave(en, zh);
  });

  it("gives every --flag README.md gives, and no other", () => {
    const en = flagsOf(english);
    const zh = flagsOf(chinese);
    expect(en.size).toBeGreaterThan(30);
    expectBothHave(en, zh);
  });

  it("has every section of README.md, and each README links to the other at its top", () => {
    const sections = (text: string) => text.split("\n").filter((line) => /^## /.test(line)).length;
    expect(sections(chinese)).toBe(sections(english));
    expect(english.split("\n").slice(0, 4).join("\n")).toContain("(README.zh-CN.md)");
    expect(chinese.split("\n").slice(0, 4).join("\n")).toContain("(README.md)");
  });
});

describe("the Chinese guide pages, docs/zh-CN/", () => {
  const pairs = GUIDE_PAGES.map((page) => [`docs/${page}`, `docs/zh-CN/${page}`] as const);

  it("translate every guide page of docs/, and only those", () => {
    expect(GUIDE_PAGES.length).toBeGreaterThan(8);
    for (const [, zh] of pairs) expect(existsSync(path.join(ROOT, zh)), zh).toBe(true);
  });

  it.each(pairs)("%s and %s name the same switchyard commands and --flags", (en, zh) => {
    expectBothHave(commandsOf(read(en)), commandsOf(read(zh)), [en, zh]);
    expectBothHave(flagsOf(read(en)), flagsOf(read(zh)), [en, zh]);
  });

  it.each(pairs)("%s and %s have the same sections, and link to each other at their top", (en, zh) => {
    const sections = (text: string) => text.split("\n").filter((line) => /^## /.test(line)).length;
    expect(sections(read(zh))).toBe(sections(read(en)));
    expect(read(en).split("\n").slice(0, 4).join("\n")).toContain(`(zh-CN/${path.basename(en)})`);
    expect(read(zh).split("\n").slice(0, 4).join("\n")).toContain(`(../${path.basename(en)})`);
  });

  it("with the READMEs, name more than 20 commands and 30 flags, the same in both languages", () => {
    const all = (files: string[]) => files.map((file) => read(file)).join("\n");
    const en = all(["README.md", ...pairs.map(([page]) => page)]);
    const zh = all(["README.zh-CN.md", ...pairs.map(([, page]) => page)]);
    expect(commandsOf(en).size).toBeGreaterThan(20);
    expect(flagsOf(en).size).toBeGreaterThan(30);
    expectBothHave(commandsOf(en), commandsOf(zh));
    expectBothHave(flagsOf(en), flagsOf(zh));
  });
});
