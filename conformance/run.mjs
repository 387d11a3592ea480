// `npm run conformance`: the official MCP conformance suite's client scenarios against Switchyard
// (conformance/switchyard-client.mjs, public API only) and the bare MCP SDK (conformance/sdk-client.mjs).
// The suite (@modelcontextprotocol/conformance@SUITE) and the Node 22 its runner needs (the node@NODE22
// npm package) are installed once from the npm registry into the cache folder
// (node_modules/.cache/switchyard-conformance, or $SWITCHYARD_CONFORMANCE_CACHE); later runs are offline.
// The clients run on this Node (the project's runtime). Everything else is loopback: the suite starts
// one local test server per scenario.
//
//   npm run conformance [-- --check] [--client switchyard|sdk] [--scenario name …] [--era e …] [--jobs n]
//   npm run conformance -- --server [--check] [--target gateway|everything] [--scenario name …]
//
// Each client scenario runs once per protocol era it belongs to (--spec-version 2025-11-25 and
// 2026-07-28, the two eras Switchyard speaks); a scenario of neither era (the 2025-03-26 back-compat
// ones, the extensions) runs once at its own version. Rows are `scenario` or `scenario@era`.
//
// --server runs the suite's server scenarios instead (conformance/server.mjs): against Switchyard's
// gateway (`switchyard serve --http`) fronting server-everything, and against server-everything itself.
//
// --check exits 1 when a scenario fails for Switchyard that conformance/expected-failures.json does
// not list, or that passes for the bare SDK when it runs too (entries that now pass are reported, and do
// not fail the run; a reason that starts with "flaky:" marks a scenario that passes on some runs, and is
// not reported when it does). An entry names a row (`scenario@era`) or a scenario (every era of it).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const NODE22 = "22.23.3";
const SUITE = "0.2.0-alpha.12";
const ERAS = ["2025-11-25", "2026-07-28"];
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const cache = process.env.SWITCHYARD_CONFORMANCE_CACHE
  ? resolve(process.env.SWITCHYARD_CONFORMANCE_CACHE)
  : join(root, "node_modules", ".cache", "switchyard-conformance");
const suiteVersion = SUITE;

const CLIENTS = {
  switchyard: join(here, "switchyard-client.mjs"),
  sdk: join(here, "sdk-client.mjs"),
};

function parseArgs(argv) {
  const options = { check: false, clients: [], scenarios: [], eras: [], jobs: 2, timeoutMs: 30_000 };
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
    else if (arg === "--era") options.eras.push(value());
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
    "usage: npm run conformance -- [--check] [--client switchyard|sdk] [--scenario name] [--era 2025-11-25|2026-07-28] [--jobs n] [--timeout ms]",
  );
  process.exit(2);
}

