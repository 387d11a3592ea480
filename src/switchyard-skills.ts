import type {
  RequestInput,
  RequestOptions,
  RequestOutcome,
  RequestResult,
  RequestResults,
} from "./calls/request.js";
import type { ServerInfo } from "./calls/server.js";
import { bytesOf, type LoadedSkill, type SkillEntry, SkillShelf, verifySkillFile } from "./catalog/skills.js";
import { isSwitchyardError, SwitchyardError } from "./errors.js";

export type { LoadedSkill, SkillEntry, SkillFile } from "./catalog/skills.js";

/** What `skills()` found: the skills that passed their checks, and every refusal (a bad entry, a server's failure). */
export interface SkillListing {
  skills: SkillEntry[];
  /** `SKILL_REFUSED` for an entry that failed its checks; a server's own failure to list as it came. */
  refused: SwitchyardError[];
}

/** Options of the skill methods: a request's, and which server (for `skills`: only that one). */
export interface SkillOptions extends RequestOptions {
  server?: string;
}

type Run = (input: RequestInput) => Promise<RequestOutcome<RequestResult>>;

async function unwrap<K extends "skills" | "skill" | "resource">(
  _kind: K,
  outcome: Promise<RequestOutcome<RequestResult>>,
): Promise<RequestResults[K]> {
  const done = await outcome;
  if (!done.ok) throw done.error;
  return done.result as RequestResults[K];
}

/**
 * The facade's skills: a {@link SkillShelf} whose `skills/list`, `skills/get` and file reads are
 * requests of the pipeline (policy, guard, records), each with the caller's options.
 */
export class FacadeSkills {
  readonly #shelf: SkillShelf<RequestOptions>;
  readonly #servers: () => ServerInfo[];

  constructor(run: Run, servers: () => ServerInfo[]) {
    this.#servers = servers;
    this.#shelf = new SkillShelf<RequestOptions>({
      list: (server, cursor, options) =>
        unwrap(
          "skills",
          run({ ...options, kind: "skills", server, ...(cursor !== undefined ? { cursor } : {}) }),
        ),
      get: (server, uri, options) => unwrap("skill", run({ ...options, kind: "skill", server, uri })),
      read: async (server, uri, options) =>
        (await unwrap("resource", run({ ...options, kind: "resource", uri, server }))).contents as Array<{
          uri: string;
          text?: string;
          blob?: string;
        }>,
    });
  }

  /** Every skill of every ready server that declared the extension (or of `options.server`). */
  async list(options: SkillOptions): Promise<SkillListing> {
    const { server: only, ...request } = options;
    const servers = this.#servers().filter(
      (info) => info.skills === true && (only === undefined || info.name === only),
    );
    if (only !== undefined && servers.length === 0) {
      const info = this.#servers().find((candidate) => candidate.name === only);
      throw new SwitchyardError(
        info ? "CAPABILITY_MISSING" : "INVALID_INPUT",
        info
          ? `server ${only} does not serve skills (it did not declare io.modelcontextprotocol/skills${info.status === "ready" ? "" : `; it is ${info.status}`})`
          : `no server named ${only}`,
        info ? { server: only, capability: "io.modelcontextprotocol/skills" } : {},
      );
    }
    const listed = await Promise.all(
      servers.map(async (info) => {
        try {
          return await this.#shelf.list(info.name, request);
        } catch (error) {
          if (!isSwitchyardError(error)) throw error;
          return { skills: [], refused: [error] };
        }
      }),
    );
    return {
      skills: listed.flatMap((one) => one.skills),
      refused: listed.flatMap((one) => one.refused),
    };
  }

  entry(server: string, uri: string, options: RequestOptions): Promise<SkillEntry> {
    return this.#shelf.entry(server, uri, options, true);
  }

  /**
   * Check what a plain read of a file of a held skill gave (the gateway's reads): its size and digest
   * against the entry. A URI no held entry lists is not checked.
   * @throws SwitchyardError `SKILL_REFUSED`.
   */
  checkRead(
    server: string,
    uri: string,
    contents: Array<{ uri: string; text?: string; blob?: string }>,
  ): void {
    const held = this.#shelf.holding(server, uri);
    if (held) verifySkillFile(held.entry, held.file, bytesOf(contents, uri));
  }

  load(server: string, uri: string, options: RequestOptions): Promise<LoadedSkill> {
    return this.#shelf.load(server, uri, options);
  }

  readFile(server: string, uri: string, file: string, options: RequestOptions): Promise<string> {
    return this.#shelf.readFile(server, uri, file, options);
  }
}
