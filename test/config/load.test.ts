import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findConfigFile, loadConfigFile, resolveConfig } from "../../src/index.js";
import { pendingConfigInputs } from "../../src/internal.js";
import { routerOptionsFromConfig } from "../../src/routing/from-config.js";

function invalid(raw: unknown, env: Record<string, string> = {}) {
  try {
    resolveConfig(raw, { baseDir: "/cfg", env });
  } catch (error) {
    return error as { code: string; message: string; path: string };
  }
  throw new Error("expected the config to be rejected");
}

function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected the file to be refused");
}

describe("config", () => {
  it("takes the audit section: onWriteError, and a key from the environment (too short, or a mode it does not know: refused)", () => {
    const servers = { s: { command: "node" } };
    const key = "0123456789abcdef0123456789abcdef";
    const config = resolveConfig(
      { mcpServers: servers, audit: { onWriteError: "continue", key: "${SWITCHYARD_AUDIT_KEY}" } },
      { env: { SWITCHYARD_AUDIT_KEY: key } },
    );
    expect(config.audit).toEqual({ onWriteError: "continue", key });
    expect(config.substitutions).toContainEqual({ variable: "SWITCHYARD_AUDIT_KEY", value: key });
    expect(invalid({ mcpServers: servers, audit: { onWriteError: "ignore" } })).toMatchObject({
      code: "CONFIG_INVALID",
      path: "audit.onWriteError",
      message: expect.stringContaining('expected "fail" or "continue"'),
    });
    expect(invalid({ mcpServers: servers, audit: { key: "short" } })).toMatchObject({
      code: "CONFIG_INVALID",
      path: "audit.key",
      message: expect.stringContaining("at least 16 characters"),
    });
  });

  it("resolves the Claude Desktop form with defaults and paths against the config folder", () => {
    const config = resolveConfig(
      { mcpServers: { orders: { command: "node", args: ["servers/orders.js"], cwd: "sub" } } },
      { baseDir: "/cfg", env: {} },
    );
    expect(config.servers).toHaveLength(1);
    expect(config.servers[0]).toMatchObject({
      name: "orders",
      transport: "stdio",
      command: "node",
      args: ["servers/orders.js"],
      cwd: "/cfg/sub",
      namespace: "orders",
      timeoutMs: 60_000,
      concurrency: { mode: "adaptive", min: 1, max: 64, initial: 8 },
      disabled: false,
    });
  });

  it("defaults a stdio server's working directory to the config folder and resolves relative commands", () => {
    const config = resolveConfig(
      { mcpServers: { a: { command: "./bin/server.sh" } } },
      { baseDir: "/cfg", env: {} },
    );
    expect(config.servers[0]).toMatchObject({ cwd: "/cfg", command: "/cfg/bin/server.sh" });
  });

  it("accepts the VS Code form with explicit transport types", () => {
    const config = resolveConfig(
      {
        servers: {
          web: { type: "http", url: "http://127.0.0.1:1/mcp" },
          old: { type: "sse", url: "http://127.0.0.1:2/sse" },
          local: { type: "stdio", command: "x" },
        },
      },
      { baseDir: "/cfg", env: {} },
    );
    expect(config.servers.map((s) => [s.name, s.transport, s.transportForced])).toEqual([
      ["web", "http", true],
      ["old", "sse", true],
      ["local", "stdio", true],
    ]);
  });

  it("infers Streamable HTTP with SSE fallback for a bare url", () => {
    const config = resolveConfig({ mcpServers: { s: { url: "http://127.0.0.1:9/mcp" } } }, { env: {} });
    expect(config.servers[0]).toMatchObject({ transport: "http", transportForced: false });
  });

  it("interpolates ${NAME} and ${NAME:-default} everywhere, and $$ as a literal dollar", () => {
    const config = resolveConfig(
      {
        mcpServers: {
          s: {
            url: "http://127.0.0.1:${PORT:-8080}/mcp",
            headers: { Authorization: "Bearer ${TOKEN}", Price: "$$5" },
          },
        },
      },
      { env: { TOKEN: "secret" } },
    );
    expect(config.servers[0]).toMatchObject({
      url: "http://127.0.0.1:8080/mcp",
      headers: { Authorization: "Bearer secret", Price: "$5" },
    });
  });

  it("names an unset variable and where it was used", () => {
    const error = invalid({ mcpServers: { s: { command: "x", env: { DB: "${DB_PATH}" } } } });
    expect(error).toMatchObject({ code: "CONFIG_INVALID", path: "mcpServers.s.env.DB" });
    expect(error.message).toContain("DB_PATH is not set");
  });

  it("reports the JSON path of a bad key and what was expected", () => {
    expect(invalid({ mcpServers: { orders: { command: "node", args: "servers/orders.js" } } }).message).toBe(
      "mcpServers.orders.args: expected an array of strings",
    );
    expect(invalid({ mcpServers: { orders: { command: "node", timeoutMs: -5 } } }).message).toBe(
      "mcpServers.orders.timeoutMs: expected a number above 0",
    );
    expect(invalid({ mcpServers: { orders: { args: [] } } }).message).toBe(
      'mcpServers.orders: expected "command" (a stdio server) or "url" (an HTTP server)',
    );
    expect(invalid({ mcpServers: { w: { url: "not a url" } } }).message).toBe(
      "mcpServers.w.url: expected an http(s) URL",
    );
    expect(invalid({ mcpServers: { w: { command: "x", tools: { allow: "a*" } } } }).path).toBe(
      "mcpServers.w.tools.allow",
    );
    expect(invalid({}).message).toContain("mcpServers");
    expect(invalid([]).code).toBe("CONFIG_INVALID");
  });

  it("warns about unknown keys instead of failing (configs are shared with other hosts)", () => {
    const config = resolveConfig(
      { inputs: [], mcpServers: { a: { command: "x", envFile: ".env", alwaysAllow: [] } } },
      { env: {} },
    );
    expect(config.warnings).toEqual([
      "mcpServers.a.envFile: unknown key, ignored",
      "mcpServers.a.alwaysAllow: unknown key, ignored",
    ]);
  });

  it("loads YAML and JSON files, naming the file in errors", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-config-"));
    writeFileSync(
      path.join(dir, "fleet.yaml"),
      "mcpServers:\n  a:\n    command: node\n    args: [server.js]\n",
    );
    expect(loadConfigFile(path.join(dir, "fleet.yaml")).servers[0]).toMatchObject({
      cwd: dir,
      args: ["server.js"],
    });

    writeFileSync(path.join(dir, "bad.json"), "{ nope");
    expect(() => loadConfigFile(path.join(dir, "bad.json"))).toThrow(/bad\.json is not valid JSON/);
    writeFileSync(path.join(dir, "wrong.json"), JSON.stringify({ mcpServers: { a: { command: 3 } } }));
    expect(() => loadConfigFile(path.join(dir, "wrong.json"))).toThrow(
      "wrong.json: mcpServers.a.command: expected a string (the executable to start)",
    );
    expect(() => loadConfigFile(path.join(dir, "absent.json"))).toThrow(/cannot read config file/);
  });
});

