import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { createGateway, type Gateway, type HttpListener, listenHttp } from "../../src/gateway/index.js";
import { type Identity, Switchyard } from "../../src/index.js";
import { NODE, ROOT } from "../helpers.js";
import { type Era, httpClient } from "./fleet.js";

// Skills (the Skills extension) through the gateway: every server's checked skills re-offered under
// URIs that name their server, so two servers' same skill URIs never collide; each read goes to that
// server alone, its bytes matching the digest the entry gives; the policy decides per caller.

const SKILLS_SERVER = `${ROOT}test/fixtures/skills-server.mjs`;
const skillsServer = (name: string) => ({ command: NODE, args: [SKILLS_SERVER, "--name", name] });
const IDENTITIES: Record<string, Identity> = {
  alice: { user: "alice", roles: [] },
  bob: { user: "bob", roles: [] },
};

const SKILL_FILE = z.object({ uri: z.string(), digest: z.string(), size: z.number() });
const SKILL = z.looseObject({
  uri: z.string(),
  frontmatter: z.looseObject({ name: z.string(), description: z.string() }),
  resources: z.array(SKILL_FILE),
});
const LIST = z.looseObject({ skills: z.array(SKILL) });
const GET = z.looseObject({ skill: SKILL });

let yard: Switchyard;
let gateway: Gateway;
let listener: HttpListener;

beforeAll(async () => {
  yard = await Switchyard.connect({
    mcpServers: { docs: skillsServer("docs"), wiki: skillsServer("wiki") },
    policy: {
      default: "allow",
      rules: [{ id: "no-wiki", effect: "deny", servers: ["wiki"], users: ["alice"] }],
    },
  });
  gateway = createGateway(yard, {
    authenticate: (request) => IDENTITIES[request.headers.get("x-test-user") ?? ""],
  });
  listener = await listenHttp(gateway, { port: 0 });
}, 60_000);

afterAll(async () => {
  await listener?.close();
  await gateway?.close();
  await yard?.close();
});

describe.each<Era>(["legacy", "modern"])("skills over the gateway (%s)", (era) => {
  const clients: Client[] = [];
  const as = async (user: string) => {
    const client = await httpClient(listener.url, era, { headers: { "x-test-user": user } });
    clients.push(client);
    return client;
  };
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  it("re-offers each server's checked skills under unique URIs; a read of one is its server's, matching its digest", async () => {
    const bob = await as("bob");
    expect(bob.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/skills"]).toEqual({});
    const { skills } = await bob.request({ method: "skills/list", params: {} }, LIST);
    const uris = skills.map((skill) => skill.uri);
    expect(uris).toContain("switchyard://docs/skill://pdf-processing/SKILL.md");
    expect(uris).toContain("switchyard://wiki/skill://pdf-processing/SKILL.md");
    expect(new Set(uris).size).toBe(uris.length);
    // The oversized skill failed its checks: not re-offered.
    expect(uris.some((uri) => uri.includes("oversized"))).toBe(false);
    const pdf = skills.find((skill) => skill.uri === "switchyard://wiki/skill://pdf-processing/SKILL.md")!;
    expect(pdf.frontmatter.name).toBe("pdf-processing");
    expect(pdf.resources.map((file) => file.uri)).toEqual([
      "switchyard://wiki/skill://pdf-processing/SKILL.md",
      "switchyard://wiki/skill://pdf-processing/references/FORMS.md",
    ]);
    for (const file of pdf.resources) {
      const read = await bob.readResource({ uri: file.uri });
      const text = (read.contents[0] as { text: string }).text;
      const bytes = Buffer.from(text, "utf8");
      expect(bytes.length).toBe(file.size);
      expect(`sha256:${createHash("sha256").update(bytes).digest("hex")}`).toBe(file.digest);
    }
    const skillMd = await bob.readResource({ uri: pdf.uri });
    expect((skillMd.contents[0] as { text: string }).text).toContain("# PDF processing (wiki)");
    const { skill } = await bob.request(
      { method: "skills/get", params: { uri: "switchyard://docs/skill://refunds/SKILL.md" } },
      GET,
    );
    expect(skill.frontmatter.description).toBe("Refunds in general");
  });

  it("refuses a read whose bytes do not match the digest the skill was offered with", async () => {
    const bob = await as("bob");
    const { skills } = await bob.request({ method: "skills/list", params: {} }, LIST);
    const tampered = skills.find((skill) => skill.uri === "switchyard://docs/skill://tampered/SKILL.md")!;
    // The entry itself is sound; its content is not.
    expect(tampered.resources).toHaveLength(1);
    await expect(bob.readResource({ uri: tampered.uri })).rejects.toThrow(
      /skill skill:\/\/tampered\/SKILL.md of server docs was refused: skill:\/\/tampered\/SKILL.md does not match its digest/,
    );
  });

  it("lists each caller only the skills of the servers the policy lets it use", async () => {
    const alice = await as("alice");
    const { skills } = await alice.request({ method: "skills/list", params: {} }, LIST);
    expect(skills.length).toBeGreaterThan(0);
    expect(skills.every((skill) => skill.uri.startsWith("switchyard://docs/"))).toBe(true);
    await expect(
      alice.request(
        { method: "skills/get", params: { uri: "switchyard://wiki/skill://refunds/SKILL.md" } },
        GET,
      ),
    ).rejects.toThrow(/denied/);
  });
});
