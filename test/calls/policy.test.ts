import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { syncRouter } from "../../src/agent/route-tools.js";
import {
  Agent,
  type ApprovalRequest,
  type AuditEntry,
  type Identity,
  isSwitchyardError,
  OpenAIChatModel,
  type PolicyRule,
  routerFor,
  Switchyard,
  type SwitchyardOptions,
  ToolSearch,
} from "../../src/index.js";
import { parsePlan, runPlan } from "../../src/plan/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { failureOf, NODE, ROOT } from "../helpers.js";

const CATALOG_SERVER = `${ROOT}test/fixtures/catalog-server.mjs`;
const ARGS_SCHEMA = {
  type: "object",
  properties: { path: { type: "string" }, mode: { type: "string" }, count: { type: "number" } },
};

/** Tools of the two catalog servers: names, and annotations that give them tags. */
const TOOLS: Record<string, Array<{ name: string; annotations?: Record<string, boolean> }>> = {
  files: [
    { name: "read_file", annotations: { readOnlyHint: true } },
    { name: "write_file" },
    { name: "delete_file", annotations: { destructiveHint: true } },
    { name: "list_dir", annotations: { readOnlyHint: true } },
    { name: "fetch_url", annotations: { readOnlyHint: true, openWorldHint: true } },
    { name: "chmod" },
  ],
  ops: [
    { name: "restart_service", annotations: { destructiveHint: true } },
    { name: "query_logs", annotations: { readOnlyHint: true } },
    { name: "deploy", annotations: { destructiveHint: true, openWorldHint: true } },
    { name: "status", annotations: { readOnlyHint: true } },
    { name: "page_oncall", annotations: { openWorldHint: true } },
    { name: "rotate_keys" },
  ],
};

