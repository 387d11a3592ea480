// `npm run conformance -- --server`: the official MCP conformance suite's SERVER scenarios, run against
// two targets side by side on loopback:
//   gateway     `switchyard serve --http <port>` (dist/cli/main.js) fronting server-everything over stdio,
//               its tools, resources and prompts under their own names (`namespace: false`);
//   everything  @modelcontextprotocol/server-everything itself, over its own Streamable HTTP.
// The suite's runner (Node 22) connects to each as a client and scores what it sees in checks.
//
//   npm run conformance -- --server [--check] [--target gateway|everything] [--scenario name …]
//
// --check exits 1 when the gateway fails a scenario that conformance/expected-failures.json does not
// list under "server" (and prints the checks each target passed).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

const TARGETS = ["gateway", "everything"];
const LISTEN_TIMEOUT_MS = 30_000;

function parse(argv) {
  const options = { check: false, targets: [], scenarios: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) fail(`${arg} needs a value`);
      return next;
    };
    if (arg === "--check") options.check = true;
    else if (arg === "--target") options.targets.push(value());
    else if (arg === "--scenario") options.scenarios.push(value());
    else fail(`unknown option ${arg} (server mode takes --check, --target, --scenario)`);
  }
  for (const target of options.targets)
    if (!TARGETS.includes(target)) fail(`unknown target ${target}; known: ${TARGETS.join(", ")}`);
  if (options.targets.length === 0) options.targets = [...TARGETS];
  return options;
}

