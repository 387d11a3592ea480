import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { processesWith, ROOT, runCli } from "../helpers.js";

// The seed scenarios of `switchyard demo <scenario>`, each run offline: no keys, no network.
const NO_MODEL = { OPENAI_API_KEY: "", OPENAI_BASE_URL: "", SWITCHYARD_MODEL: "" };
const ENGLISH = { LANG: "C.UTF-8", LC_ALL: "", LC_MESSAGES: "" };
const fresh = () => mkdtempSync(path.join(tmpdir(), "switchyard-demo-seeds-"));
/** An offline environment: no model, its own data folder and run store. */
const offline = (dir = fresh()) => ({
  ...NO_MODEL,
  ...ENGLISH,
  SWITCHYARD_DATA_DIR: dir,
  XDG_DATA_HOME: dir,
});

describe("switchyard demo <scenario>", () => {
  it("lists the after-sales, outdoor-run, pipeline and two-server scenarios with --list", async () => {
    const { code, stdout } = await runCli(["demo", "--list"], { env: offline() });
    expect(code).toBe(0);
    for (const [id, seed] of [
      ["after-sales", "000"],
      ["outdoor-run", "003"],
      ["pipeline", "002"],
      ["pipeline-failure", "002"],
      ["two-servers", "001"],
    ])
      expect(stdout).toMatch(new RegExp(`^${id}\\s+${seed}\\s`, "m"));
    expect(stdout).toMatch(/after-sales\s+000\s+\(default\) seed 000/);
  });

  it("refuses an unknown scenario, naming the near one and the list (exit 2)", async () => {
    const { code, stderr } = await runCli(["demo", "outdoor"], { env: offline() });
    expect(code).toBe(2);
    expect(stderr).toContain('no demo scenario "outdoor" (did you mean outdoor-run');
    expect(stderr).toContain("switchyard demo --list");
  });

  it("outdoor-run: position and environment in parallel as a plan, anchors, a bounds check, no process left", async () => {
    const dir = fresh();
    const { code, stdout } = await runCli(["demo", "outdoor-run"], { env: offline(dir) });
    expect(code).toBe(0);
    expect(stdout).toContain("附近适合户外跑步吗？");
    expect(stdout).toContain("running the declared plan examples/outdoor-run.plan.yaml");
    expect(stdout).toMatch(
      /^\[tool geo_simulate_geolocation → ok\] Simulated fix within 500 m of \(39\.9219, 116\.4436\)/m,
    );
    expect(stdout).toMatch(/^\[tool environment_get_environment_status → ok\] BJ-CY 北京市朝阳区/m);
    expect(stdout).toMatch(/北京市朝阳区今天 AQI \d+.*(适合|不建议)户外跑步/);
    expect(stdout).toMatch(/bounds check: lat 95 → INVALID_ARGUMENTS, not sent: .*"lat" must be <= 90/);
    expect(stdout).toMatch(/position\s+geo\s+simulate_geolocation\s+ok/);
    expect(stdout).toMatch(/environment\s+environment\s+get_environment_status\s+ok/);
    expect(processesWith(dir, "environ")).toEqual([]);
  });

  it("outdoor-run with a model: the agent asks for both tools in one answer, results paired by id", async () => {
    await using model = await startScriptedOpenAIServer((request, index) => {
      if (index === 0)
        return {
          toolCalls: [
            {
              id: "geo",
              name: "geo_simulate_geolocation",
              arguments: { lat: 39.9219, lng: 116.4436, radius: 500 },
            },
            { id: "env", name: "environment_get_environment_status", arguments: { area_code: "BJ-CY" } },
          ],
        };
      const results = request.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
      return { content: `结果：${results.join(",")}。适合跑步。` };
    });
    const { code, stdout } = await runCli(["demo", "outdoor-run"], {
      env: { ...offline(), OPENAI_BASE_URL: model.baseURL, SWITCHYARD_MODEL: "scripted" },
    });
    expect(code).toBe(0);
    expect(stdout).toContain("结果：geo,env。适合跑步。");
    expect(String(model.requests[1]!.messages.at(-1)!.content)).toMatch(
      /^\[tool environment_get_environment_status → ok\]/,
    );
  });

  it("pipeline: the HTTP hasher, jq behind a stdio server and the 100-character summarizer, 3 at a time", async () => {
    const { code, stdout } = await runCli(["demo", "pipeline"], { env: offline() });
    expect(code).toBe(0);
    expect(stdout).toMatch(/hasher\s+ready\s+http/);
    expect(stdout).toMatch(/jq\s+ready\s+stdio/);
    expect(stdout).toContain("at most 3 calls at once");
    expect(stdout).toContain('servers: [tool jq_filter → ok] ["hasher","jq","summarizer"]');
    expect(stdout).toContain("count: [tool jq_filter → ok] 3");
    expect(stdout).toMatch(/sha256: [0-9a-f]{64}/);
    const summary = /summary \((\d+)\/100\): (.+)/.exec(stdout)!;
    expect(Number(summary[1])).toBeLessThanOrEqual(100);
    expect([...summary[2]!].length).toBe(Number(summary[1]));
  });

  it("pipeline-failure: the jq service fails, only its dependants are skipped, the others finish", async () => {
    const { code, stdout } = await runCli(["demo", "pipeline-failure"], { env: offline() });
    expect(code).toBe(0);
    expect(stdout).toMatch(/servers\s+jq\s+filter\s+failed\s+\d+ ms\s+TOOL_ERROR/);
    expect(stdout).toMatch(/servers_gist\s+summarizer\s+summarize\s+skipped/);
    expect(stdout).toMatch(/fingerprint\s+hasher\s+hash_text\s+ok/);
    expect(stdout).toMatch(/gist\s+summarizer\s+summarize\s+ok/);
    expect(stdout).toContain("jq could not run: /nonexistent/jq is not installed");
    expect(stdout).toContain("only the steps that read it were skipped, the others finished");
  });

  it("two-servers: clashing `query` tools routed to the right server, the decision and audit in runs show", async () => {
    const dir = fresh();
    const { code, stdout } = await runCli(["demo", "two-servers"], { env: offline(dir) });
    expect(code).toBe(0);
    expect(stdout).toContain("the catalog has search_query and sql_query");
    expect(stdout).toMatch(/^1\s+sql\s+query\s+ok/m);
    expect(stdout).toMatch(/^1\s+search\s+query\s+ok/m);
    const runs = [...stdout.matchAll(/runs show (run_\w+)/g)].map((m) => m[1]!);
    expect(runs).toHaveLength(2);
    const fleet = path.join(ROOT, "examples/two-servers.fleet.json");
    const shown = await Promise.all(
      runs.map((id) => runCli(["--config", fleet, "runs", "show", id], { env: offline(dir) })),
    );
    // The SQL question was offered sql_query alone (with its score), the search question search_query.
    expect(shown[0]!.stdout).toMatch(/step 1: 1 tool offered: sql_query \(\d+\.\d+\)/);
    expect(shown[0]!.stdout).toMatch(/audit \(1 row.*\n\s+#\d+\s+call\s+\S+\s+sql\/query\s+ok\s+call_1/);
    expect(shown[1]!.stdout).toMatch(/step 1: 1 tool offered: search_query \(\d+\.\d+\)/);
    expect(shown[1]!.stdout).toMatch(/#\d+\s+call\s+\S+\s+search\/query\s+ok/);
  });

  it("after-sales stays the default: plain `demo` runs it", async () => {
    const { code, stdout } = await runCli(["demo"], { env: offline() });
    expect(code).toBe(0);
    expect(stdout).toContain("running the declared plan examples/after-sales.plan.yaml");
  });
});

/** Why the containerized server cannot be tried here, or undefined when it can. */
function noContainerRuntime(): string | undefined {
  try {
    execFileSync("sh", ["-c", "command -v docker"], { stdio: "ignore" });
  } catch {
    return "no container runtime: `command -v docker` finds nothing";
  }
  try {
    execFileSync("docker", ["info"], { stdio: "ignore", timeout: 10_000 });
  } catch {
    return "docker is installed but its daemon does not answer (docker info failed)";
  }
  try {
    execFileSync("docker", ["image", "inspect", "node:20-slim"], { stdio: "ignore", timeout: 10_000 });
  } catch {
    return "the node:20-slim image is not on this machine, and the tests use no network to pull it";
  }
  return undefined;
}

describe("a containerized server (docker run -i --rm as the command)", () => {
  it("serves its tools and leaves no container behind once the Switchyard closes", async (context) => {
    const reason = noContainerRuntime();
    if (reason) return context.skip(reason);
    const name = `switchyard-test-${process.pid}-${Date.now()}`;
    const yard = await Switchyard.connect({
      mcpServers: {
        summarizer: {
          command: "docker",
          args: [
            "run",
            "-i",
            "--rm",
            "--name",
            name,
            "-v",
            `${ROOT}:/repo:ro`,
            "-w",
            "/repo",
            "node:20-slim",
          ].concat(["node", "examples/servers/summarizer.mjs"]),
        },
      },
    });
    try {
      const result = await yard.callTool("summarizer_summarize", { text: "一".repeat(300) });
      expect([...result.text].length).toBeLessThanOrEqual(100);
    } finally {
      await yard.close();
    }
    const left = execFileSync("docker", ["ps", "-a", "-q", "--filter", `name=${name}`], { encoding: "utf8" });
    expect(left.trim()).toBe("");
  }, 120_000);
});