let dir: string;
const servers: Record<string, unknown> = {};
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-policy-"));
  for (const [server, tools] of Object.entries(TOOLS)) {
    const file = path.join(dir, `${server}.json`);
    writeFileSync(
      file,
      JSON.stringify(
        tools.map((tool) => ({ ...tool, description: `${tool.name}.`, inputSchema: ARGS_SCHEMA })),
      ),
    );
    servers[server] = { command: NODE, args: [CATALOG_SERVER, "--catalog", file] };
  }
});

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});
afterAll(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

async function yardOf(
  config: Record<string, unknown>,
  options: SwitchyardOptions = {},
  serverEntries: Record<string, unknown> = servers,
): Promise<Switchyard> {
  const yard = await Switchyard.connect({ mcpServers: serverEntries, ...config }, options);
  opened.push(yard);
  return yard;
}

const alice: Identity = { user: "alice", roles: ["support"] };
const root: Identity = { user: "root", roles: ["admin"] };

/** A small seeded PRNG (mulberry32): the same cases on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("one policy decides listing and calling", () => {
  it("agrees in 10,000 random cases (identities, tools, rules, arguments): 0 leaks, every decision as specified", async () => {
    const random = prng(14);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const some = <T>(items: readonly T[], share = 0.4): T[] => items.filter(() => random() < share);
    const USERS = ["alice", "bob", "carol", "dave"];
    const ROLES = ["admin", "support", "dev", "guest"];
    const TAGS = ["read-only", "destructive", "open-world", "sensitive", "internal"];
    const TOOL_GLOBS = ["read_*", "*_file", "deploy", "status", "s*", "files_*", "ops_query_logs", "*"];
    const PATHS = [
      "/data/a.txt",
      "/data/sub/b.txt",
      "/data/../etc/passwd",
      "/data/./x/../../root",
      "../data/x",
      "sub/../../etc",
      "/database",
      "file:///data/c",
      "/etc/shadow",
      "/data",
    ];
    const MODES = ["r", "w", "rw", "x"];
    const randomConstraint = () =>
      pick([
        () => ({ path: { under: "/data" } }),
        () => ({ path: { under: "/data", not: true } }),
        () => ({ mode: { in: some(MODES, 0.5) } }),
        () => ({ count: { min: 1, max: 10 } }),
        () => ({ mode: { pattern: "^r" } }),
      ])();
    const randomRule = (): PolicyRule => {
      const rule: PolicyRule = { effect: pick(["allow", "allow", "deny", "approve"] as const) };
      if (random() < 0.3) rule.servers = [pick(["files", "ops", "f*"])];
      if (random() < 0.5) rule.tools = [pick(TOOL_GLOBS), ...(random() < 0.3 ? [pick(TOOL_GLOBS)] : [])];
      if (random() < 0.3) rule.tags = some(TAGS);
      if (random() < 0.3) rule.users = some(USERS);
      if (random() < 0.4) rule.roles = some(ROLES);
      if (random() < 0.15) rule.attributes = { team: pick(["red", "blue"]) };
      if (random() < 0.3) rule.arguments = randomConstraint();
      if (random() < 0.3) rule.id = `r${Math.floor(random() * 1000)}`;
      return rule;
    };
    const tags: Record<string, string[]> = { "*_file": ["sensitive"], chmod: ["sensitive", "internal"] };
    const entries = {
      files: { ...(servers.files as object), tags },
      ops: { ...(servers.ops as object), tags: ["internal"] },
    };
    const annotationTags = (annotations: Record<string, boolean> | undefined): string[] => [
      ...(annotations?.readOnlyHint ? ["read-only"] : []),
      ...(annotations?.destructiveHint ? ["destructive"] : []),
      ...(annotations?.openWorldHint ? ["open-world"] : []),
    ];
    /** Every tool with its tags, written out by hand from TOOLS and `tags` above (not by the engine). */
    const tools = Object.entries(TOOLS).flatMap(([server, list]) =>
      list.map((tool) => ({
        server,
        tool: tool.name,
        name: `${server}_${tool.name}`,
        tags: new Set([
          ...annotationTags(tool.annotations),
          ...(server === "ops" ? ["internal"] : []),
          ...(server === "files" && tool.name.endsWith("_file") ? ["sensitive"] : []),
          ...(server === "files" && tool.name === "chmod" ? ["sensitive", "internal"] : []),
        ]),
      })),
    );
    const glob = (pattern: string, value: string) =>
      new RegExp(
        `^${pattern
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".")}$`,
      ).test(value);
    /**
     * The reference semantics, written plainly: does a rule apply to (identity, tool, args)? "unknown":
     * an `under` path it cannot place (relative, and these servers set no cwd), which refuses the call.
     */
    const applies = (
      rule: PolicyRule,
      identity: Identity,
      tool: (typeof tools)[number],
      args: Record<string, unknown> | undefined,
    ): boolean | "maybe" | "unknown" => {
      if (rule.servers && !rule.servers.some((p) => glob(p, tool.server))) return false;
      if (rule.tools && !rule.tools.some((p) => glob(p, tool.tool) || glob(p, tool.name))) return false;
      if (rule.tags && !rule.tags.some((tag) => tool.tags.has(tag))) return false;
      if (rule.users && !rule.users.includes(identity.user)) return false;
      if (rule.roles && !identity.roles.some((role) => rule.roles!.includes(role))) return false;
      for (const [key, value] of Object.entries(rule.attributes ?? {}))
        if (identity.attributes?.[key] !== value) return false;
      if (!rule.arguments || Object.keys(rule.arguments).length === 0) return true;
      if (!args) return "maybe";
      let unknown = false;
      for (const [key, c] of Object.entries(rule.arguments)) {
        const value = args[key];
        let holds = true;
        if (c.under !== undefined) {
          let text = typeof value === "string" ? value : undefined;
          if (text?.startsWith("file://")) text = text.slice("file://".length);
          if (text !== undefined && !text.startsWith("/")) {
            unknown = true;
            continue;
          }
          const resolved = text === undefined ? undefined : path.posix.resolve(text);
          holds &&= resolved !== undefined && (resolved === "/data" || resolved.startsWith("/data/"));
        }
        if (c.in !== undefined) holds &&= c.in.includes(value as string);
        if (c.min !== undefined || c.max !== undefined)
          holds &&=
            typeof value === "number" && value >= (c.min ?? -Infinity) && value <= (c.max ?? Infinity);
        if (c.pattern !== undefined)
          holds &&= typeof value === "string" && new RegExp(c.pattern, "u").test(value);
        if (holds === (c.not === true)) return false;
      }
      return unknown ? "unknown" : true;
    };
    const expected = (
      rules: PolicyRule[],
      mode: string,
      fallback: string,
      identity: Identity,
      tool: (typeof tools)[number],
      args: Record<string, unknown>,
    ) => {
      const matching = rules
        .map((rule, index) => ({ rule, index, applies: applies(rule, identity, tool, args) }))
        .filter((m) => m.applies !== false);
      const name = (m: { rule: PolicyRule; index: number }) => m.rule.id ?? `policy.rules[${m.index}]`;
      // A rule that cannot place a path refuses where it is reached: in first-match when it comes
      // first, in deny-overrides as a deny would.
      const refusing =
        mode === "first-match"
          ? matching.slice(0, 1).find((m) => m.applies === "unknown")
          : matching.find((m) => m.applies === "unknown" || m.rule.effect === "deny");
      if (refusing?.applies === "unknown") return { effect: "deny", rule: name(refusing) };
      if (matching.length === 0) return { effect: fallback, rule: undefined };
      if (mode === "first-match") return { effect: matching[0]!.rule.effect, rule: name(matching[0]!) };
      const winner =
        matching.find((m) => m.rule.effect === "deny") ??
        matching.find((m) => m.rule.effect === "approve") ??
        matching[0]!;
      return { effect: winner.rule.effect, rule: name(winner) };
    };

    let cases = 0;
    let leaks = 0;
    let admitted = 0;
    let denied = 0;
    let approvals = 0;
    const effectCounts = { allow: 0, deny: 0, approve: 0 };
    const POLICIES = 40;
    const PER_POLICY = 250;
    for (let p = 0; p < POLICIES; p += 1) {
      const rules = Array.from({ length: 1 + Math.floor(random() * 8) }, randomRule);
      const mode = pick(["first-match", "deny-overrides"]);
      const fallback = pick(["deny", "deny", "allow", "approve"]);
      const asked: ApprovalRequest[] = [];
      const yard = await Switchyard.connect(
        { mcpServers: entries, policy: { mode, default: fallback, rules } },
        {
          onApproval: (request) => {
            asked.push(request);
            return true;
          },
        },
      );
      try {
        expect(yard.tools({ identity: root }).length + 1).toBeGreaterThan(0);
        const calls: Array<Promise<void>> = [];
        for (let c = 0; c < PER_POLICY; c += 1) {
          const identity: Identity = {
            user: pick(USERS),
            roles: some(ROLES, 0.3),
            ...(random() < 0.5 ? { attributes: { team: pick(["red", "blue"]) } } : {}),
          };
          const tool = pick(tools);
          const args: Record<string, unknown> = {};
          if (random() < 0.8) args.path = pick(PATHS);
          if (random() < 0.6) args.mode = pick(MODES);
          if (random() < 0.5) args.count = Math.floor(random() * 15);
          const listed = yard.tools({ identity }).some((listedTool) => listedTool.name === tool.name);
          const want = expected(rules, mode, fallback, identity, tool, args);
          const staticOnly = rules.every((rule) => applies(rule, identity, tool, undefined) !== "maybe");
          calls.push(
            (async () => {
              const before = asked.length;
              let outcome: "admitted" | Awaited<ReturnType<typeof failureOf>>;
              try {
                await yard.callTool(tool.name, args, { identity });
                outcome = "admitted";
              } catch (error) {
                if (!isSwitchyardError(error)) throw error;
                outcome = error;
              }
              cases += 1;
              effectCounts[want.effect as keyof typeof effectCounts] += 1;
              const through = outcome === "admitted";
              if (through && !listed) leaks += 1;
              if (outcome === "admitted") admitted += 1;
              else {
                denied += 1;
                expect(outcome.code, outcome.message).toBe("POLICY_DENIED");
                expect(outcome.message).toContain(want.rule ? `rule ${want.rule}` : "the policy's default");
              }
              expect(through, `${tool.name} ${JSON.stringify(args)} for ${JSON.stringify(identity)}`).toBe(
                want.effect !== "deny",
              );
              if (want.effect === "approve") {
                approvals += 1;
                expect(asked.length).toBeGreaterThan(before);
              }
              // Without a rule that depends on the arguments, listing is exactly "some call goes through".
              if (staticOnly) expect(listed).toBe(want.effect !== "deny");
              else if (!listed) expect(want.effect).toBe("deny");
            })(),
          );
        }
        await Promise.all(calls);
      } finally {
        await yard.close();
      }
    }
    expect(cases).toBe(10_000);
    expect(leaks).toBe(0);
    // The cases cover every outcome, not only one.
    expect(admitted).toBeGreaterThan(1_000);
    expect(denied).toBeGreaterThan(1_000);
    expect(approvals).toBeGreaterThan(100);
    expect(effectCounts.allow).toBeGreaterThan(1_000);
  }, 180_000);
});