function fail(message) {
  console.error(`conformance: ${message}`);
  console.error(
    "usage: npm run conformance -- --server [--check] [--target gateway|everything] [--scenario name]",
  );
  process.exit(2);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Start a target and wait until its URL answers HTTP; resolves with `{ url, stop, log }`. */
async function startTarget(target, env) {
  const port = await freePort();
  const everything = join(
    env.root,
    "node_modules",
    "@modelcontextprotocol",
    "server-everything",
    "dist",
    "index.js",
  );
  let command;
  if (target === "everything") {
    command = { args: [everything, "streamableHttp"], env: { PORT: String(port) } };
  } else {
    const dir = join(env.cache, "server");
    mkdirSync(dir, { recursive: true });
    const config = join(dir, "gateway.config.json");
    writeFileSync(
      config,
      `${JSON.stringify(
        {
          mcpServers: {
            everything: { command: process.execPath, args: [everything, "stdio"], namespace: false },
          },
          store: false,
        },
        null,
        2,
      )}\n`,
    );
    command = {
      args: [join(env.root, "dist", "cli", "main.js"), "serve", "--http", String(port), "--config", config],
      env: {},
    };
  }
  const child = spawn(process.execPath, command.args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...command.env },
  });
  let log = "";
  child.stdout.on("data", (chunk) => {
    log += chunk;
  });
  child.stderr.on("data", (chunk) => {
    log += chunk;
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill("SIGKILL"), 2_000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill("SIGTERM");
    });
  const deadline = Date.now() + LISTEN_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${target} exited (code ${child.exitCode}) before listening:\n${log}`);
    try {
      await fetch(url, { method: "GET", signal: AbortSignal.timeout(1_000) });
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${target} did not answer on ${url} within ${LISTEN_TIMEOUT_MS / 1000} s:\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return { url, stop, log: () => log };
}

/** The suite's server mode against one URL: its per-scenario checks, by scenario. */
function runSuite(env, url, scenario, out) {
  const args = [env.suiteBin, "server", "--url", url, "-o", out];
  if (scenario) args.push("--scenario", scenario);
  return new Promise((resolve) => {
    const child = spawn(env.node, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    let log = "";
    child.stdout.on("data", (chunk) => {
      log += chunk;
    });
    child.stderr.on("data", (chunk) => {
      log += chunk;
    });
    const guard = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("close", (code) => {
      clearTimeout(guard);
      writeFileSync(join(out, `suite${scenario ? `-${scenario}` : ""}.log`), log);
      resolve(code);
    });
  });
}

/** `server-<scenario>-<ISO time>` folders, each with a checks.json. */
function readResults(out) {
  const results = new Map();
  for (const entry of readdirSync(out, { withFileTypes: true })) {
    const match = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry.name);
    if (!entry.isDirectory() || !match) continue;
    const file = join(out, entry.name, "checks.json");
    const checks = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : [];
    const counted = checks.filter((c) => ["SUCCESS", "FAILURE", "WARNING"].includes(c.status));
    const passed = counted.filter((c) => c.status === "SUCCESS").length;
    results.set(match[1], {
      passed,
      total: counted.length,
      ok: counted.length > 0 && passed === counted.length,
      failures: counted
        .filter((c) => c.status !== "SUCCESS")
        .map((c) => `${c.id}: ${c.errorMessage ?? c.description ?? c.status}`),
    });
  }
  return results;
}

export async function runServerMode(argv, env) {
  const options = parse(argv);
  const started = performance.now();
  const node = env.node22();
  const suite = { ...env, node };
  console.log(
    `MCP conformance suite ${env.suiteVersion} (runner on Node ${env.NODE22}), server scenarios × ${options.targets.join(", ")}`,
  );
  const byTarget = {};
  for (const target of options.targets) {
    const out = join(env.cache, "results", "server", target);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const running = await startTarget(target, env);
    try {
      for (const scenario of options.scenarios.length > 0 ? options.scenarios : [undefined])
        await runSuite(suite, running.url, scenario, out);
    } finally {
      await running.stop();
      writeFileSync(join(out, "target.log"), running.log());
    }
    byTarget[target] = readResults(out);
  }
  const scenarios = [...new Set(Object.values(byTarget).flatMap((results) => [...results.keys()]))];
  const width = Math.max(8, ...scenarios.map((s) => s.length));
  const cell = (r) =>
    (r ? `${r.ok ? "ok  " : "FAIL"} ${`${r.passed}/${r.total}`.padStart(5)}` : "-").padStart(12);
  console.log(`\n${"scenario".padEnd(width)}  ${options.targets.map((t) => t.padStart(12)).join("  ")}`);
  for (const scenario of scenarios)
    console.log(
      `${scenario.padEnd(width)}  ${options.targets.map((t) => cell(byTarget[t].get(scenario))).join("  ")}`,
    );
  const totals = {};
  for (const target of options.targets) {
    const results = [...byTarget[target].values()];
    totals[target] = {
      checksPassed: results.reduce((n, r) => n + r.passed, 0),
      checks: results.reduce((n, r) => n + r.total, 0),
      scenariosPassed: results.filter((r) => r.ok).length,
      scenarios: results.length,
    };
  }
  const line = (label, key, of) =>
    console.log(
      `${label.padEnd(width)}  ${options.targets.map((t) => `${totals[t][key]}/${totals[t][of]}`.padStart(12)).join("  ")}`,
    );
  line("checks", "checksPassed", "checks");
  line("scenarios", "scenariosPassed", "scenarios");
  const wallMs = Math.round(performance.now() - started);
  console.log(
    `\nwall time ${(wallMs / 1000).toFixed(1)} s; logs and checks in ${join(env.cache, "results", "server")}`,
  );
  writeFileSync(
    join(env.cache, "last-server-run.json"),
    `${JSON.stringify(
      {
        suiteVersion: env.suiteVersion,
        node22: env.NODE22,
        wallMs,
        totals,
        results: Object.fromEntries(
          Object.entries(byTarget).map(([target, results]) => [target, Object.fromEntries(results)]),
        ),
      },
      null,
      2,
    )}\n`,
  );
  if (!options.check) return 0;

  const gateway = byTarget.gateway;
  if (!gateway) fail("--check needs the gateway target");
  const expected = JSON.parse(readFileSync(join(env.here, "expected-failures.json"), "utf8")).server ?? {};
  const unexpected = [...gateway].filter(([scenario, r]) => !r.ok && !(scenario in expected));
  for (const [scenario, r] of [...gateway].filter(([scenario, r]) => r.ok && scenario in expected))
    console.log(
      `check: ${scenario} passes now (${r.passed}/${r.total}): remove it from expected-failures.json`,
    );
  for (const [scenario, r] of unexpected) {
    console.log(`check: ${scenario} fails on the gateway and is not an expected failure:`);
    for (const failure of r.failures) console.log(`  ${failure}`);
  }
  if (totals.everything !== undefined)
    console.log(
      `check: checks passed: the gateway ${totals.gateway.checksPassed}, server-everything ${totals.everything.checksPassed}`,
    );
  const ok = unexpected.length === 0;
  console.log(
    ok
      ? `check: ok (${[...gateway.values()].filter((r) => !r.ok).length} expected failures)`
      : `check: ${unexpected.length} unexpected failure(s)`,
  );
  return ok ? 0 : 1;
}
