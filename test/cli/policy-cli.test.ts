import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { CLI, NODE, ROOT, runCli } from "../helpers.js";

const CATALOG_SERVER = `${ROOT}test/fixtures/catalog-server.mjs`;
const ARGS = { type: "object", properties: { path: { type: "string" } } };
const TOOLS = {
  files: [{ name: "read_file", annotations: { readOnlyHint: true } }, { name: "write_file" }],
  ops: [
    { name: "status", annotations: { readOnlyHint: true } },
    { name: "deploy", annotations: { destructiveHint: true } },
    { name: "restart_service", annotations: { destructiveHint: true } },
  ],
};
const RULES = [
  { id: "admins", effect: "allow", roles: ["admin"] },
  { id: "no-destructive", effect: "deny", tags: ["destructive"], reason: "destructive tools are for admins" },
  {
    id: "data-only",
    effect: "allow",
    tools: ["files_read_file"],
    arguments: { path: { under: "/srv/data" } },
  },
  { id: "reads", effect: "allow", tags: ["read-only"], roles: ["support"], servers: ["ops"] },
];

let dir: string;
let env: Record<string, string>;

/** A config file with two catalog servers and a policy. */
function configFile(name: string, extra: Record<string, unknown>): string {
  const mcpServers: Record<string, unknown> = {};
  for (const [server, tools] of Object.entries(TOOLS)) {
    const catalog = path.join(dir, `${server}.json`);
    writeFileSync(
      catalog,
      JSON.stringify(tools.map((tool) => ({ ...tool, description: `${tool.name}.`, inputSchema: ARGS }))),
    );
    mcpServers[server] = { command: NODE, args: [CATALOG_SERVER, "--catalog", catalog] };
  }
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers, ...extra }));
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-policy-cli-"));
  // The catalog cache and the recorded runs stay in the test's folder.
  env = { XDG_CACHE_HOME: path.join(dir, "cache"), XDG_DATA_HOME: path.join(dir, "data") };
});

const cli = (args: string[]) => runCli(args, { env });
const names = (stdout: string) => (JSON.parse(stdout) as Array<{ name: string }>).map((tool) => tool.name);

/**
 * Run the CLI on a pseudo-terminal (util-linux `script`): once the output shows `prompt`, type `typed`.
 */