describe("over the example fleet", () => {
  it("tags from the servers' annotations and the config, constraints on real arguments, per identity", async () => {
    const example = (name: string, env: Record<string, string> = {}) => ({
      command: NODE,
      args: [`${ROOT}examples/servers/${name}.mjs`],
      env,
    });
    const yard = await yardOf(
      {
        policy: {
          rules: [
            { id: "staff-only", effect: "deny", tags: ["internal"], roles: ["guest"] },
            {
              id: "recent-only",
              effect: "deny",
              servers: ["orders"],
              arguments: { days: { min: 31 } },
              reason: "30 days at most",
            },
            {
              id: "support-orders",
              effect: "allow",
              roles: ["support"],
              servers: ["orders"],
              arguments: { customer_id: { pattern: "^C1\\d{4}$" } },
            },
            {
              id: "reads",
              effect: "allow",
              tags: ["read-only"],
              servers: ["environment", "geo", "policies"],
            },
          ],
        },
      },
      { identity: { user: "gus", roles: ["guest"] } },
      {
        orders: example("orders", { ORDERS_DB: path.join(dir, "orders.db") }),
        policies: { ...example("policies"), tags: ["internal"] },
        environment: example("environment"),
        geo: example("geo"),
      },
    );
    expect(yard.tools().map((tool) => tool.name)).toEqual([
      "environment_get_environment_status",
      "geo_simulate_geolocation",
    ]);
    const support: Identity = { user: "sam", roles: ["support"] };
    expect(yard.tools({ identity: support }).map((tool) => tool.name)).toEqual([
      "environment_get_environment_status",
      "geo_simulate_geolocation",
      "orders_get_customer",
      "orders_query_recent_orders",
      "policies_search_policy",
    ]);
    const customer = await yard.callTool(
      "orders_get_customer",
      { customer_id: "C10001" },
      { identity: support },
    );
    expect(customer.isError).toBe(false);
    expect(customer.text).toContain("C10001");
    const other = await failureOf(
      yard.callTool("orders_get_customer", { customer_id: "C20001" }, { identity: support }),
    );
    expect(other.message).toContain("by the policy's default");
    const recent = await yard.callTool(
      "orders_query_recent_orders",
      { customer_id: "C10001", days: 30 },
      { identity: support },
    );
    expect(recent.isError).toBe(false);
    const old = await failureOf(
      yard.callTool("orders_query_recent_orders", { customer_id: "C10001", days: 90 }, { identity: support }),
    );
    expect(old.message).toContain("by rule recent-only: 30 days at most");
    const guest = await failureOf(yard.callTool("policies_search_policy", { keyword: "refund" }));
    expect(guest.message).toContain("by rule staff-only");
    expect(
      (await yard.callTool("policies_search_policy", { keyword: "refund" }, { identity: support })).isError,
    ).toBe(false);
  });
});

