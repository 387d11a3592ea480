import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfigFile, Switchyard } from "../../src/index.js";
import { ROOT, runCli } from "../helpers.js";

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
});
