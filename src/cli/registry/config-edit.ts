// A server entry written into, or taken out of, a config file as the person wrote it: JSON with comments
// through jsonc-parser's edits, YAML through the `yaml` package's Document, so that every comment, the
// indentation and the order of the other keys stay as they were.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { SwitchyardError } from "../../internal.js";

const require = createRequire(import.meta.url);
type JsoncParser = typeof import("jsonc-parser");
type Yaml = typeof import("yaml");

/** The config file being edited: its text, its kind and the key its servers are under. */
export interface EditableConfig {
  file: string;
  yaml: boolean;
  /** `mcpServers` (Claude Desktop, Cursor) or `servers` (VS Code): the one the file uses, else `mcpServers`. */
  section: "mcpServers" | "servers";
  /** The entries' names, in file order. */
  names: string[];
}

/**
 * Read a config file for editing (a file that does not exist yet is an empty config).
 * @throws SwitchyardError `CONFIG_INVALID` when it cannot be parsed: nothing is written then.
 */
export function openConfig(file: string): EditableConfig {
  const yaml = /\.ya?ml$/i.test(file);
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  const data = text.trim() === "" ? {} : parse(file, text, yaml);
  const top = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
  const section = top.mcpServers === undefined && top.servers !== undefined ? "servers" : "mcpServers";
  const entries = top[section];
  const names = typeof entries === "object" && entries !== null ? Object.keys(entries) : [];
  return { file, yaml, section, names };
}

/** Write `entry` as server `name` (replacing one of that name), keeping the rest of the file as it is. */
export function writeEntry(config: EditableConfig, name: string, entry: Record<string, unknown>): void {
  edit(config, name, entry);
}

/** Take server `name` out of the file, keeping the rest of it as it is. */
export function removeEntry(config: EditableConfig, name: string): void {
  edit(config, name, undefined);
}

function edit(config: EditableConfig, name: string, entry: Record<string, unknown> | undefined): void {
  const text = existsSync(config.file) ? readFileSync(config.file, "utf8") : "";
  const path = [config.section, name];
  let next: string;
  if (config.yaml) {
    const { parseDocument } = require("yaml") as Yaml;
    const doc = parseDocument(text);
    if (entry === undefined) doc.deleteIn(path);
    else doc.setIn(path, doc.createNode(entry));
    next = doc.toString();
  } else {
    next = editJsonc(text.trim() === "" ? "{}\n" : text, path, entry);
  }
  writeFileSync(config.file, next);
}

/**
 * One edit of a JSON text, the new value laid out in the file's own indentation and nothing else touched:
 * jsonc-parser's formatting of an edit takes in the whole line it starts on (the entry before it), so
 * the edit is made plain and then only the text it wrote, and the characters either side, are formatted.
 */
function editJsonc(text: string, path: string[], value: unknown): string {
  const { applyEdits, format, modify } = require("jsonc-parser") as JsoncParser;
  const [plain] = modify(text, path, value, {});
  if (!plain) return text;
  if (value === undefined) return removeJsonc(text, path);
  const edits = [plain];
  // A new entry goes after the one before it — and after that one's comment on the same line
  // (`"a": {…}, // why`), which stays with it.
  const trailing = /^([ \t]*)(,?)([ \t]*\/\/[^\r\n]*)/.exec(text.slice(plain.offset));
  if (plain.length === 0 && plain.content.startsWith(",") && trailing) {
    const end = plain.offset + trailing[0].length;
    // On a line of its own: after a line comment, anything on the same line is part of it.
    edits.splice(0, 1, {
      offset: end,
      length: 0,
      content: `${formattingOf(text).eol}${plain.content.slice(1)}`,
    });
    if (!trailing[2]) edits.unshift({ offset: plain.offset, length: 0, content: "," });
  }
  const edited = applyEdits(text, edits);
  const written = edits.at(-1)!;
  const at = written.offset + (edits.length > 1 ? 1 : 0);
  // From the character before it to the one after (the brace of an object that was empty).
  const range = { offset: Math.max(0, at - 1), length: written.content.length + 2 };
  return applyEdits(edited, format(edited, range, { ...formattingOf(text), keepLines: false }));
}

/**
 * A property taken out of a JSON text with what is its own — its line, its comma, its comment on that
 * line, the line comments right above it — and nothing of its neighbours': jsonc-parser's removal runs from the entry before it (taking that
 * one's comment) or to the entry after it (taking the comments above that one).
 */
function removeJsonc(text: string, path: string[]): string {
  const { findNodeAtLocation, parseTree } = require("jsonc-parser") as JsoncParser;
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const property = tree && findNodeAtLocation(tree, path)?.parent;
  const siblings = property?.parent?.children;
  if (!property || !siblings) return text;
  let start = property.offset;
  let end = property.offset + property.length;
  const own = /^[ \t]*(,?)[ \t]*(\/\/[^\r\n]*|\/\*[^\r\n]*?\*\/)?[ \t]*/.exec(text.slice(end))!;
  end += own[0].length;
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  if (/^[ \t]*$/.test(text.slice(lineStart, start)) && /^(\r?\n|$)/.test(text.slice(end))) {
    start = lineStart;
    end += /^\r?\n/.exec(text.slice(end))?.[0].length ?? 0;
    // The line comments right above it (no blank line between) are about it: they go too.
    const above = /(?:^|\n)((?:[ \t]*\/\/[^\r\n]*\r?\n)+)$/.exec(text.slice(0, start));
    if (above) start -= above[1]!.length;
  }
  const index = siblings.indexOf(property);
  const previous = siblings[index - 1];
  let next = text.slice(0, start) + text.slice(end);
  if (index === siblings.length - 1 && previous && !own[1]) {
    // The last entry goes: so does the comma before it, for files that must stay strict JSON.
    const previousEnd = previous.offset + previous.length;
    const comma = /^[ \t]*,/.exec(next.slice(previousEnd));
    if (comma)
      next = next.slice(0, previousEnd + comma[0].length - 1) + next.slice(previousEnd + comma[0].length);
  }
  return next;
}

/** The file's own indentation (tabs, or the width of its first indented line) and line ends. */
function formattingOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  return {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}

function parse(file: string, text: string, yaml: boolean): unknown {
  if (yaml) {
    const { parseDocument } = require("yaml") as Yaml;
    const doc = parseDocument(text);
    if (doc.errors.length)
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `${file} is not valid YAML (${doc.errors[0]!.message}): fix it first; nothing was written`,
      );
    return doc.toJS();
  }
  const { parse: parseJsonc } = require("jsonc-parser") as JsoncParser;
  const errors: import("jsonc-parser").ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length)
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `${file} is not valid JSON at offset ${errors[0]!.offset}: fix it first (switchyard servers says where); nothing was written`,
    );
  return value;
}