describe("argument constraints", () => {
  it("a path must stay under its root: .. escapes, file URLs out of it, and relative paths (no cwd to resolve them) are refused", async () => {
    const yard = await yardOf({
      policy: {
        rules: [
          {
            id: "data-only",
            effect: "allow",
            tools: ["files_read_file"],
            arguments: { path: { under: "/srv/data" } },
          },
        ],
      },
    });
    expect(yard.tools().map((tool) => tool.name)).toEqual(["files_read_file"]); // listed: arguments decide
    for (const ok of [
      "/srv/data/a.txt",
      "/srv/data/x/../b.txt",
      "file:///srv/data/d",
      "/srv/data",
      "/srv/data/..hidden",
    ]) {
      const result = await yard.callTool("files_read_file", { path: ok });
      expect(result.isError, ok).toBe(false);
    }
    for (const outside of [
      "/srv/data/../etc/passwd",
      "/srv/data/./x/../../secret",
      "/srv/database",
      "/srv/data/..",
      "file:///etc/passwd",
      "/etc/passwd",
    ]) {
      const error = await failureOf(yard.callTool("files_read_file", { path: outside }));
      expect(error.code, outside).toBe("POLICY_DENIED");
      expect(error.message).toContain("policy's default");
    }
    // Where these lead cannot be told here: refused by the rule, saying why (test/calls/policy-paths.test.ts).
    for (const unknown of ["sub/c.txt", "../etc/passwd", "sub/../../../etc", "/srv/data\0/../../etc"]) {
      const error = await failureOf(yard.callTool("files_read_file", { path: unknown }));
      expect(error.code, unknown).toBe("POLICY_DENIED");
      expect(error.message).toContain("by rule data-only: argument path");
    }
    const missing = await failureOf(yard.callTool("files_read_file", {}));
    expect(missing.code).toBe("POLICY_DENIED");
  });

  it("a value in a set, a number in a range, a string matching a pattern; `not` turns a condition round", async () => {
    const yard = await yardOf({
      policy: {
        mode: "deny-overrides",
        default: "allow",
        rules: [
          {
            id: "modes",
            effect: "deny",
            tools: ["files_chmod"],
            arguments: { mode: { in: ["r", "rw"], not: true } },
          },
          {
            id: "small",
            effect: "deny",
            tools: ["ops_query_logs"],
            arguments: { count: { min: 1, max: 100, not: true } },
          },
          {
            id: "safe-path",
            effect: "deny",
            tools: ["files_list_dir"],
            arguments: { path: { pattern: "^/(srv|tmp)/", not: true } },
          },
        ],
      },
    });
    expect((await yard.callTool("files_chmod", { mode: "rw" })).isError).toBe(false);
    const mode = await failureOf(yard.callTool("files_chmod", { mode: "x" }));
    expect(mode.message).toContain("rule modes");
    expect((await yard.callTool("ops_query_logs", { count: 100 })).isError).toBe(false);
    expect((await failureOf(yard.callTool("ops_query_logs", { count: 101 }))).message).toContain(
      "rule small",
    );
    expect((await failureOf(yard.callTool("ops_query_logs", {}))).message).toContain("rule small");
    expect((await yard.callTool("files_list_dir", { path: "/tmp/x" })).isError).toBe(false);
    expect((await failureOf(yard.callTool("files_list_dir", { path: "/etc" }))).code).toBe("POLICY_DENIED");
    // Every tool is listed: each one's refusal depends on its arguments.
    expect(yard.tools()).toHaveLength(12);
  });
});

