import { lstatSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// A policy's `under` asks where a server will open a path, and the server resolves it, not us: `~`
// against its home, a relative path against its working folder, a symbolic link to wherever it points.
// So a path counts as under a folder only when that can be shown here; what cannot be shown is refused
// with the reason, whatever the rule's effect, rather than guessed either way.

/** Whether a path is under a folder: yes, no, or why that cannot be told (refused) and what to do. */
export type PathVerdict = boolean | { unknown: string };

/** Where a server resolves the paths it is given, as far as its config says. */
export interface PathContext {
  /** The server's name, for the reasons. */
  server: string;
  /** The folder its relative paths are resolved against: its `cwd`, when the entry sets one for a stdio server. */
  cwd?: string | undefined;
}

/** Links followed before giving up (Linux's own limit, `ELOOP`). */
const MAX_LINK_HOPS = 40;

/**
 * Whether a tool's path argument stays under one of the folders (absolute, resolved): absent is no;
 * a value that is not a string, holds a NUL byte, starts with `~` (`~`, `~/x`, `~user/x`: a home
 * folder), is a URL other than `file:`, or is relative while the server's working folder is unknown
 * cannot be told. A relative path is taken from the server's `cwd`; `.` and `..` are resolved (with `\`
 * read as `/` too: either reading must stay under); then the path and the folder are followed through
 * the symbolic links that exist on this machine (for a path not there yet, its deepest existing
 * folder), and both the path as written and where it leads must be under the folder.
 */
export function pathUnder(value: unknown, roots: readonly string[], context: PathContext): PathVerdict {
  if (value === undefined) return false;
  const folders = roots.join(", ");
  if (typeof value !== "string")
    return unknown(`is not a string but ${describeValue(value)}; send one path under ${folders}`);
  const shown = JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);
  if (value.includes("\0")) return unknown(`${shown} holds a NUL byte`);
  let given = value;
  if (/^~/.test(given))
    return unknown(
      `${shown} starts with ~, which the server reads as a home folder; send the absolute path under ${folders}`,
    );
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(given)?.[1];
  if (scheme?.toLowerCase() === "file") {
    try {
      given = fileURLToPath(given);
    } catch (error) {
      return unknown(`${shown} is not a file URL of this machine (${(error as Error).message})`);
    }
  } else if (scheme !== undefined) {
    return unknown(`${shown} is a ${scheme}: URL, not a path; send a path under ${folders}`);
  }
  const readings = given.includes("\\") ? [given, given.replaceAll("\\", "/")] : [given];
  const absolute: string[] = [];
  for (const reading of readings) {
    if (path.isAbsolute(reading)) absolute.push(path.resolve(reading));
    else if (context.cwd !== undefined) absolute.push(path.resolve(context.cwd, reading));
    else
      return unknown(
        `${shown} is a relative path, and server ${context.server} has no "cwd" in its config to resolve it against; send the absolute path under ${folders}, or set servers.${context.server}.cwd to a folder under it`,
      );
  }
  let verdict: PathVerdict = false;
  for (const root of roots) {
    const here = underRoot(absolute, root);
    if (here === true) return true;
    if (here !== false) verdict = here;
  }
  if (verdict !== false) return unknown(`${shown}: ${verdict.unknown}`);
  return false;
}

/** Every reading of the path under one folder, as written and where its links lead. */
function underRoot(readings: readonly string[], root: string): PathVerdict {
  const realRoot = realPathOf(root);
  if (typeof realRoot !== "string") return realRoot;
  for (const reading of readings) {
    if (!isInside(reading, root)) return false;
    const real = realPathOf(reading);
    if (typeof real !== "string") return real;
    if (!isInside(real, realRoot)) return false;
  }
  return true;
}

/**
 * Where a path leads on this machine: its real path; for one not there yet, its deepest existing
 * folder's real path and the rest; a dangling link followed to what it names.
 */
function realPathOf(given: string, hops = 0): string | { unknown: string } {
  let stat: Stats | undefined;
  try {
    // No exception for a name not there: a path under a folder that does not exist yet walks up cheaply.
    stat = lstatSync(given, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOTDIR") return unreadable(given, error);
  }
  if (stat) {
    try {
      return realpathSync.native(given);
    } catch (error) {
      // A dangling link is followed below, to what it names; anything else cannot be read here.
      if (!stat.isSymbolicLink() || (error as NodeJS.ErrnoException).code !== "ENOENT")
        return unreadable(given, error);
    }
  }
  const parent = path.dirname(given);
  if (parent === given) return given;
  const realParent = realPathOf(parent, hops);
  if (typeof realParent !== "string") return realParent;
  const here = path.join(realParent, path.basename(given));
  if (!stat?.isSymbolicLink()) return here;
  if (hops >= MAX_LINK_HOPS) return { unknown: `${given} goes through more than ${MAX_LINK_HOPS} links` };
  let link: string;
  try {
    link = readlinkSync(here);
  } catch (error) {
    return unreadable(given, error);
  }
  return realPathOf(path.resolve(realParent, link), hops + 1);
}

function unreadable(given: string, error: unknown): { unknown: string } {
  return {
    unknown: `where ${given} leads cannot be read here (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
  };
}

/** Whether an absolute, resolved path is the folder or inside it. */
export function isInside(resolved: string, root: string): boolean {
  const relative = path.relative(root, resolved);
  return (
    relative === "" ||
    (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

function unknown(reason: string): { unknown: string } {
  return { unknown: reason };
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return `a ${typeof value}`;
}
