import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { loadConfigFile } from "../../src/config/index.js";
// @ts-expect-error: a JavaScript fixture without types
import { startRegistryServer } from "../fixtures/registry-server.mjs";
import { NODE, runCli, SDK_SERVER } from "../helpers.js";

// `switchyard search`, `add` and `remove` against a registry written for the tests (v0.1 API on
// 127.0.0.1). Every run sets SWITCHYARD_REGISTRY to it, so nothing can reach the real registry.

interface Registry {
  url: string;
  requests: Array<{ method: string; url: string; authorization?: string }>;
  close(): Promise<void>;
}

const SECRET_DEFAULT = "sk-publisher-example-0000";

const SERVERS = [
  {
    server: {
      name: "io.github.acme/weather",
      description: "Forecasts and alerts",
      version: "1.1.0",
      packages: [
        {
          registryType: "npm",
          identifier: "@acme/weather-mcp",
          version: "1.1.0",
          transport: { type: "stdio" },
        },
      ],
    },
  },
  {
    server: {
      name: "io.github.acme/weather",
      description: "Forecasts and alerts",
      version: "1.2.0",
      packages: [
        {
          registryType: "npm",
          identifier: "@acme/weather-mcp",
          version: "1.2.0",
          transport: { type: "stdio" },
          environmentVariables: [
            { name: "WEATHER_API_KEY", isRequired: true, isSecret: true, default: SECRET_DEFAULT },
            { name: "WEATHER_UNITS", description: "metric or imperial" },
          ],
        },
      ],
    },
  },
  {
    server: {
      name: "io.github.acme/notes",
      description: "Notes in a folder",
      version: "0.3.1",
      packages: [
        {
          registryType: "pypi",
          identifier: "acme-notes-mcp",
          version: "0.3.1",
          transport: { type: "stdio" },
          packageArguments: [{ type: "positional", valueHint: "notes_dir", isRequired: true }],
        },
      ],
    },
  },
  {
    server: {
      name: "io.github.acme/sandbox",
      description: "Runs code in a container",
      version: "2.0.0",
      packages: [
        {
          registryType: "oci",
          identifier: "ghcr.io/acme/sandbox",
          version: "2.0.0",
          transport: { type: "stdio" },
          environmentVariables: [{ name: "SANDBOX_TOKEN", isRequired: true, isSecret: true }],
        },
      ],
    },
  },
  {
    server: {
      name: "com.example/crm",
      description: "The CRM, hosted",
      version: "1.0.0",
      remotes: [
        {
          type: "streamable-http",
          url: "https://crm.example.com/mcp",
          headers: [{ name: "Authorization", value: "Bearer {crm_token}", isRequired: true, isSecret: true }],
        },
      ],
    },
  },
  {
    server: {
      name: "com.example/dotnet-only",
      description: "A NuGet package",
      version: "0.1.0",
      packages: [
        { registryType: "nuget", identifier: "Example.Mcp", version: "0.1.0", transport: { type: "stdio" } },
      ],
    },
  },
  ...["a", "b", "c", "d", "e", "f", "g"].map((letter) => ({
    server: {
      name: `io.github.tools/tool-${letter}`,
      description: `Tool ${letter}`,
      version: "1.0.0",
      remotes: [{ type: "sse", url: `https://tools.example.com/${letter}/sse` }],
    },
  })),
];

let registry: Registry;
let privateRegistry: Registry;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  registry = (await startRegistryServer({ servers: SERVERS, pageSize: 3 })) as Registry;
  privateRegistry = (await startRegistryServer({ servers: SERVERS, token: "team-t0ken" })) as Registry;
});
afterAll(async () => {
  await registry.close();
  await privateRegistry.close();
});
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "switchyard-registry-"));
  env = { SWITCHYARD_REGISTRY: registry.url, XDG_CONFIG_HOME: path.join(dir, "config"), HOME: dir };
  return () => rmSync(dir, { recursive: true, force: true });
});

const cli = (file: string, ...args: string[]) => runCli(["--config", file, ...args], { env, cwd: dir });

const JSONC = `// The team's servers
{
  /* reviewed every quarter */
  "mcpServers": {
    // the local one
    "local": { "command": "node", "args": ["server.mjs"] }, // keep
  },
}
`;

