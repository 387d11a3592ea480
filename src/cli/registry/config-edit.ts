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
  const [edit] = modify(text, path, value, {});
  if (!edit) return text;
  const edited = applyEdits(text, [edit]);
  if (edit.content === "") return edited;
  // From the character before it to the one after (the brace of an object that was empty).
  const range = { offset: Math.max(0, edit.offset - 1), length: edit.content.length + 2 };
  return applyEdits(edited, format(edited, range, { ...formattingOf(text), keepLines: false }));
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