describe("JSON config files", () => {
  it("may have comments and trailing commas, as VS Code and Cursor accept them", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-jsonc-"));
    const text = [
      "// the fleet",
      "{",
      '  "mcpServers": {',
      '    /* a local server */ "orders": { "command": "node", "args": ["orders.mjs", "/* kept */", "// kept",], },',
      '    "search": { "url": "http://127.0.0.1:9/mcp" }, // a comment after a value',
      "  },",
      "}",
      "",
    ].join("\n");
    writeFileSync(path.join(dir, "switchyard.config.json"), text);
    writeFileSync(path.join(dir, "fleet.json"), text);
    for (const file of [findConfigFile(undefined, dir), findConfigFile("fleet.json", dir)]) {
      const config = loadConfigFile(file, {});
      expect(config.servers.map((server) => server.name)).toEqual(["orders", "search"]);
      expect(config.servers[0]!.args).toEqual(["orders.mjs", "/* kept */", "// kept"]);
      expect(config.servers[1]!.url).toBe("http://127.0.0.1:9/mcp");
    }
  });

  it("that are broken are refused with the file, the line and column, and what is wrong", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-jsonc-"));
    const cases: Array<[string, string, string]> = [
      [
        "missing-comma.json",
        '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}\n',
        'line 4, column 5: expected "," before this entry',
      ],
      [
        "single-quotes.json",
        "{ 'mcpServers': {} }",
        "line 1, column 3: expected a property name in double quotes (got \"'mcpServers'\")",
      ],
      ["bad-value.json", '{ "mcpServers": tru }', 'line 1, column 17: expected a value (got "tru")'],
      [
        "open-comment.json",
        '{ "mcpServers": {} }\n/* never closed',
        'line 2, column 1: comment never closed ("/*" without "*/")',
      ],
      ["unclosed.json", '{\r\n  "mcpServers": {}\r\n', 'line 3, column 1: expected "}" to close the object'],
      ["empty.json", "", "line 1, column 1: expected a value"],
    ];
    for (const [name, text, where] of cases) {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      const expected = { code: "CONFIG_INVALID", message: `${file} is not valid JSON at ${where}` };
      expect(refusal(() => loadConfigFile(file, {}))).toMatchObject(expected);
      expect(refusal(() => pendingConfigInputs(file, {}))).toMatchObject(expected);
    }
  });
});