describe("rules, tags and identities", () => {
  it("POLICY_DENIED names the rule (its id, else policy.rules[n]), who was refused, and what to do", async () => {
    const yard = await yardOf({
      identity: { user: "alice", roles: ["support"] },
      policy: {
        rules: [
          { effect: "allow", roles: ["admin"] },
          { effect: "deny", tags: ["destructive"], reason: "destructive tools are for admins" },
          { id: "support-reads", effect: "allow", roles: ["support"], tags: ["read-only"] },
        ],
      },
    });
    const destructive = await failureOf(yard.callTool("ops_deploy", {}));
    expect(destructive).toMatchObject({ code: "POLICY_DENIED", server: "ops", tool: "deploy" });
    expect(destructive.message).toBe(
      "ops_deploy (tool deploy on server ops) is denied to user alice (roles support) by rule policy.rules[1]: destructive tools are for admins; ask an administrator to change the policy, or call it as an identity it allows",
    );
    const unlisted = await failureOf(yard.callTool("files_write_file", {}));
    expect(unlisted.message).toContain(
      "by the policy's default: no policy rule allows it (policy.default is deny)",
    );
    expect((await yard.callTool("ops_status", {})).isError).toBe(false);
    // The config's identity is the default; another is given per call and per listing.
    expect(yard.identity).toEqual({ user: "alice", roles: ["support"] });
    expect(yard.tools().map((tool) => tool.name)).toEqual([
      "files_fetch_url",
      "files_list_dir",
      "files_read_file",
      "ops_query_logs",
      "ops_status",
    ]);
    expect(yard.tools({ identity: root })).toHaveLength(12);
    expect((await yard.callTool("ops_deploy", {}, { identity: root })).isError).toBe(false);
    expect(yard.tools({ identity: { user: "eve", roles: [] } })).toEqual([]);
  });

  it("tags come from annotations and from the config (for a whole server, or by tool glob)", async () => {
    const yard = await yardOf(
      {
        policy: {
          rules: [
            { effect: "allow", tags: ["open-world"] },
            { effect: "allow", tags: ["billing"] },
            { effect: "allow", tags: ["files-admin"], users: ["alice"] },
          ],
        },
      },
      { identity: alice },
      {
        files: { ...(servers.files as object), tags: { "ch*": ["files-admin"] } },
        ops: { ...(servers.ops as object), tags: ["billing"] },
      },
    );
    expect(yard.tools().map((tool) => tool.name)).toEqual([
      "files_chmod",
      "files_fetch_url",
      ...TOOLS.ops!.map((tool) => `ops_${tool.name}`).sort(),
    ]);
    expect(yard.policy?.tagsOf(yard.describeTool("files_fetch_url")!)).toEqual(
      new Set(["read-only", "open-world"]),
    );
  });

  it("attributes and users; deny-overrides lets any deny win, first-match the first rule", async () => {
    const rules = [
      { effect: "allow", attributes: { team: "sre" }, servers: ["ops"] },
      { effect: "deny", users: ["mallory"] },
    ];
    const mallory: Identity = { user: "mallory", roles: [], attributes: { team: "sre" } };
    const first = await yardOf({ policy: { rules } });
    expect((await first.callTool("ops_status", {}, { identity: mallory })).isError).toBe(false);
    expect(first.tools({ identity: mallory })).toHaveLength(6);
    const overrides = await yardOf({ policy: { mode: "deny-overrides", rules } });
    expect((await failureOf(overrides.callTool("ops_status", {}, { identity: mallory }))).message).toContain(
      "rule policy.rules[1]",
    );
    expect(overrides.tools({ identity: mallory })).toEqual([]);
    expect(overrides.tools({ identity: { ...mallory, user: "sam" } })).toHaveLength(6);
  });

  it("rules in code come before the config's, and a decide hook before both", async () => {
    const yard = await yardOf(
      { policy: { default: "allow", rules: [{ effect: "deny", servers: ["ops"] }] } },
      {
        identity: alice,
        policy: {
          rules: [{ id: "status-ok", effect: "allow", tools: ["ops_status"] }],
          decide: (request) =>
            request.tool.tool === "rotate_keys" && !request.identity.roles.includes("admin")
              ? { effect: "deny", reason: "keys are rotated by admins" }
              : request.arguments?.path === "/forbidden"
                ? { effect: "deny", rule: "no-forbidden" }
                : undefined,
        },
      },
    );
    expect((await yard.callTool("ops_status", {})).isError).toBe(false);
    expect((await failureOf(yard.callTool("ops_deploy", {}))).message).toContain("rule policy.rules[0]");
    const keys = await failureOf(yard.callTool("files_read_file", { path: "/forbidden" }));
    expect(keys.message).toContain("rule no-forbidden");
    expect(yard.tools().map((tool) => tool.name)).not.toContain("ops_rotate_keys");
    expect(yard.tools().map((tool) => tool.name)).toContain("ops_status");
    // A hook that hides a tool from a listing but would admit its calls is held to its listing.
    const twoFaced = await yardOf(
      {},
      {
        policy: {
          decide: (request) =>
            request.arguments
              ? { effect: "allow" }
              : { effect: request.tool.server === "ops" ? "deny" : "allow" },
        },
      },
    );
    expect(twoFaced.tools().map((tool) => tool.server)).not.toContain("ops");
    const hidden = await failureOf(twoFaced.callTool("ops_status", {}));
    expect(hidden.message).toContain(
      "by rule options.policy.decide: the tool is not listed for this identity",
    );
    expect((await twoFaced.callTool("files_list_dir", {})).isError).toBe(false);
  });

  it("without a policy every tool is listed and every call allowed; a bad rule is CONFIG_INVALID naming it", async () => {
    const yard = await yardOf({});
    expect(yard.policy).toBeUndefined();
    expect(yard.tools()).toHaveLength(12);
    await expect(
      Switchyard.connect({ mcpServers: {}, policy: { rules: [{ effect: "permit" }] } }),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("policy.rules.0.effect"),
    });
    await expect(
      Switchyard.connect({
        mcpServers: {},
        policy: { rules: [{ effect: "allow", arguments: { path: { under: "relative/dir" } } }] },
      }),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: 'policy.rules[0].arguments.path.under: expected an absolute folder (got "relative/dir")',
    });
    await expect(yard.callTool("ops_status", {}, { identity: "bob" as never })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringContaining(
        "callTool ops_status: identity must be { user: a non-empty string, roles: [strings]",
      ),
    });
    await expect(
      Switchyard.connect({ mcpServers: {} }, { identity: { user: "", roles: [] } }),
    ).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
    await expect(
      Switchyard.connect(
        { mcpServers: {} },
        { policy: { rules: [{ effect: "allow", tools: "ops_*" as never }] } },
      ),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: "options.policy.rules[0].tools: expected an array of strings",
    });
    const policed = await yardOf({ policy: { rules: [] } });
    expect(() => policed.tools({ identity: { user: "bob" } as never })).toThrow(/tools: identity must be/);
    await expect(Switchyard.connect({ mcpServers: {}, identity: { roles: ["x"] } })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("identity.user"),
    });
  });
});

