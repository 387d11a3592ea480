// `npm run conformance`: the official MCP conformance suite's client scenarios against Switchyard
// (conformance/switchyard-client.mjs, public API only) and the bare MCP SDK (conformance/sdk-client.mjs).
// The suite's runner needs Node 22; it runs on the pinned node@NODE22 npm package, installed once into
// node_modules/.cache (from the npm registry). The clients run on this Node (the project's runtime).
// Everything else is loopback: the suite starts one local test server per scenario.
//
//   npm run conformance [-- --check] [--client switchyard|sdk] [--scenario name …] [--jobs n]
//   npm run conformance -- --server [--check] [--target gateway|everything] [--scenario name …]
//
// --server runs the suite's server scenarios instead (conformance/server.mjs): against Switchyard's
// gateway (`switchyard serve --http`) fronting server-everything, and against server-everything itself.
//
// --check exits 1 when a scenario fails for Switchyard that conformance/expected-failures.json does
// not list (entries that now pass are reported, and do not fail the run; a reason that starts with
// "flaky:" marks a scenario that passes on some runs, and is not reported when it does).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const NODE22 = "22.23.3";
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const cache = join(root, "node_modules", ".cache", "switchyard-conformance");
const suiteDir = join(root, "node_modules", "@modelcontextprotocol", "conformance");
const suiteBin = join(suiteDir, "dist", "index.js");
const suiteVersion = JSON.parse(readFileSync(join(suiteDir, "package.json"), "utf8")).version;

const CLIENTS = {
  switchyard: join(here, "switchyard-client.mjs"),
  sdk: join(here, "sdk-client.mjs"),
};

function parseArgs(argv) {
  const options = { check: false, clients: [], scenarios: [], jobs: 2, timeoutMs: 30_000 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) usage(`${arg} needs a value`);
      return next;
    };
    if (arg === "--check") options.check = true;
    else if (arg === "--client") options.clients.push(value());
    else if (arg === "--scenario") options.scenarios.push(value());
    else if (arg === "--jobs") options.jobs = Number(value());
    else if (arg === "--timeout") options.timeoutMs = Number(value());
    else usage(`unknown option ${arg}`);
  }
  for (const client of options.clients) if (!(client in CLIENTS)) usage(`unknown client ${client}`);
  if (options.clients.length === 0) options.clients = Object.keys(CLIENTS);
  if (!Number.isInteger(options.jobs) || options.jobs < 1) usage("--jobs needs a positive integer");
  return options;
}

function usage(message) {
  console.error(`conformance: ${message}`);
  console.error(
    "usage: npm run conformance -- [--check] [--client switchyard|sdk] [--scenario name] [--jobs n] [--timeout ms]",
  );
  process.exit(2);
}

/** The Node 22 binary for the suite's runner, installed into the cache on first use. */
function node22() {
  const prefix = join(cache, `node-${NODE22}`);
  const binary = join(prefix, "node_modules", "node", "bin", "node");
  if (!existsSync(binary)) {
    console.error(
      `conformance: installing node@${NODE22} (npm package) into ${prefix} for the suite's runner`,
    );
    mkdirSync(prefix, { recursive: true });
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const install = spawnSync(
      npm,
      [
        "install",
        "--prefix",
        prefix,
        "--no-save",
        "--no-package-lock",
        "--no-audit",
        "--no-fund",
        `node@${NODE22}`,
      ],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    if (install.status !== 0 || !existsSync(binary)) {
      console.error(`conformance: could not install node@${NODE22}; the suite needs Node >= 22`);
      process.exit(2);
    }
  }
  return binary;
}

function listScenarios(node) {
  const listed = spawnSync(node, [suiteBin, "list"], { encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`conformance list failed: ${listed.stderr}`);
  const lines = listed.stdout.split("\n");
  const start = lines.findIndex((line) => line.startsWith("Client scenarios"));
  const scenarios = [];
  for (const line of lines.slice(start + 1)) {
    const match = /^\s+- (\S+)/.exec(line);
    if (match) scenarios.push(match[1]);
    else if (line.trim() !== "") break;
  }
  return scenarios;
}

function findChecks(dir) {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === "checks.json") return path;
    if (entry.isDirectory()) {
      const found = findChecks(path);
      if (found) return found;
    }
  }
  return undefined;
}

/** One scenario against one client: the suite's exit code and its checks. */
function runOne(node, client, scenario, timeoutMs) {
  const out = join(cache, "results", client, scenario.replaceAll("/", "_"));
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const command = `${process.execPath} ${CLIENTS[client]}`;
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(
      node,
      [
        suiteBin,
        "client",
        "--command",
        command,
        "--scenario",
        scenario,
        "--timeout",
        String(timeoutMs),
        "-o",
        out,
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } },
    );
    let log = "";
    child.stdout.on("data", (chunk) => {
      log += chunk;
    });
    child.stderr.on("data", (chunk) => {
      log += chunk;
    });
    // The suite bounds the client by --timeout; this bounds the suite itself.
    const guard = setTimeout(() => child.kill("SIGKILL"), timeoutMs + 30_000);
    child.on("close", (code) => {
      clearTimeout(guard);
      writeFileSync(join(out, "suite.log"), log);
      const file = findChecks(out);
      const checks = file ? JSON.parse(readFileSync(file, "utf8")) : [];
      const counted = checks.filter((c) => ["SUCCESS", "FAILURE", "WARNING"].includes(c.status));
      const passed = counted.filter((c) => c.status === "SUCCESS").length;
      const failures = counted
        .filter((c) => c.status !== "SUCCESS")
        .map((c) => `${c.id}: ${c.errorMessage ?? c.details?.message ?? c.description ?? c.status}`);
      done({
        client,
        scenario,
        exitCode: code,
        passed,
        total: counted.length,
        ok: code === 0 && counted.length > 0 && passed === counted.length,
        failures,
        ms: Math.round(performance.now() - started),
      });
    });
  });
}

