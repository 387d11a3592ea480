import type { Server, ServerContext } from "@modelcontextprotocol/server";
import * as z from "zod";
import type { ResourceContents } from "../calls/request.js";
import { qualifiedUri, unqualifiedUri } from "../catalog/resources.js";
import { SwitchyardError } from "../errors.js";
import type { SkillEntry, Switchyard } from "../switchyard.js";
import type { Identity } from "../telemetry/audit.js";
import { protocolError } from "./errors.js";
import { serverMeta } from "./meta.js";

/**
 * A skill as the gateway offers it: its URI and every file's made unique across servers
 * (`switchyard://<server>/skill://pdf-processing/SKILL.md`, the last segment still the skill's name),
 * digests and sizes as its server gave them — the bytes a read returns are the server's own.
 */
function offered(entry: SkillEntry) {
  return {
    uri: qualifiedUri(entry.server, entry.uri),
    frontmatter: entry.frontmatter,
    resources: entry.files.map((file) => ({ ...file, uri: qualifiedUri(entry.server, file.uri) })),
    _meta: serverMeta(entry.server),
  };
}

/**
 * A read of a file of a skill the gateway offered (`switchyard://<server>/<uri>`) is checked against
 * the entry it was offered with: content that does not match its digest or size never reaches the host.
 * @throws SwitchyardError `SKILL_REFUSED`.
 */
export function checkSkillRead(yard: Switchyard, asked: string, read: ResourceContents): void {
  const named = unqualifiedUri(asked);
  if (named && named.server === read.server) yard.checkSkillRead(read.server, named.uri, read.contents);
}

/** Listings depend on who asks (the policy): a client may keep one only for itself, and not for long. */
const CACHE = { ttlMs: 0, cacheScope: "private" } as const;

/**
 * `skills/list` and `skills/get` on a gateway server instance: every skill of the fleet that passed its
 * checks, each under a URI that names its server; a skill's files are read with `resources/read` on
 * those URIs, which the gateway routes to that server alone.
 */
export function serveSkills(
  server: Server,
  yard: Switchyard,
  identityOf: (ctx: ServerContext) => Identity,
): void {
  server.setRequestHandler(
    "skills/list",
    { params: z.looseObject({ cursor: z.string().optional() }).optional() },
    async (_params, ctx) => {
      try {
        const { skills } = await yard.skills({ identity: identityOf(ctx), signal: ctx.mcpReq.signal });
        return { skills: skills.map(offered), ...CACHE };
      } catch (error) {
        throw protocolError(error, yard.redactor.text);
      }
    },
  );
  server.setRequestHandler(
    "skills/get",
    { params: z.looseObject({ uri: z.string() }) },
    async (params, ctx) => {
      const named = unqualifiedUri(params.uri);
      try {
        if (!named)
          throw new SwitchyardError(
            "INVALID_INPUT",
            `no skill is served at ${params.uri}: the gateway's skills are switchyard://<server>/<the server's skill URI>`,
          );
        const entry = await yard.skill(named.server, named.uri, {
          identity: identityOf(ctx),
          signal: ctx.mcpReq.signal,
        });
        return { skill: offered(entry), ...CACHE };
      } catch (error) {
        throw protocolError(error, yard.redactor.text);
      }
    },
  );
}
