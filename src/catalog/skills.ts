import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { DEFAULT_SKILL_MAX_BYTES, DEFAULT_SKILL_MAX_FILES } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import { parseYaml } from "../lazy-require.js";

// The host side of the Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): a server's
// `skills/list` / `skills/get` entries checked, each skill kept as (server, uri) — never by its URI or
// name alone — and its files read lazily, each checked against the entry it was loaded under: size,
// SHA-256 digest, `SKILL.md`'s frontmatter, and no file the entry does not list. The requests
// themselves go through the pipeline; this file only judges what they bring back.

/** One file of a skill as its entry lists it. */
export interface SkillFile {
  uri: string;
  /** `sha256:<64 lowercase hex>` of the file's raw bytes. */
  digest: string;
  /** The file's length in bytes. */
  size: number;
}

/** One skill a server serves, its entry checked. */
export interface SkillEntry {
  /** The server's config key: half of the skill's identity. */
  server: string;
  /** The URI of its `SKILL.md`: the other half. */
  uri: string;
  /** Its name, unique among every server's skills: `<server>/<skill path>` (`docs/acme/refunds`). */
  id: string;
  /** `frontmatter.name`: a label, not unique. */
  name: string;
  description: string;
  /** The frontmatter as the entry has it, verbatim. */
  frontmatter: Record<string, unknown>;
  /** Every file of the skill, `SKILL.md` included. */
  files: SkillFile[];
}

/** A skill loaded: its entry and its `SKILL.md`, verified against it. */
export interface LoadedSkill extends SkillEntry {
  /** The text of `SKILL.md`, frontmatter included. */
  text: string;
}

