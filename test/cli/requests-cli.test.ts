import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/index.js";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT, runCli } from "../helpers.js";

// The CLI's resources, prompts and attachments are decided by the config's policy for the command's
// identity (--user), refused with POLICY_DENIED and kept in the audit log, as its calls are.

const RESOURCE_SERVER = `${ROOT}test/fixtures/resource-server.mjs`;

let dir: string;
let file: string;
let model: ScriptedOpenAIServer;
const env = () => ({ OPENAI_BASE_URL: model.baseURL, SWITCHYARD_MODEL: "m", OPENAI_API_KEY: "" });
const cli = (args: string[]) => runCli(["--config", file, ...args], { env: env() });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-requests-cli-"));
  file = path.join(dir, "switchyard.config.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { notes: { command: NODE, args: [RESOURCE_SERVER, "--name", "notes"] } },
      policy: {
        default: "allow",
        rules: [{ id: "no-notes", effect: "deny", servers: ["notes"], users: ["alice"] }],
      },
      store: { path: path.join(dir, "runs.db") },
    }),
  );
  model = await startScriptedOpenAIServer([{ content: "the readme says hello" }]);
});

afterAll(async () => {
  await model?.close();
});

describe("resources and prompts on the CLI, under the config's policy", () => {
  it("read, prompt, resources and prompts are refused or filtered for a user the policy denies, and audited", async () => {
    const read = await cli(["--user", "alice", "read", "notes://notes/readme"]);
    expect(read.code).toBe(1);
    expect(read.stdout).toBe("");
    expect(read.stderr).toMatch(/denied to user alice.*rule no-notes/);
    const prompt = await cli(["--user", "alice", "prompt", "notes_greet", '{"who":"Ada"}']);
    expect(prompt.code).toBe(1);
    expect(prompt.stderr).toMatch(/denied to user alice/);
    const listed = await cli(["--user", "alice", "--json", "resources"]);
    expect(JSON.parse(listed.stdout)).toEqual({ resources: [], resourceTemplates: [] });
    const prompts = await cli(["--user", "alice", "--json", "prompts"]);
    expect(JSON.parse(prompts.stdout)).toEqual([]);
    // Another user reads it.
    const allowed = await cli(["--user", "bob", "read", "notes://notes/readme"]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toBe("readme of notes\n");
    // The audit log has each decision, with the request's method.
    const store = await openStore({ path: path.join(dir, "runs.db") });
    try {
      const rows = await store.audit({ limit: 100 });
      const decisions = rows.filter((row) => row.kind === "decision");
      expect(decisions.map((row) => [row.identity?.user, row.method, row.outcome])).toEqual(
        expect.arrayContaining([
          ["alice", "resources/read", "deny"],
          ["alice", "prompts/get", "deny"],
          ["bob", "resources/read", "allow"],
        ]),
      );
    } finally {
      await store.close();
    }
  });

  it("ask --attach reads for the asking user: refused, the run ends before the model is asked", async () => {
    const before = model.requests.length;
    const denied = await cli([
      "--user",
      "alice",
      "ask",
      "what does the readme say?",
      "--attach",
      "notes://notes/readme",
    ]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(
      /the agent stopped \(error\): resources\/read notes:\/\/notes\/readme on server notes is denied to user alice/,
    );
    expect(model.requests.length).toBe(before);
    const answered = await cli([
      "--user",
      "bob",
      "ask",
      "what does the readme say?",
      "--attach",
      "notes://notes/readme",
    ]);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toBe("the readme says hello\n");
    const sent = JSON.stringify(model.requests.at(-1)!.messages);
    expect(sent).toContain("readme of notes");
  });
});
