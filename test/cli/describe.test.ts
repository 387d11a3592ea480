import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfigFile, Switchyard } from "../../src/index.js";
import { NODE, ROOT, runCli } from "../helpers.js";

const FLEET = path.join(ROOT, "examples/fleet.json");
let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-describe-"));
  env = { XDG_CACHE_HOME: path.join(dir, "cache"), SWITCHYARD_DATA_DIR: path.join(dir, "data") };
});

/** Run the CLI on the example fleet; `started` lists the servers that ran (from a wire trace). */
async function cli(...args: string[]) {
  const trace = path.join(dir, "wire.jsonl");
  rmSync(trace, { force: true });
  const result = await runCli(["--config", FLEET, "--trace-wire", trace, ...args], { env });
  const started = existsSync(trace)
    ? [
        ...new Set(
          readFileSync(trace, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((line) => (JSON.parse(line) as { server: string }).server),
        ),
      ].sort()
    : [];
  return { ...result, started };
}

describe("switchyard describe", () => {
  it("shows a tool in full — server, own name, title, annotations, parameters, output — starting only its server", async () => {
    const { code, stdout, started } = await cli("describe", "hasher_hash_text");
    expect(code).toBe(0);
    expect(started).toEqual(["hasher"]);
    expect(stdout).toContain(
      "Name:         hasher_hash_text\nServer:       hasher\nTool:         hash_text\n",
    );
    expect(stdout).toContain("Title:        Hash text\n");
    expect(stdout).toContain(
      "Annotations:  read-only: yes, idempotent: yes, destructive: not said, open-world: no\n",
    );
    expect(stdout).toMatch(/Description:\n {2}Compute the hex digest of a text/);
    expect(stdout).toContain("Input (2 parameters, 1 required):\n");
    expect(stdout).toMatch(/^ {2}NAME\s+TYPE\s+REQUIRED\s+DETAILS$/m);
    expect(stdout).toMatch(/^ {2}text\s+string\s+yes\s+The text to hash.*\(max length: 1000000\)$/m);
    expect(stdout).toMatch(
      /^ {2}algorithm\s+string\s+no\s+Hash algorithm: .*\(one of: sha256, sha1, md5; default: "sha256"\)$/m,
    );
    expect(stdout).toMatch(/Output:\n {2}NAME\s+TYPE\s+REQUIRED\s+DETAILS\n {2}algorithm\s+string\s+yes/);
    expect(stdout).toMatch(/^ {2}input_bytes\s+integer\s+yes\s+Length of the UTF-8 encoded input in bytes$/m);
  });

  it("shows nested output fields, ranges and a tool without parameters", async () => {
    const orders = await cli("describe", "orders_query_recent_orders");
    expect(orders.code).toBe(0);
    expect(orders.stdout).toMatch(/^ {2}days\s+integer\s+no\s+.*\(default: 30; ≥ 1 and ≤ 365\)$/m);
    expect(orders.stdout).toMatch(/^ {2}customer_id\s+string\s+yes\s+.*\(pattern: \^C\\d\{5\}\$\)$/m);
    expect(orders.stdout).toMatch(/^ {2}rows\s+array of object\s+yes/m);
    expect(orders.stdout).toMatch(/^ {2}rows\[\]\.product_name\s+string\s+yes\s+Product name \(Chinese\)$/m);

    const skus = await cli("describe", "inventory_list_skus");
    expect(skus.code).toBe(0);
    expect(skus.stdout).toContain("Annotations:  read-only: not said");
    expect(skus.stdout).toMatch(/\nInput: no parameters\n$/);
    expect(skus.stdout).not.toContain("Output");
  });

  it("--json prints the catalog entry describeTool gives, from the cache as from the server", async () => {
    const live = await cli("--json", "describe", "hasher_hash_text", "--refresh");
    expect(live.code).toBe(0);
    const config = loadConfigFile(FLEET, { ...process.env, ...env });
    const yard = await Switchyard.connect({
      ...config,
      servers: config.servers.filter((server) => server.name === "hasher"),
    });
    try {
      expect(JSON.parse(live.stdout)).toEqual(
        JSON.parse(JSON.stringify(yard.describeTool("hasher_hash_text"))),
      );
    } finally {
      await yard.close();
    }
    // Once the whole fleet was listed, describe answers from the cache: no server starts.
    expect((await cli("tools")).code).toBe(0);
    const cached = await cli("--json", "describe", "hasher_hash_text");
    expect(cached.started).toEqual([]);
    expect(JSON.parse(cached.stdout)).toEqual(JSON.parse(live.stdout));
  });

  it("says which names are close for an unknown tool (exit 2)", async () => {
    const { code, stdout, stderr } = await cli("describe", "hasher_hash_txt");
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "switchyard: no tool named hasher_hash_txt in the catalog; did you mean hasher_hash_text?\n",
    );
  });

  it("shows how a tool's calls are served where it applies: its server's fallback, rateLimit and cache, the fleet cap, routing hints", async () => {
    const twin = (name: string, extra: Record<string, unknown> = {}) => ({
      command: NODE,
      args: [path.join(ROOT, "test/fixtures/twin-server.mjs"), "--name", name, "--tools", "lookup,other"],
      ...extra,
    });
    const file = path.join(dir, "degrade.json");
    writeFileSync(
      file,
      JSON.stringify({
        store: false,
        mcpServers: {
          primary: twin("primary", {
            fallback: ["backup", "spare"],
            rateLimit: { perSecond: 2, perMinute: 60 },
            cache: { ttlMs: 60_000, tools: ["lookup"] },
          }),
          backup: twin("backup"),
          spare: twin("spare"),
        },
        limits: { inFlight: 3 },
        routing: { hints: [{ when: "find 查找", tools: ["primary_l*"] }] },
      }),
    );
    const run = (tool: string) => runCli(["--config", file, "describe", tool], { env });
    const lookup = await run("primary_lookup");
    expect(lookup.code, lookup.stderr).toBe(0);
    expect(lookup.stdout).toContain(
      [
        "Fallback:     backup, spare (serves its calls while primary is down)",
        "Rate limit:   2 per second, 60 per minute, burst 1",
        "Cache:        yes (cache.tools); results kept 60000 ms, at most 1000",
        "Fleet cap:    3 calls in flight over every server (limits.inFlight)",
        'Routing hints: first for requests matching "find 查找"',
        "Description:",
      ].join("\n"),
    );
    const other = await run("primary_other");
    expect(other.stdout).toContain("Cache:        no (not read-only, not in cache.tools);");
    expect(other.stdout).not.toContain("Routing hints:");
    // A server with none of them: the fleet cap alone, which every call is under.
    const backup = await run("backup_lookup");
    expect(backup.code).toBe(0);
    expect(backup.stdout).not.toMatch(/^(Fallback|Rate limit|Cache|Routing hints):/m);
    expect(backup.stdout).toContain("Fleet cap:    3 calls in flight");
  });
});
