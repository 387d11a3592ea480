import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../helpers.js";

// The project's documents as the README tests read them: the two READMEs, the guide pages in docs/
// (each with its Chinese page in docs/zh-CN/) and the reference pages (English only).

/** Pages of docs/ that are reference, not guides: English only, no Chinese page. */
export const REFERENCE_PAGES = ["architecture.md", "conformance.md", "contract.md", "routing.md"];

/** The English guide pages (docs/*.md but the reference pages), by file name. */
export const GUIDE_PAGES = readdirSync(path.join(ROOT, "docs"))
  .filter((file) => file.endsWith(".md") && !REFERENCE_PAGES.includes(file))
  .sort();

/** Every Markdown document, by its path from the repository's root. */
export function allDocuments(): string[] {
  const zh = readdirSync(path.join(ROOT, "docs/zh-CN"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/zh-CN/${file}`);
  const docs = readdirSync(path.join(ROOT, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file}`);
  return ["README.md", "README.zh-CN.md", ...docs, ...zh].sort();
}

export function read(file: string): string {
  return readFileSync(path.join(ROOT, file), "utf8");
}

/** A document without its fenced code blocks (for headings and links, which fences may imitate). */
export function proseOf(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
}

/** The body of one `## ` section of a document (its heading line excluded). */
export function sectionOf(text: string, heading: string): string {
  return (
    text
      .split(new RegExp(`^## ${heading.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"))[1]
      ?.split(/^## /m)[0] ?? ""
  );
}

/** The fenced code blocks of one `## ` section. */
export function codeBlocks(text: string, heading: string): string[] {
  return [...sectionOf(text, heading).matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a document offers: its headings' (with GitHub's -1, -2 for repeats) and `<a id>`s. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of proseOf(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = slugOf(match[1]!);
    const count = seen.get(slug) ?? 0;
    anchors.add(count ? `${slug}-${count}` : slug);
    seen.set(slug, count + 1);
  }
  for (const match of text.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(match[1]!);
  return anchors;
}

/** The relative links of a document's prose: `[text](target)` and `![alt](target)`, not URLs. */
export function relativeLinksOf(text: string): string[] {
  const prose = proseOf(text).replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}