describe("approvals", () => {
  const approveRules = {
    policy: { rules: [{ id: "ask-first", effect: "approve", tags: ["destructive"] }, { effect: "allow" }] },
  };

  it("wait on the handler: approved calls go through, refused ones fail with POLICY_DENIED and the reason", async () => {
    const asked: ApprovalRequest[] = [];
    let answer: boolean | { approved: boolean; reason?: string } = true;
    const yard = await yardOf(approveRules, {
      identity: alice,
      onApproval: async (request) => {
        asked.push(request);
        return answer;
      },
    });
    expect((await yard.callTool("ops_deploy", { path: "/x" })).isError).toBe(false);
    expect(asked[0]).toMatchObject({
      identity: alice,
      name: "ops_deploy",
      server: "ops",
      tool: "deploy",
      arguments: { path: "/x" },
      rule: "ask-first",
    });
    answer = { approved: false, reason: "not during the freeze" };
    const refused = await failureOf(yard.callTool("ops_deploy", {}));
    expect(refused.code).toBe("POLICY_DENIED");
    expect(refused.message).toBe(
      "ops_deploy (tool deploy on server ops) needs approval (rule ask-first) and it was refused: not during the freeze",
    );
    expect((await yard.callTool("ops_status", {})).isError).toBe(false);
    expect(asked).toHaveLength(2);
  });

  it("without a handler are refused, saying no one could give the approval", async () => {
    const yard = await yardOf(approveRules);
    const error = await failureOf(yard.callTool("files_delete_file", {}));
    expect(error.code).toBe("POLICY_DENIED");
    expect(error.message).toContain(
      "needs approval (rule ask-first) and no one could give it: no approval handler (onApproval) is set",
    );
  });

  it("must come within the call's deadline: past it the call is TIMEOUT, the handler's signal aborts, nothing is sent", async () => {
    let signal: AbortSignal | undefined;
    const yard = await yardOf(approveRules, {
      onApproval: (request) => {
        signal = request.signal;
        return new Promise(() => {}); // nobody answers
      },
    });
    const error = await failureOf(yard.callTool("ops_deploy", {}, { timeoutMs: 100 }));
    expect(error).toMatchObject({ code: "TIMEOUT", delivery: "not_sent" });
    expect(error.message).toContain("waited for approval longer than its deadline (100 ms)");
    expect(signal?.aborted).toBe(true);
    const cancel = new AbortController();
    const pending = failureOf(yard.callTool("ops_deploy", {}, { signal: cancel.signal }));
    cancel.abort();
    expect((await pending).code).toBe("CANCELLED");
  });
});