/** What the shelf asks of servers, through the request pipeline, with the caller's options `O`. */
export interface SkillRequests<O> {
  list(
    server: string,
    cursor: string | undefined,
    options: O,
  ): Promise<{ skills: unknown[]; nextCursor?: string | undefined }>;
  get(server: string, uri: string, options: O): Promise<{ skill: unknown }>;
  /** One resource read on that server: its contents as the server sent them. */
  read(
    server: string,
    uri: string,
    options: O,
  ): Promise<Array<{ uri: string; text?: string; blob?: string }>>;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const SKILL_MD = "/SKILL.md";
/** The Agent Skills naming rule for `name`: lowercase letters, digits and single hyphens, 1–64. */
const SKILL_NAME = /^(?!-)(?!.*--)[a-z0-9-]{1,64}(?<!-)$/;

/** `SKILL_REFUSED` naming the server, the skill and what is wrong. */
export function skillRefused(server: string, uri: string, what: string): SwitchyardError {
  return new SwitchyardError(
    "SKILL_REFUSED",
    `skill ${uri} of server ${server} was refused: ${what}; nothing of it was used (ask the server's owner to fix it, or list the skills again if it changed)`,
    { server, delivery: "final", serverFault: true },
  );
}

/** The skill path of a `SKILL.md` URI: `skill://acme/refunds/SKILL.md` → `acme/refunds`. */
function skillPath(uri: string): string {
  const scheme = uri.indexOf("://");
  return uri.slice(scheme >= 0 ? scheme + 3 : 0, uri.length - SKILL_MD.length);
}

/**
 * Check one entry as a server sent it: its URI names a `SKILL.md` whose last path segment is its
 * name, its frontmatter has `name` and `description`, its `resources` is a complete list of files
 * with digests and sizes (a `"dynamic"` skill offers no integrity and is declined) within the limits.
 * @throws SwitchyardError `SKILL_REFUSED`.
 */
export function checkSkillEntry(server: string, raw: unknown): SkillEntry {
  const entry = (raw ?? {}) as { uri?: unknown; frontmatter?: unknown; resources?: unknown };
  const uri = typeof entry.uri === "string" ? entry.uri : "(no uri)";
  const refuse = (what: string) => skillRefused(server, uri, what);
  if (typeof entry.uri !== "string" || !entry.uri.endsWith(SKILL_MD))
    throw refuse("its entry's uri is not the URI of a SKILL.md");
  const frontmatter = entry.frontmatter as Record<string, unknown> | undefined;
  if (!frontmatter || typeof frontmatter !== "object" || Array.isArray(frontmatter))
    throw refuse("its entry has no frontmatter object");
  const { name, description } = frontmatter;
  if (typeof name !== "string" || !SKILL_NAME.test(name))
    throw refuse(
      `its frontmatter name ${JSON.stringify(name)} is not a skill name (a-z, 0-9 and -, at most 64)`,
    );
  if (typeof description !== "string" || description.trim() === "")
    throw refuse("its frontmatter has no description");
  const path = skillPath(uri);
  if (path.split("/").at(-1) !== name)
    throw refuse(`its URI's last path segment is not its name ${name}, as the extension requires`);
  if (entry.resources === "dynamic")
    throw refuse(
      'its files are "dynamic" (no digests), so they cannot be verified; Switchyard loads only skills it can verify',
    );
  if (!Array.isArray(entry.resources)) throw refuse("its entry has no resources list");
  if (entry.resources.length > DEFAULT_SKILL_MAX_FILES)
    throw refuse(
      `it has ${entry.resources.length} files, more than the ${DEFAULT_SKILL_MAX_FILES} a skill may have`,
    );
  const files: SkillFile[] = [];
  const root = uri.slice(0, uri.length - "SKILL.md".length);
  let total = 0;
  for (const file of entry.resources as Array<Partial<SkillFile>>) {
    if (typeof file?.uri !== "string" || !file.uri.startsWith(root))
      throw refuse(`its file ${JSON.stringify(file?.uri)} is not under the skill's directory ${root}`);
    if (typeof file.digest !== "string" || !DIGEST.test(file.digest))
      throw refuse(`its file ${file.uri} has no sha256:<hex> digest`);
    if (typeof file.size !== "number" || !Number.isSafeInteger(file.size) || file.size < 0)
      throw refuse(`its file ${file.uri} has no size in bytes`);
    if (files.some((seen) => seen.uri === file.uri)) throw refuse(`its file ${file.uri} is listed twice`);
    total += file.size;
    files.push({ uri: file.uri, digest: file.digest, size: file.size });
  }
  if (total > DEFAULT_SKILL_MAX_BYTES)
    throw refuse(
      `its files add up to ${total} bytes, more than the ${DEFAULT_SKILL_MAX_BYTES} (16 MiB) a skill may have`,
    );
  if (!files.some((file) => file.uri === uri)) throw refuse("its resources do not list its SKILL.md");
  return {
    server,
    uri,
    id: `${server}/${path}`,
    name,
    description,
    frontmatter: { ...frontmatter },
    files,
  };
}

/** The raw bytes of one read's contents (text as UTF-8, a blob decoded). */
export function bytesOf(
  contents: Array<{ uri: string; text?: string; blob?: string }>,
  uri: string,
): Buffer | undefined {
  const content =
    contents.find((item) => item.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  if (!content) return undefined;
  if (typeof content.text === "string") return Buffer.from(content.text, "utf8");
  if (typeof content.blob === "string") return Buffer.from(content.blob, "base64");
  return undefined;
}

/**
 * The bytes read for a listed file, checked against its entry: the size first, then the digest.
 * @throws SwitchyardError `SKILL_REFUSED`.
 */
export function verifySkillFile(entry: SkillEntry, file: SkillFile, bytes: Buffer | undefined): string {
  const refuse = (what: string) => skillRefused(entry.server, entry.uri, what);
  if (!bytes) throw refuse(`reading ${file.uri} gave no content`);
  if (bytes.length !== file.size)
    throw refuse(`${file.uri} is ${bytes.length} bytes, but its entry says ${file.size}`);
  const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
  if (digest !== file.digest)
    throw refuse(
      `${file.uri} does not match its digest (read ${digest}, the entry says ${file.digest}): tampered with, or changed since it was listed`,
    );
  return bytes.toString("utf8");
}

/**
 * `SKILL.md`'s YAML frontmatter, compared field by field with the entry's.
 * @throws SwitchyardError `SKILL_REFUSED`.
 */
export function verifyFrontmatter(entry: SkillEntry, text: string): void {
  const refuse = (what: string) => skillRefused(entry.server, entry.uri, what);
  const match = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!match) throw refuse("its SKILL.md does not begin with YAML frontmatter");
  let parsed: unknown;
  try {
    parsed = parseYaml(match[1]!);
  } catch (error) {
    throw refuse(`its SKILL.md frontmatter is not YAML (${(error as Error).message.split("\n")[0]})`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw refuse("its SKILL.md frontmatter is not a mapping");
  const file = parsed as Record<string, unknown>;
  const keys = new Set([...Object.keys(file), ...Object.keys(entry.frontmatter)]);
  for (const key of keys) {
    if (!isDeepStrictEqual(file[key], entry.frontmatter[key]))
      throw refuse(
        `its SKILL.md frontmatter says ${key}: ${JSON.stringify(file[key])}, but its entry says ${JSON.stringify(entry.frontmatter[key])}`,
      );
  }
}

/**
 * The skills of the servers that serve them, each held as the entry it was listed (or got) under:
 * what a loaded skill's files are read against. Nothing is read ahead of need.
 */
export class SkillShelf<O> {
  readonly #requests: SkillRequests<O>;
  /** Held entries by `<server>\n<uri>`. */
  readonly #held = new Map<string, SkillEntry>();

  constructor(requests: SkillRequests<O>) {
    this.#requests = requests;
  }

  /**
   * Every page of one server's `skills/list`, each entry checked: a bad one is left out and its
   * refusal given beside the good ones.
   */
  async list(server: string, options: O): Promise<{ skills: SkillEntry[]; refused: SwitchyardError[] }> {
    const skills: SkillEntry[] = [];
    const refused: SwitchyardError[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await this.#requests.list(server, cursor, options);
      for (const raw of page.skills) {
        try {
          const entry = checkSkillEntry(server, raw);
          this.#held.set(`${server}\n${entry.uri}`, entry);
          skills.push(entry);
        } catch (error) {
          refused.push(error as SwitchyardError);
        }
      }
      cursor = page.nextCursor;
      if (cursor !== undefined && seen.has(cursor)) break; // a server that pages in a circle
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor !== undefined);
    return { skills, refused };
  }

  /**
   * The held entry of a skill, else (or, `fresh`, always) its `skills/get`: a skill a listing left out is
   * still served, and an entry asked for afresh is asked with the caller's options (its identity).
   */
  async entry(server: string, uri: string, options: O, fresh = false): Promise<SkillEntry> {
    const held = fresh ? undefined : this.#held.get(`${server}\n${uri}`);
    if (held) return held;
    const { skill } = await this.#requests.get(server, uri, options);
    const entry = checkSkillEntry(server, skill);
    if (entry.uri !== uri)
      throw skillRefused(server, uri, `skills/get answered with another skill, ${entry.uri}`);
    this.#held.set(`${server}\n${uri}`, entry);
    return entry;
  }

  /**
   * Load a skill: its `SKILL.md` read through the pipeline and verified against the held entry (size,
   * digest, frontmatter).
   * @throws SwitchyardError `SKILL_REFUSED`, or the read's own failure.
   */
  async load(server: string, uri: string, options: O): Promise<LoadedSkill> {
    const entry = await this.entry(server, uri, options);
    const text = await this.#readListed(entry, uri, options);
    verifyFrontmatter(entry, text);
    return { ...entry, text };
  }

  /**
   * One file of a loaded skill, by its path in the skill (`references/FORMS.md`) or its URI: only a
   * file the held entry lists is read, and it is verified against it.
   * @throws SwitchyardError `SKILL_REFUSED` (an unlisted file, a mismatch), or the read's own failure.
   */
  async readFile(server: string, uri: string, file: string, options: O): Promise<string> {
    const entry = await this.entry(server, uri, options);
    const root = uri.slice(0, uri.length - "SKILL.md".length);
    const target = file.includes("://") ? file : new URL(file, root).href;
    return this.#readListed(entry, target, options);
  }

  /** The held entry that lists a file of that server, and the file, if any does. */
  holding(server: string, fileUri: string): { entry: SkillEntry; file: SkillFile } | undefined {
    for (const entry of this.#held.values()) {
      if (entry.server !== server) continue;
      const file = entry.files.find((listed) => listed.uri === fileUri);
      if (file) return { entry, file };
    }
    return undefined;
  }

  async #readListed(entry: SkillEntry, target: string, options: O): Promise<string> {
    const file = entry.files.find((listed) => listed.uri === target);
    if (!file)
      throw skillRefused(
        entry.server,
        entry.uri,
        `${target} is not one of the files its entry lists (${entry.files.map((listed) => listed.uri).join(", ")}), so it is not read`,
      );
    const contents = await this.#requests.read(entry.server, target, options);
    return verifySkillFile(entry, file, bytesOf(contents, target));
  }
}