const YAML = `# The team's servers
mcpServers:
  # the local one
  local:
    command: node # keep
    args: [server.mjs]
`;

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe("switchyard search", () => {
  it("lists the servers a registry finds: name, version, how each runs, description", async () => {
    const file = write("switchyard.config.json", JSONC);
    const found = await cli(file, "search", "acme");
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toMatch(
      /io\.github\.acme\/notes\s+0\.3\.1\s+pypi acme-notes-mcp\s+Notes in a folder/,
    );
    expect(found.stdout).toMatch(/io\.github\.acme\/sandbox\s+2\.0\.0\s+oci ghcr\.io\/acme\/sandbox/);
    expect(found.stdout).toMatch(/io\.github\.acme\/weather\s+1\.2\.0\s+npm @acme\/weather-mcp/);
    const remote = await cli(file, "--json", "search", "crm");
    expect(JSON.parse(remote.stdout)).toEqual({
      registry: registry.url,
      servers: [
        {
          name: "com.example/crm",
          version: "1.0.0",
          description: "The CRM, hosted",
          runs: [{ type: "streamable-http", url: "https://crm.example.com/mcp" }],
          status: "active",
        },
      ],
      nextCursor: null,
    });
  });

  it("pages through the registry with its cursors, and continues from the cursor it prints", async () => {
    const file = write("switchyard.config.json", JSONC);
    const first = await cli(file, "--json", "search", "tools", "--limit", "5");
    const page = JSON.parse(first.stdout) as { servers: Array<{ name: string }>; nextCursor: string };
    // Pages of 3: two requests for 5 servers, and a cursor for the rest.
    expect(page.servers.map((server) => server.name)).toEqual(
      ["a", "b", "c", "d", "e"].map((letter) => `io.github.tools/tool-${letter}`),
    );
    expect(page.nextCursor).toEqual(expect.any(String));
    const rest = await cli(file, "--json", "search", "tools", "--cursor", page.nextCursor);
    expect(JSON.parse(rest.stdout).servers.map((server: { name: string }) => server.name)).toEqual([
      "io.github.tools/tool-f",
      "io.github.tools/tool-g",
    ]);
    const text = await cli(file, "search", "tools", "--limit", "2");
    expect(text.stderr).toMatch(/more in http:\/\/127\.0\.0\.1:\d+: switchyard search tools --cursor \S+/);
  });

  it("says a registry that cannot be reached, and which", async () => {
    const file = write("switchyard.config.json", JSONC);
    const closed = (await startRegistryServer({ servers: [] })) as Registry;
    await closed.close();
    const failed = await cli(file, "--json", "search", "weather", "--registry", closed.url);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout).error.code).toBe("REGISTRY_ERROR");
    expect(failed.stderr).toContain(`the registry ${closed.url} cannot be reached (ECONNREFUSED)`);
    expect(failed.stderr).toContain("--registry <url>");
  });
});