describe("the routing section", () => {
  it("accepts the router's options and names a bad one", () => {
    const config = resolveConfig(
      {
        mcpServers: { a: { command: "x" } },
        routing: { topK: 5, pinned: ["a_echo"], strategy: "two-stage" },
      },
      { env: {} },
    );
    expect(config.routing).toEqual({ topK: 5, pinned: ["a_echo"], strategy: "two-stage" });
    expect(routerOptionsFromConfig(config.routing)).toMatchObject({ topK: 5, pinned: ["a_echo"] });
    expect(invalid({ mcpServers: {}, routing: { strategy: "magic" } }).path).toBe("routing.strategy");
    expect(() => routerOptionsFromConfig({ strategy: "hybrid" })).toThrow(/embeddings/);
  });

  it("tells a misspelt strategy or mode the one it most likely meant", () => {
    expect(invalid({ mcpServers: {}, routing: { strategy: "lexcial" } })).toMatchObject({
      path: "routing.strategy",
      message: expect.stringMatching(
        /^routing\.strategy: expected "lexical", .* \(did you mean lexical\?\)$/,
      ),
    });
    expect(invalid({ mcpServers: {}, routing: { mode: "serach" } }).message).toContain(
      "(did you mean search?)",
    );
    expect(invalid({ mcpServers: {}, routing: { strategy: "magic" } }).message).not.toContain("did you mean");
  });

  it("tells a mistyped key inside a section the key it most likely meant, at any depth", () => {
    for (const [config, path, meant] of [
      [{ routing: { topk: 5 } }, "routing.topk", "topK"],
      [{ agent: { maxStep: 3 } }, "agent.maxStep", "maxSteps"],
      [{ model: { baseUrl: "http://127.0.0.1:1/v1" } }, "model.baseUrl", "baseURL"],
      [{ routing: { hints: [{ when: "x", tools: ["a"], tool: 1 }] } }, "routing.hints.0.tool", "tools"],
      [{ gateway: { mod: "search" } }, "gateway.mod", "mode"],
    ] as const)
      expect(invalid({ mcpServers: {}, ...config }), path).toMatchObject({
        path,
        message: expect.stringContaining(`${path}: unknown key (did you mean ${meant}?)`),
      });
    // A server without "command" or "url" says which of its keys was likely meant for one.
    expect(invalid({ mcpServers: { a: { comand: "node" } } }).message).toBe(
      'mcpServers.a: expected "command" (a stdio server) or "url" (an HTTP server); mcpServers.a.comand: unknown key, ignored (did you mean command?)',
    );
    // Nothing close: the keys there are listed.
    expect(invalid({ mcpServers: {}, routing: { zzqq: 1 } }).message).toMatch(
      /^routing\.zzqq: unknown key \(the keys here: .*topK.*\)$/,
    );
  });

  it("names the file and the key when embedding or hybrid has no embeddings", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-routing-"));
    const file = path.join(dir, "fleet.json");
    writeFileSync(file, JSON.stringify({ mcpServers: {}, routing: { strategy: "hybrid" } }));
    expect(() => loadConfigFile(file, {})).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        path: "routing.embeddings",
        message: expect.stringMatching(
          /^fleet\.json: routing\.embeddings: routing\.strategy "hybrid" ranks with embeddings: add "embeddings"/,
        ),
      }),
    );
    expect(
      resolveConfig({ mcpServers: {}, routing: { strategy: "two-stage" } }, { env: {} }).routing,
    ).toEqual({ strategy: "two-stage" });
  });
});

describe("the registries section", () => {
  it("is kept as written, its token unfilled, so a variable unset where nobody adds servers does not stop the config", async () => {
    const { chooseRegistry, registryToken, DEFAULT_REGISTRY_URL } = await import("../../src/internal.js");
    const registries = {
      default: "team",
      list: [{ name: "team", url: "https://mcp.acme.internal", token: "${TEAM_TOKEN}" }],
      allow: ["io.github.acme/*"],
    };
    const config = resolveConfig({ mcpServers: {}, registries }, { baseDir: "/cfg", env: {} });
    expect(config.registries).toEqual(registries);
    expect(config.warnings).toEqual([]);
    const team = chooseRegistry(config.registries);
    expect(team.url).toBe("https://mcp.acme.internal");
    expect(registryToken(team.entry, { TEAM_TOKEN: "t" })).toBe("t");
    expect(() => registryToken(team.entry, {})).toThrow(/TEAM_TOKEN is not set/);
    // A URL given for a listed registry brings its token; no section: the official registry.
    expect(chooseRegistry(config.registries, "https://mcp.acme.internal/").entry?.name).toBe("team");
    expect(chooseRegistry(undefined)).toEqual({ url: DEFAULT_REGISTRY_URL });
    expect(() => chooseRegistry(config.registries, "tema")).toThrow(
      /no registry named "tema": the config lists team/,
    );
    expect(invalid({ mcpServers: {}, registries: { list: [{ name: "x", url: "ftp://x" }] } }).path).toBe(
      "registries.list.0.url",
    );
    expect(invalid({ mcpServers: { s: { command: "x", source: { name: "a/b" } } } }).path).toBe(
      "mcpServers.s.source.registry",
    );
  });
});