describe("the audit log", () => {
  it("gets a decision per call, an approval when one was asked, and the outcome of each call let through; arguments go through redact", async () => {
    const entries: AuditEntry[] = [];
    const yard = await yardOf(
      {
        policy: {
          rules: [
            { id: "ask", effect: "approve", tools: ["ops_deploy"] },
            { id: "reads", effect: "allow", tags: ["read-only"] },
          ],
        },
      },
      {
        identity: alice,
        audit: { append: (entry) => void entries.push(entry) },
        redact: (value) => JSON.parse(JSON.stringify(value).replaceAll("hunter2", "[redacted]")),
        onApproval: () => ({ approved: true, reason: "looks fine" }),
      },
    );
    await yard.callTool("ops_status", { mode: "hunter2" }, { runId: "run_1", callId: "c1" });
    await failureOf(yard.callTool("ops_restart_service", {}, { callId: "c2" }));
    await yard.callTool("ops_deploy", {}, { callId: "c3" });
    const rows = entries.map(({ kind, callId, outcome, rule, name }) => ({
      kind,
      callId,
      outcome,
      rule,
      name,
    }));
    expect(rows).toEqual([
      { kind: "decision", callId: "c1", outcome: "allow", rule: "reads", name: "ops_status" },
      { kind: "call", callId: "c1", outcome: "ok", rule: undefined, name: "ops_status" },
      { kind: "decision", callId: "c2", outcome: "deny", rule: undefined, name: "ops_restart_service" },
      { kind: "decision", callId: "c3", outcome: "approval_required", rule: "ask", name: "ops_deploy" },
      { kind: "approval", callId: "c3", outcome: "approved", rule: "ask", name: "ops_deploy" },
      { kind: "call", callId: "c3", outcome: "ok", rule: undefined, name: "ops_deploy" },
    ]);
    expect(entries[0]).toMatchObject({
      identity: alice,
      server: "ops",
      tool: "status",
      runId: "run_1",
      arguments: { mode: "[redacted]" },
    });
    expect(JSON.stringify(entries)).not.toContain("hunter2");
    expect(entries[4]!.summary).toBe("looks fine");
    expect(typeof entries[1]!.ms).toBe("number");

    // An approval nobody gives in time is logged as refused, with why.
    const silent: AuditEntry[] = [];
    const waiting = await yardOf(
      { policy: { rules: [{ id: "ask", effect: "approve" }] } },
      { audit: { append: (entry) => void silent.push(entry) }, onApproval: () => new Promise(() => {}) },
    );
    await failureOf(waiting.callTool("ops_status", {}, { timeoutMs: 50 }));
    expect(silent.map(({ kind, outcome }) => [kind, outcome])).toEqual([
      ["decision", "approval_required"],
      ["approval", "refused"],
    ]);
    expect(silent[1]!.summary).toMatch(/^TIMEOUT: ops_status .* waited for approval/);
  });
});