describe("switchyard add", () => {
  it("writes an npm server pinned to its version into a JSON config, comments kept, no secret written", async () => {
    const file = write("switchyard.config.json", JSONC);
    const added = await cli(file, "add", "io.github.acme/weather");
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain("added weather (io.github.acme/weather@1.2.0)");
    expect(added.stderr).toContain("set before starting it: WEATHER_API_KEY");
    expect(added.stderr).toContain("optional, not set: WEATHER_UNITS");
    const text = readFileSync(file, "utf8");
    for (const comment of [
      "// The team's servers",
      "/* reviewed every quarter */",
      "// the local one",
      "// keep",
    ])
      expect(text).toContain(comment);
    // The entry before it is left as it was written, on its one line.
    expect(text).toContain('    "local": { "command": "node", "args": ["server.mjs"] }, // keep\n');
    expect(text).not.toContain(SECRET_DEFAULT);
    const weather = (parseJsonc(text) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers
      .weather!;
    expect(weather).toEqual({
      command: "npx",
      args: ["-y", "@acme/weather-mcp@1.2.0"],
      env: { WEATHER_API_KEY: "${WEATHER_API_KEY}" },
      source: {
        registry: registry.url,
        name: "io.github.acme/weather",
        version: "1.2.0",
        package: "npm:@acme/weather-mcp@1.2.0",
        meta: {
          "io.modelcontextprotocol.registry/official": expect.objectContaining({
            publishedAt: "2026-03-01T10:00:00Z",
            isLatest: true,
          }),
        },
      },
    });
    // The file still loads, the entry with its source, once its variable is set.
    const config = loadConfigFile(file, { WEATHER_API_KEY: "k" });
    expect(config.warnings).toEqual([]);
    expect(config.servers.find((server) => server.name === "weather")?.source?.version).toBe("1.2.0");
  });

  it("writes a PyPI server into a YAML config with uvx, comments kept", async () => {
    const file = write("switchyard.config.yaml", YAML);
    const added = await cli(file, "add", "io.github.acme/notes");
    expect(added.code, added.stderr).toBe(0);
    const text = readFileSync(file, "utf8");
    for (const comment of ["# The team's servers", "# the local one", "# keep"])
      expect(text).toContain(comment);
    const notes = (parseYaml(text) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers
      .notes!;
    expect(notes.command).toBe("uvx");
    expect(notes.args).toEqual(["acme-notes-mcp==0.3.1", "${NOTES_DIR}"]);
    expect(notes.source).toMatchObject({ package: "pypi:acme-notes-mcp==0.3.1", version: "0.3.1" });
  });

  it("writes an OCI server as docker run with its tag, and a remote one by URL and transport", async () => {
    const file = write("switchyard.config.json", JSONC);
    expect((await cli(file, "add", "io.github.acme/sandbox")).code).toBe(0);
    const crm = await cli(file, "add", "com.example/crm", "--as", "crm-prod");
    expect(crm.code, crm.stderr).toBe(0);
    const text = readFileSync(file, "utf8");
    const servers = (parseJsonc(text) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers;
    expect(servers.sandbox).toMatchObject({
      command: "docker",
      args: ["run", "-i", "--rm", "-e", "SANDBOX_TOKEN", "ghcr.io/acme/sandbox:2.0.0"],
      env: { SANDBOX_TOKEN: "${SANDBOX_TOKEN}" },
    });
    expect(servers["crm-prod"]).toMatchObject({
      url: "https://crm.example.com/mcp",
      transport: "http",
      headers: { Authorization: "Bearer ${CRM_TOKEN}" },
      source: { name: "com.example/crm", version: "1.0.0", package: "https://crm.example.com/mcp" },
    });
    expect(text).toContain("// the local one");
  });

  it("refuses a name the config already has unless --force, and a version the registry does not have", async () => {
    const file = write("switchyard.config.json", JSONC);
    const taken = await cli(file, "add", "io.github.acme/notes", "--as", "local");
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain('already has a server named "local": pass --as <other name>, or --force');
    expect(readFileSync(file, "utf8")).toBe(JSONC);
    const old = await cli(file, "add", "io.github.acme/weather@1.1.0", "--as", "local", "--force");
    expect(old.code, old.stderr).toBe(0);
    const local = (
      parseJsonc(readFileSync(file, "utf8")) as { mcpServers: Record<string, { args: string[] }> }
    ).mcpServers.local!;
    expect(local.args).toEqual(["-y", "@acme/weather-mcp@1.1.0"]);
    const missing = await cli(file, "add", "io.github.acme/weather@9.9.9");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("server io.github.acme/weather has no version 9.9.9");
    expect(missing.stderr).toContain("its versions are 1.2.0, 1.1.0");
  });

  it("says what to do for a name the registry does not have, and for a server with nothing it can run", async () => {
    const file = write("switchyard.config.json", JSONC);
    const unknown = await cli(file, "--json", "add", "io.github.acme/wether");
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.code).toBe("REGISTRY_ERROR");
    expect(unknown.stderr).toContain(
      `no server named "io.github.acme/wether" in the registry ${registry.url}`,
    );
    expect(unknown.stderr).toContain("switchyard search <words>");
    const nuget = await cli(file, "add", "com.example/dotnet-only");
    expect(nuget.code).toBe(1);
    expect(nuget.stderr).toContain("has nothing Switchyard can run");
    expect(nuget.stderr).toContain("nuget Example.Mcp");
    expect(readFileSync(file, "utf8")).toBe(JSONC);
  });

  it("refuses a server the config's allowlist does not name, before asking the registry", async () => {
    const file = write(
      "switchyard.config.json",
      JSONC.replace('"mcpServers"', '"registries": { "allow": ["io.github.acme/*"] },\n  "mcpServers"'),
    );
    const before = registry.requests.length;
    const refused = await cli(file, "--json", "add", "com.example/crm");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error.code).toBe("POLICY_DENIED");
    expect(refused.stderr).toContain(
      "allows adding only servers named io.github.acme/* (registries.allow), not com.example/crm",
    );
    expect(registry.requests.length).toBe(before);
    expect((await cli(file, "add", "io.github.acme/notes")).code).toBe(0);
  });

  it("asks a private registry with the bearer token the environment gives, never writing the token", async () => {
    const registries = `"registries": { "default": "team", "list": [{ "name": "team", "url": "${privateRegistry.url}", "token": "\${TEAM_REGISTRY_TOKEN}" }] },\n  "mcpServers"`;
    const file = write("switchyard.config.json", JSONC.replace('"mcpServers"', registries));
    // SWITCHYARD_REGISTRY names the public test registry; the config's default is used without it.
    const privateEnv = { ...env, SWITCHYARD_REGISTRY: "team", TEAM_REGISTRY_TOKEN: "team-t0ken" };
    const added = await runCli(["--config", file, "add", "io.github.acme/notes"], {
      env: privateEnv,
      cwd: dir,
    });
    expect(added.code, added.stderr).toBe(0);
    expect(privateRegistry.requests.at(-1)?.authorization).toBe("Bearer team-t0ken");
    expect(readFileSync(file, "utf8")).not.toContain("team-t0ken");
    const wrong = await runCli(["--config", file, "search", "acme"], {
      env: { ...privateEnv, TEAM_REGISTRY_TOKEN: "stale" },
      cwd: dir,
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`the registry ${privateRegistry.url} refused the request (HTTP 401)`);
    const unset = await runCli(["--config", file, "search", "acme"], {
      env: { ...env, SWITCHYARD_REGISTRY: "team" },
      cwd: dir,
    });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain("TEAM_REGISTRY_TOKEN is not set");
    // Other commands load the config without the token.
    // (Its servers do not start here — `local` runs a file that is not there — so only what it says counts.)
    expect((await cli(file, "tools")).stderr).not.toContain("TEAM_REGISTRY_TOKEN");
  });
});

describe("switchyard remove", () => {
  it("takes a server out of a JSON or YAML config, comments kept", async () => {
    const json = write("switchyard.config.json", JSONC);
    expect((await cli(json, "add", "io.github.acme/notes")).code).toBe(0);
    const removed = await cli(json, "remove", "local");
    expect(removed.code, removed.stderr).toBe(0);
    const text = readFileSync(json, "utf8");
    expect(text).toContain("/* reviewed every quarter */");
    expect(Object.keys((parseJsonc(text) as { mcpServers: object }).mcpServers)).toEqual(["notes"]);
    // What belongs to a neighbour stays: its comment above it, and its comment on its line.
    const neighbours = write(
      "neighbours.json",
      '{\n  "mcpServers": {\n    // about a\n    "a": { "command": "x" }, // a\'s\n    // about b\n    "b": { "command": "y" } // b\'s\n  }\n}\n',
    );
    expect((await cli(neighbours, "remove", "a")).code).toBe(0);
    expect(readFileSync(neighbours, "utf8")).toBe(
      '{\n  "mcpServers": {\n    // about b\n    "b": { "command": "y" } // b\'s\n  }\n}\n',
    );
    writeFileSync(
      neighbours,
      '{\n  "mcpServers": {\n    "a": { "command": "x" }, // a\'s\n    // about b\n    "b": { "command": "y" }\n  }\n}\n',
    );
    expect((await cli(neighbours, "remove", "b")).code).toBe(0);
    expect(readFileSync(neighbours, "utf8")).toBe(
      '{\n  "mcpServers": {\n    "a": { "command": "x" } // a\'s\n  }\n}\n',
    );
    const yaml = write(
      "switchyard.config.yaml",
      YAML.replace("mcpServers:", "mcpServers:\n  other: { url: https://x.example/mcp } # hosted"),
    );
    expect((await cli(yaml, "remove", "local")).code).toBe(0);
    const left = readFileSync(yaml, "utf8");
    expect(left).toContain("# The team's servers");
    expect(left).toContain("# hosted");
    expect(Object.keys((parseYaml(left) as { mcpServers: object }).mcpServers)).toEqual(["other"]);
    const unknown = await cli(yaml, "remove", "othre");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no server named "othre"');
    expect(unknown.stderr).toContain("did you mean other?");
  });
});

describe("switchyard servers --wide", () => {
  it("shows where a server added from a registry came from", async () => {
    const file = write(
      "switchyard.config.json",
      JSON.stringify({
        mcpServers: {
          local: {
            command: NODE,
            args: [SDK_SERVER, "--name", "local"],
            source: {
              registry: registry.url,
              name: "io.github.acme/local",
              version: "3.1.4",
              package: "npm:@acme/local@3.1.4",
              meta: { "io.modelcontextprotocol.registry/official": { publishedAt: "2026-03-01T10:00:00Z" } },
            },
          },
        },
      }),
    );
    const wide = await cli(file, "servers", "--wide");
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout).toMatch(/SOURCE/);
    // The table is cut to the terminal's width (120 columns through a pipe): the cell's start shows.
    expect(wide.stdout).toMatch(/\n(local\s.*)\s(io\.github\S*)$/m);
    const { renderServers } = await import("../../src/cli/commands/servers.js");
    const columns = process.stdout.columns;
    process.stdout.columns = 400;
    try {
      const row = { ...JSON.parse((await cli(file, "--json", "servers")).stdout)[0], source: undefined };
      const config = loadConfigFile(file);
      const table = renderServers([{ ...row, source: config.servers[0]!.source }], { wide: true });
      expect(table).toContain(`io.github.acme/local@3.1.4 ${new URL(registry.url).host} 2026-03-01`);
    } finally {
      process.stdout.columns = columns;
    }
    expect((await cli(file, "servers")).stdout).not.toContain("SOURCE");
    const json = JSON.parse((await cli(file, "--json", "servers")).stdout) as Array<{ source?: unknown }>;
    expect(json[0]?.source).toMatchObject({ name: "io.github.acme/local", version: "3.1.4" });
  });
});
