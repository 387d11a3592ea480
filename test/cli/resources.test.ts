import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING, NODE, ROOT, runCli } from "../helpers.js";

const RESOURCE_SERVER = `${ROOT}test/fixtures/resource-server.mjs`;
let config: string;
let env: Record<string, string>;

beforeAll(() => {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-resources-"));
  config = path.join(dir, "switchyard.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        one: { command: NODE, args: [RESOURCE_SERVER, "--name", "one"] },
        two: { command: NODE, args: [RESOURCE_SERVER, "--name", "two"] },
        everything: { command: NODE, args: [EVERYTHING, "stdio"] },
      },
    }),
  );
  env = { XDG_CACHE_HOME: path.join(dir, "cache") };
});

const cli = (...args: string[]) => runCli(["--config", config, ...args], { env });

describe("switchyard resources, read, prompts, prompt", () => {
  it("resources lists every server's resources and templates; --server keeps one", async () => {
    const all = await cli("resources");
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^URI\s+SERVER\s+TYPE\s+DESCRIPTION$/m);
    expect(all.stdout).toMatch(/^notes:\/\/one\/readme\s+one\s+text\/plain\s+The readme of one$/m);
    expect(all.stdout).toMatch(/^shared:\/\/readme\s+two\s/m);
    expect(all.stdout).toMatch(
      /^demo:\/\/resource\/dynamic\/text\/\{resourceId\}\s+everything\s.*\(template\)/m,
    );

    const one = await cli("--json", "resources", "--server", "one");
    expect(one.code).toBe(0);
    const listed = JSON.parse(one.stdout) as {
      resources: Array<{ server: string }>;
      resourceTemplates: unknown[];
    };
    expect(new Set(listed.resources.map((entry) => entry.server))).toEqual(new Set(["one"]));
    expect(listed.resourceTemplates).toHaveLength(1);

    const unknown = await cli("resources", "--server", "onee");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("did you mean one");
  });

  it("read prints a text, describes a blob, and --json has the contents", async () => {
    const text = await cli("read", "notes://two/readme");
    expect(text).toMatchObject({ code: 0, stdout: "readme of two\n" });

    const blob = await cli("read", "notes://one/logo", "--server", "one");
    expect(blob.code).toBe(0);
    expect(blob.stdout).toBe("");
    expect(blob.stderr).toContain("binary content (image/png, 9 bytes) from server one");

    const json = await cli("--json", "read", "demo://resource/dynamic/text/3");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      server: "everything",
      uri: "demo://resource/dynamic/text/3",
      contents: [{ uri: "demo://resource/dynamic/text/3" }],
    });
  });

  it("read: exit 2 for an unknown or ambiguous URI, 1 for a read that fails", async () => {
    const unknown = await cli("read", "notes://one/readm");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("did you mean notes://one/readme");
    const ambiguous = await cli("read", "shared://readme");
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("servers one, two");
    const chosen = await cli("read", "shared://readme", "--server", "one");
    expect(chosen).toMatchObject({ code: 0, stdout: "shared readme from one\n" });
    const notThere = await cli("read", "notes://one/nothing-here", "--server", "one");
    expect(notThere.code).toBe(2);
    expect(notThere.stderr).toContain("server one has no resource notes://one/nothing-here");
    const failed = await cli("read", "notes://one/broken");
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^switchyard: .*notes:\/\/one\/broken.*the disk is on fire/m);
  });

  it("prompts lists them with their arguments; prompt prints the messages", async () => {
    const list = await cli("prompts");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^one_greet\s+one\s+who, mood\?\s+Greet someone$/m);
    expect(list.stdout).toMatch(/^everything_args-prompt\s+everything\s+city, state\?/m);

    const prompt = await cli("prompt", "one_greet", '{"who":"Ada"}');
    expect(prompt).toMatchObject({ code: 0, stdout: "user: Say hello to Ada\n" });
    const json = await cli("--json", "prompt", "two_greet", '{"who":"Bo","mood":"loudly"}');
    expect(JSON.parse(json.stdout)).toMatchObject({
      name: "two_greet",
      server: "two",
      messages: [{ role: "user", content: { type: "text", text: "Say hello to Bo, loudly" } }],
    });

    const unknown = await cli("prompt", "one_gret");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("did you mean one_greet");
    const missing = await cli("prompt", "one_greet");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("needs who");
  });
});
