import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

// README.zh-CN.md is a translation of README.md kept in step with it: every `switchyard …` command and
// every --flag of one appears in the other, and each links to the other at its top.
const english = readFileSync(path.join(ROOT, "README.md"), "utf8");
const chinese = readFileSync(path.join(ROOT, "README.zh-CN.md"), "utf8");

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

/** The same items in both READMEs: what one has and the other lacks, named by the file that lacks it. */
function expectBothHave(en: Set<string>, zh: Set<string>) {
  expect({
    "missing from README.zh-CN.md": missing(en, zh),
    "missing from README.md": missing(zh, en),
  }).toEqual({
    "missing from README.zh-CN.md": [],
    "missing from README.md": [],
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