describe("the agent and plans", () => {
  it("offer a run only the tools its identity may use, and tell the model a refused call was refused", async () => {
    const model = await startScriptedOpenAIServer([
      {
        toolCalls: [{ id: "t1", name: "files_read_file", arguments: { path: "/srv/data/../../etc/passwd" } }],
      },
      { content: "I may not read that file." },
      { toolCalls: [{ id: "t2", name: "ops_deploy", arguments: {} }] },
      { content: "done" },
    ]);
    opened.push(model);
    const yard = await yardOf({
      policy: {
        rules: [
          { effect: "allow", roles: ["admin"] },
          {
            id: "data",
            effect: "allow",
            tools: ["files_read_file"],
            arguments: { path: { under: "/srv/data" } },
          },
          { effect: "allow", tags: ["read-only"], servers: ["ops"] },
        ],
      },
    });
    const agent = new Agent({
      model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted", apiKey: "k" }),
      host: yard,
      identity: alice,
    });
    const result = await agent.run("read /etc/passwd");
    const offered = model.requests[0]!.tools!.map((tool) => tool.function.name).sort();
    expect(offered).toEqual(["files_read_file", "ops_query_logs", "ops_status"]);
    const told = model.requests[1]!.messages.find((message) => message.role === "tool")!.content as string;
    expect(told).toContain("files_read_file was refused");
    expect(told).toContain("is denied to user alice");
    expect(result.calls[0]!.error?.code).toBe("POLICY_DENIED");

    // A run for another identity sees that identity's tools, from the same agent.
    const admin = await agent.run("deploy", { identity: root });
    expect(model.requests[2]!.tools!.map((tool) => tool.function.name)).toHaveLength(12);
    expect(admin.calls[0]).toMatchObject({ name: "ops_deploy", ok: true });
  });

  it("tool search names only the tools the run's identity may call", async () => {
    const model = await startScriptedOpenAIServer([
      {
        toolCalls: [
          { id: "s1", name: "search_tools", arguments: { query: "deploy restart_service status" } },
        ],
      },
      { content: "done" },
    ]);
    opened.push(model);
    const yard = await yardOf({ policy: { rules: [{ effect: "allow", tags: ["read-only"] }] } });
    const router = routerFor(yard);
    const agent = new Agent({
      model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted", apiKey: "k" }),
      host: yard,
      identity: alice,
      toolSearch: new ToolSearch({ router, sync: () => syncRouter(router), mode: "search" }),
    });
    await agent.run("deploy and restart");
    const found = model.requests[1]!.messages.find((message) => message.role === "tool")!.content as string;
    expect(found).toContain("ops_status");
    expect(found).not.toContain("ops_deploy");
    expect(found).not.toContain("ops_restart_service");
    // An admin's run of the same agent finds them.
    const admin = await yardOf({ policy: { rules: [{ effect: "allow", roles: ["admin"] }] } });
    expect(admin.tools({ identity: root }).map((tool) => tool.name)).toContain("ops_deploy");
  });

  it("a plan step its identity may not call fails with POLICY_DENIED; the others run", async () => {
    const yard = await yardOf({ policy: { rules: [{ effect: "allow", tags: ["read-only"] }] } });
    const plan = parsePlan("steps:\n  - id: look\n    tool: ops_status\n  - id: act\n    tool: ops_deploy\n");
    const result = await runPlan(plan, { host: yard, identity: alice });
    expect(result.steps.map((step) => [step.id, step.status, step.error?.code])).toEqual([
      ["look", "ok", undefined],
      ["act", "failed", "POLICY_DENIED"],
    ]);
    const admin = await yardOf({ policy: { rules: [{ effect: "allow" }] } });
    expect((await runPlan(plan, { host: admin, identity: root })).ok).toBe(true);
  });
});