/** `spec` from the npm registry into `prefix` (once), for the file `needs` under it. */
function installOnce(prefix, spec, needs, why) {
  const file = join(prefix, "node_modules", ...needs);
  if (existsSync(file)) return file;
  console.error(`conformance: installing ${spec} (npm package) into ${prefix} ${why}`);
  mkdirSync(prefix, { recursive: true });
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const install = spawnSync(
    npm,
    ["install", "--prefix", prefix, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", spec],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  if (install.status !== 0 || !existsSync(file)) {
    console.error(`conformance: could not install ${spec} into ${prefix}`);
    process.exit(2);
  }
  return file;
}

/** The Node 22 binary for the suite's runner, installed into the cache on first use. */
function node22() {
  return installOnce(
    join(cache, `node-${NODE22}`),
    `node@${NODE22}`,
    ["node", "bin", "node"],
    "for the suite's runner (it needs Node >= 22)",
  );
}

/** The suite's entry, installed into the cache on first use. */
function suite() {
  return installOnce(
    join(cache, `suite-${SUITE}`),
    `@modelcontextprotocol/conformance@${SUITE}`,
    ["@modelcontextprotocol", "conformance", "dist", "index.js"],
    "(the conformance suite)",
  );
}

/** Client scenario names the suite lists, at one spec version or all of them. */
function listScenarios(node, suiteBin, era) {
  const args = [suiteBin, "list", "--client", ...(era ? ["--spec-version", era] : [])];
  const listed = spawnSync(node, args, { encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`conformance list failed: ${listed.stderr}`);
  return [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
}

/** Every run: each scenario at each era it belongs to, the others once at their own version. */
function listRuns(node, suiteBin) {
  const byEra = new Map(ERAS.map((era) => [era, listScenarios(node, suiteBin, era)]));
  const runs = [];
  for (const scenario of listScenarios(node, suiteBin)) {
    const eras = ERAS.filter((era) => byEra.get(era).includes(scenario));
    if (eras.length === 0) runs.push({ scenario, era: undefined, row: scenario });
    for (const era of eras) runs.push({ scenario, era, row: `${scenario}@${era}` });
  }
  return runs;
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
function runOne(node, suiteBin, client, { scenario, era, row }, timeoutMs) {
  const out = join(cache, "results", client, row.replaceAll("/", "_"));
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
        ...(era ? ["--spec-version", era] : []),
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
        era,
        row,
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
      { node22, suiteBin: suite(), suiteVersion, NODE22, cache, root, here },
    ),
  );
}

const options = parseArgs(process.argv.slice(2));
const started = performance.now();
const node = node22();
const suiteBin = suite();
const all = listRuns(node, suiteBin);
const known = new Set(all.map((run) => run.scenario));
for (const scenario of options.scenarios) if (!known.has(scenario)) usage(`unknown scenario ${scenario}`);
for (const era of options.eras)
  if (!ERAS.includes(era)) usage(`unknown era ${era}; known: ${ERAS.join(", ")}`);
const runs = all.filter(
  (run) =>
    (options.scenarios.length === 0 || options.scenarios.includes(run.scenario)) &&
    (options.eras.length === 0 || options.eras.includes(run.era)),
);
if (runs.length === 0) usage("no scenario of those is in that era");
console.log(
  `MCP conformance suite ${suiteVersion} (runner on Node ${NODE22}), clients on Node ${process.versions.node}: ` +
    `${runs.length} client scenario runs (${ERAS.join(" and ")} eras) × ${options.clients.join(", ")}`,
);

const tasks = [];
for (const run of runs)
  for (const client of options.clients)
    tasks.push(() => runOne(node, suiteBin, client, run, options.timeoutMs));
const results = await pool(tasks, options.jobs);
const at = (client, row) => results.find((r) => r.client === client && r.row === row);

const width = Math.max(8, ...runs.map((run) => run.row.length));
console.log(`\n${"scenario".padEnd(width)}  ${options.clients.map((c) => c.padStart(12)).join("  ")}`);
for (const { row } of runs) {
  const cells = options.clients.map((client) => {
    const r = at(client, row);
    return `${r.ok ? "ok  " : "FAIL"} ${`${r.passed}/${r.total}`.padStart(7)}`;
  });
  console.log(`${row.padEnd(width)}  ${cells.map((c) => c.padStart(12)).join("  ")}`);
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
  `${JSON.stringify({ suiteVersion, eras: ERAS, node22: NODE22, node: process.versions.node, wallMs, totals, results }, null, 2)}\n`,
);

if (options.check) {
  const expected = JSON.parse(readFileSync(join(here, "expected-failures.json"), "utf8")).switchyard ?? {};
  const mine = results.filter((r) => r.client === "switchyard");
  if (mine.length === 0) usage("--check needs the switchyard client");
  // An entry names a row (`scenario@era`) or the scenario in every era.
  const reason = (r) => expected[r.row] ?? expected[r.scenario];
  // With the bare SDK run too: a row that fails only for Switchyard is never expected.
  const onlyMine = (r) => at("sdk", r.row)?.ok === true;
  const unexpected = mine.filter((r) => !r.ok && (reason(r) === undefined || onlyMine(r)));
  const stale = mine.filter((r) => r.ok && reason(r) !== undefined && !reason(r).startsWith("flaky:"));
  for (const r of stale) console.log(`check: ${r.row} passes now: remove it from expected-failures.json`);
  for (const r of unexpected) {
    console.log(
      onlyMine(r)
        ? `check: ${r.row} fails for Switchyard and passes for the bare SDK:`
        : `check: ${r.row} fails and is not an expected failure:`,
    );
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
