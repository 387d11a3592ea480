import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { NODE, ROOT, runCli } from "../helpers.js";

const SKILLS_SERVER = `${ROOT}test/fixtures/skills-server.mjs`;
const RESOURCE_SERVER = `${ROOT}test/fixtures/resource-server.mjs`;
let config: string;
let env: Record<string, string>;

beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-skills-"));
  config = path.join(dir, "switchyard.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        docs: { command: NODE, args: [SKILLS_SERVER, "--name", "docs"] },
        notes: { command: NODE, args: [RESOURCE_SERVER, "--name", "notes"] },
      },
    }),
  );
  env = { XDG_CACHE_HOME: path.join(dir, "cache") };
});

const cli = (...args: string[]) => runCli(["--config", config, ...args], { env });

describe("switchyard skills", () => {
  it("lists the checked skills with their server, and each refused one on stderr (exit 1)", async () => {
    const listed = await cli("skills");
    expect(listed.code).toBe(1);
    expect(listed.stdout).toMatch(/^SKILL\s+SERVER\s+FILES\s+DESCRIPTION$/m);
    expect(listed.stdout).toMatch(
      /^docs\/pdf-processing\s+docs\s+2\s+Extract, fill, and assemble PDF documents$/m,
    );
    expect(listed.stdout).toMatch(/^docs\/acme\/refunds\s+docs\s+1\s+Refunds the Acme way$/m);
    expect(listed.stdout).not.toContain("oversized");
    expect(listed.stderr).toContain("refused: skill skill://oversized/SKILL.md of server docs was refused");

    const json = await cli("--json", "skills", "--server", "docs");
    const data = JSON.parse(json.stdout) as {
      skills: Array<{ id: string }>;
      refused: Array<{ code: string }>;
    };
    expect(data.skills.map((skill) => skill.id)).toContain("docs/refunds");
    expect(data.refused.map((error) => error.code)).toEqual(["SKILL_REFUSED"]);

    const none = await cli("skills", "--server", "notes");
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("server notes does not serve skills");
  });
});
