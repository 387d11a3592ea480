import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
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

const models: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(models.splice(0).map((model) => model.close()));
});

describe("switchyard ask with servers that serve skills", () => {
  it("offers the model load_skill with each skill's description, and loads one it asks for", async () => {
    const model = await startScriptedOpenAIServer([
      { toolCalls: [{ id: "1", name: "load_skill", arguments: { skill: "docs/pdf-processing" } }] },
      { content: "filled" },
    ]);
    models.push(model);
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-skills-ask-"));
    const file = path.join(dir, "fleet.json");
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { docs: { command: NODE, args: [SKILLS_SERVER, "--name", "docs"] } },
        model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" },
      }),
    );
    const { code, stdout, stderr } = await runCli(["--config", file, "ask", "Fill in the form."], {
      env: { XDG_CACHE_HOME: path.join(dir, "cache") },
    });
    expect(code).toBe(0);
    expect(stdout).toBe("filled\n");
    // The skills refused when listed are warnings, the run goes on.
    expect(stderr).toContain("warning: skill skill://oversized/SKILL.md of server docs was refused");
    const offered = model.requests[0]!.tools!.find((tool) => tool.function.name === "load_skill");
    expect(offered?.function.description).toContain("- docs/pdf-processing (server docs): Extract, fill");
    const loaded = model.requests[1]!.messages.find((message) => message.role === "tool");
    expect(String(loaded?.content)).toContain("[skill docs/pdf-processing from server docs, served over MCP");
    expect(String(loaded?.content)).toContain("Fill forms as references/FORMS.md says.");
  });
});