function runOnTerminal(
  args: string[],
  prompt: string,
  typed: string,
): Promise<{ code: number | null; output: string }> {
  const command = [NODE, CLI, ...args].map((part) => `'${part}'`).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let output = "";
  let answered = false;
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (!answered && output.includes(prompt)) {
      answered = true;
      child.stdin.write(typed);
    }
  });
  const timer = setTimeout(() => child.kill(), 20_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

describe("switchyard lists and calls for an identity", () => {
  it("tools lists what the identity may call: the config's identity, --user, --role; the cached catalog too", async () => {
    const file = configFile("list", {
      identity: { user: "alice", roles: ["support"] },
      policy: { rules: RULES },
    });
    const fresh = await cli(["--config", file, "--json", "tools"]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(names(fresh.stdout)).toEqual(["files_read_file", "ops_status"]);
    // Second time from the cached catalog: the same policy filters it.
    const cached = await cli(["--config", file, "--json", "tools", "--log-level", "info"]);
    expect(cached.stderr).toContain("listed from its cache, not started");
    expect(names(cached.stdout)).toEqual(["files_read_file", "ops_status"]);
    // --user alone: that user, with no roles (the config's roles are alice's).
    // files_read_file's admission depends on its arguments: it is listed for everyone.
    const bob = await cli(["--config", file, "--json", "tools", "--user", "bob"]);
    expect(names(bob.stdout)).toEqual(["files_read_file"]);
    const nobody = await cli(["--config", file, "tools", "--user", "bob", "--server", "ops"]);
    expect(nobody.stdout.trim()).toBe("no tools on ops");
    const none = configFile("none", { policy: { rules: [{ effect: "allow", roles: ["admin"] }] } });
    expect((await cli(["--config", none, "tools", "--user", "bob"])).stdout.trim()).toBe(
      "no tools that user bob may call (the config's policy lists none)",
    );
    const admin = await cli([
      "--config",
      file,
      "--json",
      "tools",
      "--user",
      "root",
      "--role",
      "admin",
      "--role",
      "x",
    ]);
    expect(names(admin.stdout)).toHaveLength(5);
    // Nor offered by the router.
    const routed = await cli(["--config", file, "--json", "route", "deploy restart status"]);
    expect(routed.code, routed.stderr).toBe(0);
    expect(names(routed.stdout)).toEqual(["ops_status", "files_read_file"]);
    const routedAdmin = await cli([
      "--config",
      file,
      "--json",
      "route",
      "deploy restart status",
      "--role",
      "admin",
    ]);
    expect(names(routedAdmin.stdout)).toContain("ops_deploy");
    // A tool the identity may not call is not described either.
    const hidden = await cli(["--config", file, "describe", "ops_deploy"]);
    expect(hidden.code).toBe(2);
    expect(hidden.stderr).toContain("no tool named ops_deploy that user alice may call");
  });

  it("without flags or a config identity, calls are the OS user's, with no roles", async () => {
    const me = userInfo().username;
    const file = configFile("os-user", {
      policy: { rules: [{ effect: "allow", users: [me], tools: ["ops_status"] }] },
    });
    const listed = await cli(["--config", file, "--json", "tools"]);
    expect(names(listed.stdout)).toEqual(["ops_status"]);
    const denied = await cli(["--config", file, "call", "ops_deploy", "{}"]);
    expect(denied.stderr).toContain(`is denied to user ${me} (no roles) by the policy's default`);
  });

  it("a denied call exits 1 naming the rule and what to do; a path out of its root is refused", async () => {
    const file = configFile("deny", {
      identity: { user: "alice", roles: ["support"] },
      policy: { rules: RULES },
    });
    const denied = await cli(["--config", file, "call", "ops_deploy", "{}"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr.trim()).toBe(
      "switchyard: ops_deploy (tool deploy on server ops) is denied to user alice (roles support) by rule no-destructive: destructive tools are for admins; ask an administrator to change the policy, or call it as an identity it allows",
    );
    const inside = await cli([
      "--config",
      file,
      "call",
      "files_read_file",
      '{"path":"/srv/data/report.txt"}',
    ]);
    expect(inside.code, inside.stderr).toBe(0);
    expect(inside.stdout).toContain('"tool":"read_file"');
    for (const outside of ["/srv/data/../../etc/passwd", "../etc/shadow", "/srv/database/x"]) {
      const refused = await cli([
        "--config",
        file,
        "call",
        "files_read_file",
        JSON.stringify({ path: outside }),
      ]);
      expect(refused.code, outside).toBe(1);
      expect(refused.stderr).toContain(
        "files_read_file (tool read_file on server files) is denied to user alice",
      );
    }
    const admin = await cli(["--config", file, "call", "ops_deploy", "{}", "--role", "admin"]);
    expect(admin.code, admin.stderr).toBe(0);
  });
});

describe("the agent on the CLI", () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it("ask offers the model only the tools the --user/--role identity may call, and tells it a refusal", async () => {
    const model = await startScriptedOpenAIServer([
      { toolCalls: [{ id: "c1", name: "files_read_file", arguments: { path: "/etc/passwd" } }] },
      { content: "I may not read it." },
      { content: "Deployed." },
    ]);
    servers.push(model);
    const file = configFile("ask", {
      identity: { user: "alice", roles: ["support"] },
      policy: { rules: RULES },
      model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" },
      routing: { mode: "all" },
    });
    const asked = await cli(["--config", file, "ask", "read /etc/passwd"]);
    expect(asked.code, asked.stderr).toBe(0);
    const offered = (index: number) => model.requests[index]!.tools!.map((tool) => tool.function.name).sort();
    expect(offered(0)).toEqual(["files_read_file", "ops_status"]);
    const told = model.requests[1]!.messages.find((message) => message.role === "tool")!.content as string;
    expect(told).toContain("files_read_file was refused");
    expect(told).toContain("is denied to user alice (roles support)");
    const admin = await cli(["--config", file, "ask", "deploy", "--user", "root", "--role", "admin"]);
    expect(admin.code, admin.stderr).toBe(0);
    expect(offered(2)).toHaveLength(5);
  });
});

describe("chat", () => {
  it("/tools and /tools <request> show only what the identity may call", async () => {
    const model = await startScriptedOpenAIServer([]);
    const file = configFile("chat", {
      identity: { user: "alice", roles: ["support"] },
      policy: { rules: RULES },
      model: { baseURL: model.baseURL, name: "scripted", apiKey: "k" },
    });
    const child = spawn(NODE, [CLI, "--config", file, "chat"], {
      env: { ...process.env, ...env, SWITCHYARD_CHAT_HISTORY: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stdin.end("/tools\n/tools deploy restart status\n/exit\n");
    const code = await new Promise((resolve) => child.once("close", resolve));
    await model.close();
    expect(code).toBe(0);
    expect(stdout).toContain("ops_status");
    expect(stdout).toContain("files_read_file");
    expect(stdout).not.toContain("ops_deploy");
    expect(stdout).not.toContain("ops_restart_service");
    expect(stdout).not.toContain("files_write_file");
  });
});

describe("approvals at the terminal", () => {
  const approve = () =>
    configFile("approve", {
      identity: { user: "alice", roles: ["support"] },
      policy: {
        rules: [
          { id: "ask-first", effect: "approve", tags: ["destructive"], reason: "it restarts production" },
          { effect: "allow" },
        ],
      },
    });

  it("without a terminal, a call that needs approval is refused, saying why", async () => {
    const result = await cli(["--config", approve(), "call", "ops_restart_service", "{}"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "ops_restart_service (restart_service on server ops) needs approval (rule ask-first: it restarts production) — refused: no terminal to ask on (stdin is not a TTY)",
    );
    expect(result.stderr).toContain(
      "switchyard: ops_restart_service (tool restart_service on server ops) needs approval (rule ask-first) and it was refused: no terminal to ask on (stdin is not a TTY)",
    );
  });

  it("on a terminal, y approves (the call is made) and anything else refuses", async () => {
    const file = approve();
    const yes = await runOnTerminal(
      ["--config", file, "call", "ops_restart_service", '{"path":"/x"}'],
      "approve? [y/N] ",
      "y\r",
    );
    expect(yes.output).toContain(
      'user alice wants to call ops_restart_service (restart_service on server ops): {"path":"/x"}',
    );
    expect(yes.output).toContain("approval is required by rule ask-first: it restarts production");
    expect(yes.output).toContain('"tool":"restart_service"');
    expect(yes.code).toBe(0);

    const no = await runOnTerminal(
      ["--config", file, "call", "ops_restart_service", "{}"],
      "approve? [y/N] ",
      "n\r",
    );
    expect(no.output).toContain(
      "needs approval (rule ask-first) and it was refused: refused at the terminal",
    );
    expect(no.output).not.toContain('"tool":"restart_service"');
    expect(no.code).toBe(1);
  });
});