async function pool(tasks, jobs) {
  const results = [];
  let next = 0;
  async function worker() {
    while (next < tasks.length) {
      const task = tasks[next++];
      results.push(await task());
    }
  }
  await Promise.all(Array.from({ length: Math.min(jobs, tasks.length) }, worker));
  return results;
}

if (process.argv.includes("--server")) {
  const { runServerMode } = await import("./server.mjs");
  process.exit(
    await runServerMode(
      process.argv.slice(2).filter((arg) => arg !== "--server"),
      { node22, suiteBin, suiteVersion, NODE22, cache, root, here },
    ),
  );
}

const options = parseArgs(process.argv.slice(2));
const started = performance.now();
const node = node22();
const all = listScenarios(node);
for (const scenario of options.scenarios) if (!all.includes(scenario)) usage(`unknown scenario ${scenario}`);
const scenarios = options.scenarios.length > 0 ? options.scenarios : all;
console.log(
  `MCP conformance suite ${suiteVersion} (runner on Node ${NODE22}), clients on Node ${process.versions.node}: ` +
    `${scenarios.length} client scenarios × ${options.clients.join(", ")}`,
);

const tasks = [];
for (const scenario of scenarios)
  for (const client of options.clients) tasks.push(() => runOne(node, client, scenario, options.timeoutMs));
const results = await pool(tasks, options.jobs);
const at = (client, scenario) => results.find((r) => r.client === client && r.scenario === scenario);

const width = Math.max(8, ...scenarios.map((s) => s.length));
console.log(`\n${"scenario".padEnd(width)}  ${options.clients.map((c) => c.padStart(12)).join("  ")}`);
for (const scenario of scenarios) {
  const cells = options.clients.map((client) => {
    const r = at(client, scenario);
    return `${r.ok ? "ok  " : "FAIL"} ${`${r.passed}/${r.total}`.padStart(7)}`;
  });
  console.log(`${scenario.padEnd(width)}  ${cells.map((c) => c.padStart(12)).join("  ")}`);
}
const totals = {};
for (const client of options.clients) {
  const mine = results.filter((r) => r.client === client);
  totals[client] = {
    checksPassed: mine.reduce((n, r) => n + r.passed, 0),
    checks: mine.reduce((n, r) => n + r.total, 0),
    scenariosPassed: mine.filter((r) => r.ok).length,
    scenarios: mine.length,
  };
}
const cells = options.clients.map((c) => `${totals[c].checksPassed}/${totals[c].checks}`.padStart(12));
console.log(`${"checks".padEnd(width)}  ${cells.join("  ")}`);
const scen = options.clients.map((c) => `${totals[c].scenariosPassed}/${totals[c].scenarios}`.padStart(12));
console.log(`${"scenarios".padEnd(width)}  ${scen.join("  ")}`);
const wallMs = Math.round(performance.now() - started);
console.log(`\nwall time ${(wallMs / 1000).toFixed(1)} s; logs and checks in ${join(cache, "results")}`);
writeFileSync(
  join(cache, "last-run.json"),
  `${JSON.stringify({ suiteVersion, node22: NODE22, node: process.versions.node, wallMs, totals, results }, null, 2)}\n`,
);

if (options.check) {
  const expected = JSON.parse(readFileSync(join(here, "expected-failures.json"), "utf8")).switchyard ?? {};
  const mine = results.filter((r) => r.client === "switchyard");
  if (mine.length === 0) usage("--check needs the switchyard client");
  const unexpected = mine.filter((r) => !r.ok && !(r.scenario in expected));
  const stale = mine.filter(
    (r) => r.ok && r.scenario in expected && !expected[r.scenario].startsWith("flaky:"),
  );
  for (const r of stale)
    console.log(`check: ${r.scenario} passes now: remove it from expected-failures.json`);
  for (const r of unexpected) {
    console.log(`check: ${r.scenario} fails and is not an expected failure:`);
    for (const failure of r.failures.length > 0 ? r.failures : [`suite exit code ${r.exitCode}`])
      console.log(`  ${failure}`);
  }
  console.log(
    unexpected.length === 0
      ? `check: ok (${mine.filter((r) => !r.ok).length} expected failures)`
      : `check: ${unexpected.length} unexpected failure(s)`,
  );
  process.exit(unexpected.length === 0 ? 0 : 1);
}
