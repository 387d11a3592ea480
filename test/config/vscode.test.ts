import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { inputVariable, loadConfigFile, pendingConfigInputs, resolveConfig } from "../../src/internal.js";

function rejection(run: () => unknown): { code: string; message: string; path?: string } {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string; path?: string };
  }
  throw new Error("expected the config to be rejected");
}

describe("VS Code's config variables", () => {
  it("fills ${env:NAME}, ${workspaceFolder} (the folder above .vscode) and ${userHome}", () => {
    const workspace = mkdtempSync(path.join(tmpdir(), "switchyard-vscode-"));
    mkdirSync(path.join(workspace, ".vscode"));
    const file = path.join(workspace, ".vscode", "mcp.json");
    writeFileSync(
      file,
      JSON.stringify({
        servers: {
          fs: {
            type: "stdio",
            command: "node",
            args: ["${workspaceFolder}/server.mjs", "${workspaceFolderBasename}", "${userHome}"],
            env: { TOKEN: "${env:MY_TOKEN}", PLAIN: "${MY_TOKEN}" },
          },
        },
      }),
    );
    const [server] = loadConfigFile(file, { MY_TOKEN: "t0k" }).servers;
    expect(server!.args).toEqual([`${workspace}/server.mjs`, path.basename(workspace), homedir()]);
    expect(server!.env).toEqual({ TOKEN: "t0k", PLAIN: "t0k" });
  });

  it("names an unset ${env:NAME} and refuses variables it cannot know", () => {
    const unset = rejection(() =>
      resolveConfig({ servers: { a: { command: "x", env: { K: "${env:NOPE}" } } } }, { env: {} }),
    );
    expect(unset).toMatchObject({ code: "CONFIG_INVALID", path: "servers.a.env.K" });
    expect(unset.message).toContain("NOPE is not set");
    const unknown = rejection(() =>
      resolveConfig({ servers: { a: { command: "x", args: ["${command:pickFile}"] } } }, { env: {} }),
    );
    expect(unknown.message).toMatch(/\$\{command:pickFile\} is not a variable Switchyard can fill/);
  });

  it("answers ${input:id} from given values, SWITCHYARD_INPUT_<ID>, or the input's default — else says how", () => {
    const raw = {
      inputs: [
        { type: "promptString", id: "api-key", description: "The search API key", password: true },
        { type: "promptString", id: "region", description: "Region", default: "eu" },
      ],
      servers: {
        search: {
          type: "http",
          url: "https://search.example/mcp",
          headers: { Authorization: "Bearer ${input:api-key}" },
        },
        geo: { command: "geo", args: ["--region", "${input:region}"] },
      },
    };
    expect(inputVariable("api-key")).toBe("SWITCHYARD_INPUT_API_KEY");
    const given = resolveConfig(raw, { env: {}, inputs: { "api-key": "k1" } });
    expect(given.servers[0]!.headers).toEqual({ Authorization: "Bearer k1" });
    expect(given.servers[1]!.args).toEqual(["--region", "eu"]);
    expect(given.warnings).toEqual([]);
    const fromEnv = resolveConfig(raw, { env: { SWITCHYARD_INPUT_API_KEY: "k2" } });
    expect(fromEnv.servers[0]!.headers).toEqual({ Authorization: "Bearer k2" });

    const missing = rejection(() => resolveConfig(raw, { env: {} }));
    expect(missing.code).toBe("CONFIG_INVALID");
    expect(missing.message).toContain('input "api-key" (The search API key) has no value');
    expect(missing.message).toContain("SWITCHYARD_INPUT_API_KEY");
    const undeclared = rejection(() =>
      resolveConfig({ servers: { a: { command: "x", args: ["${input:who}"] } } }, { env: {} }),
    );
    expect(undeclared.message).toMatch(/does not declare/);
  });

  it("lists the inputs a file still needs, for a program to ask the user", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-inputs-"));
    const file = path.join(dir, "mcp.json");
    writeFileSync(
      file,
      JSON.stringify({
        inputs: [
          { type: "promptString", id: "token", description: "Token", password: true },
          { type: "promptString", id: "region", default: "eu" },
        ],
        servers: { a: { command: "x", args: ["${input:token}", "${input:region}", "${input:token}"] } },
      }),
    );
    expect(pendingConfigInputs(file, {})).toEqual([{ id: "token", description: "Token", password: true }]);
    expect(pendingConfigInputs(file, { SWITCHYARD_INPUT_TOKEN: "x" })).toEqual([]);
    expect(loadConfigFile(file, {}, { inputs: { token: "t" } }).servers[0]!.args).toEqual(["t", "eu", "t"]);
  });
});

describe("VS Code's .vscode/mcp.json", () => {
  it("is read as VS Code reads it: comments and trailing commas allowed", () => {
    const workspace = mkdtempSync(path.join(tmpdir(), "switchyard-vscode-"));
    mkdirSync(path.join(workspace, ".vscode"));
    const file = path.join(workspace, ".vscode", "mcp.json");
    writeFileSync(
      file,
      `{
  // Inputs are asked for once and kept by VS Code.
  "inputs": [
    { "type": "promptString", "id": "token", "description": "Token", "password": true },
  ],
  "servers": {
    "fs": {
      "type": "stdio",
      "command": "node",
      "args": ["\${workspaceFolder}/server.mjs", "--token", "\${input:token}",], /* trailing commas */
    },
    // "old": { "command": "old", "args": ["\${input:retired}"] },
  },
}
`,
    );
    expect(pendingConfigInputs(file, {})).toEqual([{ id: "token", description: "Token", password: true }]);
    const [server] = loadConfigFile(file, {}, { inputs: { token: "t0k" } }).servers;
    expect(server).toMatchObject({ name: "fs", args: [`${workspace}/server.mjs`, "--token", "t0k"] });
  });
});

describe("config typos", () => {
  it("suggest the key that was meant", () => {
    const config = resolveConfig(
      {
        mcpServers: { a: { comand: "x", command: "x", arg: [], timeout: 5, Env: {} } },
        mcpservers: {},
      },
      { env: {} },
    );
    expect(config.warnings).toEqual([
      "mcpservers: unknown key, ignored (did you mean mcpServers?)",
      "mcpServers.a.comand: unknown key, ignored (did you mean command?)",
      "mcpServers.a.arg: unknown key, ignored (did you mean args?)",
      "mcpServers.a.timeout: unknown key, ignored (did you mean timeoutMs?)",
      "mcpServers.a.Env: unknown key, ignored (did you mean env?)",
    ]);
  });
});
