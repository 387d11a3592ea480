// Switchyard side by side with the bare MCP SDK v2 and v1 Clients, LangChain's MultiServerMCPClient,
// the AI SDK's MCP client, and a hand-written JSON-RPC client and server (the limit), in one run.
//
//   npm run bench                                   # everything, a table on stdout
//   npm run bench -- --json bench-results.json      # and the numbers as JSON
//   npm run bench -- --only latency-stdio,cold-stdio-8 --clients sdk-v2,switchyard --quick
//
// See bench/README.md for what each scenario measures and how to read the table.
import { readFileSync } from "node:fs";
import { arch, cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadClients } from "./clients/index.js";
import { REPO } from "./paths.js";
import { formatScenario, type ScenarioResult, writeJson } from "./report.js";
import { adapterOverhead } from "./scenarios/adapters.js";
import { agentOverhead } from "./scenarios/agent.js";
import { coldStart } from "./scenarios/cold-start.js";
import type { ScenarioContext } from "./scenarios/context.js";
import { contextBudget } from "./scenarios/context-budget.js";
import { cpuPerCall } from "./scenarios/cpu.js";
import { gatewayBench } from "./scenarios/gateway.js";
import { kneeBench } from "./scenarios/knee.js";
import { latency } from "./scenarios/latency.js";
import { memory } from "./scenarios/memory.js";
import { policyDecisions } from "./scenarios/policy.js";
import { recorderCost } from "./scenarios/recorder.js";
import { routing } from "./scenarios/routing.js";
import { securityBench } from "./scenarios/security.js";
import { throughput } from "./scenarios/throughput.js";
import { viewerLoad } from "./scenarios/viewer.js";
import { HttpServerPool, stdioServers } from "./servers/servers.js";

const HTTP_SERVERS = 4;
/** The packages measured, whose versions go into the JSON. */
const PACKAGES = [
  "@modelcontextprotocol/client",
  "@modelcontextprotocol/server",
  "@modelcontextprotocol/sdk",
  "@langchain/mcp-adapters",
  "@langchain/core",
  "@ai-sdk/mcp",
  "supergateway",
  "mcp-proxy",
  "mcp-hub",
];
const IN_FLIGHT = 64;
const SECOND = 1_000;

interface Scenario {
  id: string;
  run: (context: ScenarioContext) => Promise<ScenarioResult>;
}

const SCENARIOS: Scenario[] = [
  ...[1, 4, 8].map((count) => ({
    id: `cold-stdio-${count}`,
    run: (context: ScenarioContext) =>
      coldStart(context, {
        id: `cold-stdio-${count}`,
        title: `Cold start, ${count} stdio server${count > 1 ? "s" : ""}`,
        servers: (client) => stdioServers(client.server, count),
        policy: { min: 5, max: 9, budgetMs: (count === 8 ? 60 : 40) * SECOND },
      }),
  })),
  {
    id: "cold-http-4",
    run: (context) =>
      coldStart(context, {
        id: "cold-http-4",
        title: `Cold start, ${HTTP_SERVERS} Streamable HTTP servers (already listening)`,
        servers: (client) => context.pool.servers(client.server, HTTP_SERVERS),
        policy: { min: 5, max: 15, budgetMs: 30 * SECOND },
      }),
  },
  {
    id: "latency-stdio",
    run: (context) =>
      latency(context, {
        id: "latency-stdio",
        title: "Sequential echo calls, stdio",
        server: (client) => stdioServers(client.server, 1)[0]!,
        block: 250,
        warmup: 500,
        policy: { min: 8, max: 20, budgetMs: 45 * SECOND },
      }),
  },
  ...(["stdio", "http"] as const).map((transport) => ({
    id: `cpu-${transport}`,
    run: (context: ScenarioContext) =>
      cpuPerCall(context, {
        id: `cpu-${transport}`,
        title: `Client CPU per sequential echo call, ${transport === "stdio" ? "stdio" : "Streamable HTTP"}`,
        server: (client) =>
          transport === "stdio"
            ? stdioServers(client.server, 1)[0]!
            : context.pool.servers(client.server, 1)[0]!,
        block: transport === "stdio" ? 500 : 200,
        warmup: 500,
        policy: { min: 8, max: 20, budgetMs: 45 * SECOND },
      }),
  })),
  {
    id: "latency-http",
    run: (context) =>
      latency(context, {
        id: "latency-http",
        title: "Sequential echo calls, Streamable HTTP",
        server: (client) => context.pool.servers(client.server, 1)[0]!,
        block: 100,
        warmup: 200,
        policy: { min: 8, max: 20, budgetMs: 60 * SECOND },
      }),
  },
  ...[1, 4].map((count) => ({
    id: `throughput-stdio-${count}`,
    run: (context: ScenarioContext) =>
      throughput(context, {
        id: `throughput-stdio-${count}`,
        title: `Throughput, ${IN_FLIGHT} calls in flight over ${count} stdio server${count > 1 ? "s" : ""}`,
        servers: (client) => stdioServers(client.server, count),
        inFlight: IN_FLIGHT,
        wavesPerRound: 10,
        policy: { min: 6, max: 20, budgetMs: 30 * SECOND },
      }),
  })),
  {
    id: "knee",
    run: (context) =>
      kneeBench(context, {
        id: "knee",
        title:
          "Adaptive concurrency (issue 18): the bare SDK v2, Switchyard fixed at 8 and adaptive, on the fast echo server and the knee server",
        inFlight: IN_FLIGHT,
      }),
  },
  {
    id: "memory-stdio-8",
    run: (context) =>
      memory(context, {
        id: "memory-stdio-8",
        title: "Client memory, 8 stdio servers connected",
        servers: 8,
        policy: { min: 3, max: 5, budgetMs: 45 * SECOND },
      }),
  },
  {
    id: "agent",
    run: (context) =>
      agentOverhead(context, {
        id: "agent",
        title: "Agent step overhead (model and tool time excluded)",
        policy: { min: 5, max: 9, budgetMs: 20 * SECOND },
      }),
  },
  {
    id: "context",
    run: (context) =>
      contextBudget(context, {
        id: "context",
        title:
          "Context budget (issue 13): tool offers by catalog size, prompt-prefix stability, loop overhead, a 30-step run",
        policy: { min: 3, max: 7, budgetMs: 30 * SECOND },
        // Each switchable context mechanism off in turn; the first row has them all at their defaults
        // (compaction cannot be switched off: it keeps every request within the window; the scenario
        // adds what the working record and the whole results would have cost).
        variants: [
          { label: "all mechanisms (defaults)", options: {} },
          { label: "without result handles", options: { context: { handles: false } } },
          { label: "without same-call collapse", options: { context: { collapseRepeats: false } } },
        ],
      }),
  },
  {
    id: "policy",
    run: (context) =>
      policyDecisions(context, {
        id: "policy",
        title: "Policy decisions (issue 14): one call's decision and one tool's listing, over 1,000 rules",
        rules: 1_000,
        decisions: context.quick ? 2_000 : 20_000,
      }),
  },
  {
    id: "recorder",
    run: (context) =>
      recorderCost(context, {
        id: "recorder",
        title:
          "Recorder cost per call (issue 14): Switchyard.connect(config, { store }) vs recording off, stdio",
        // Small blocks, many rounds: a burst of outside load lands on every variant alike.
        block: 50,
        warmup: 200,
        policy: { min: 20, max: 80, budgetMs: 45 * SECOND },
      }),
  },
  {
    id: "viewer",
    run: (context) =>
      viewerLoad(context, {
        id: "viewer",
        title: "The trace viewer (issue 16): switchyard ui's page for a run of 500 calls, in Chromium",
        steps: 50,
        callsPerStep: 10,
        loads: context.quick ? 3 : 15,
      }),
  },
  {
    id: "gateway",
    run: (context) =>
      gatewayBench(context, {
        id: "gateway",
        title:
          "The gateway (issue 15): Switchyard serve, supergateway, mcp-proxy and mcp-hub fronting the same stdio echo server",
        block: 100,
        warmup: 200,
        inFlight: IN_FLIGHT,
        wavesPerRound: 5,
        policy: { min: 5, max: 15, budgetMs: 60 * SECOND },
      }),
  },
  {
    id: "adapters",
    run: (context) =>
      adapterOverhead(context, {
        id: "adapters",
        title:
          "Adapter overhead per call (issue 17): switchyard/langchain and switchyard/ai-sdk vs yard.callTool, stdio",
        block: 50,
        warmup: 200,
        policy: { min: 10, max: 40, budgetMs: 30 * SECOND },
      }),
  },
  {
    id: "routing",
    run: (context) =>
      routing(context, {
        id: "routing",
        title: "Routing on the Seal-Tools catalog",
        policy: { min: 3, max: 5, budgetMs: 20 * SECOND },
      }),
  },
  {
    id: "security",
    run: (context) =>
      securityBench(context, {
        id: "security",
        title:
          "Security (issue 25): attacks caught by the trust scans, false positives on clean tools, µs per tool",
      }),
  },
];

const { values: flags } = parseArgs({
  options: {
    json: { type: "string" },
    only: { type: "string" },
    clients: { type: "string" },
    quick: { type: "boolean", default: false },
    list: { type: "boolean", default: false },
  },
});

if (flags.list) {
  console.log(SCENARIOS.map((scenario) => scenario.id).join("\n"));
  process.exit(0);
}

const only = flags.only?.split(",").filter(Boolean) ?? [];
const unknown = only.filter((id) => !SCENARIOS.some((scenario) => scenario.id === id));
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(", ")}; run with --list to see them`);
  process.exit(2);
}
const selected = SCENARIOS.filter((scenario) => only.length === 0 || only.includes(scenario.id));
const clients = await loadClients(flags.clients?.split(",").filter(Boolean) ?? []);
const log = (message: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

if (!(globalThis as { gc?: unknown }).gc)
  log("running without --expose-gc: no collection between measurements");
const started = performance.now();
const loadAtStart = loadavg();
const pool = await HttpServerPool.start(HTTP_SERVERS);
// A bench stopped with Ctrl-C still stops its HTTP servers; stdio servers end with their pipes.
const stop = () => {
  void pool.close().finally(() => process.exit(130));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

const results: ScenarioResult[] = [];
try {
  for (const scenario of selected) {
    log(`${scenario.id} …`);
    const scenarioStarted = performance.now();
    const context: ScenarioContext = {
      clients: clients.filter((client) => !client.only || client.only.includes(scenario.id)),
      pool,
      quick: flags.quick,
      log,
    };
    try {
      results.push(await scenario.run(context));
    } catch (error) {
      results.push({
        id: scenario.id,
        title: scenario.id,
        unit: "ms",
        method: "",
        rows: [],
        skipped: `failed: ${(error as Error).stack ?? error}`,
      });
    }
    log(`${scenario.id} took ${((performance.now() - scenarioStarted) / SECOND).toFixed(0)} s`);
    console.log(`\n${formatScenario(results.at(-1)!)}`);
  }
} finally {
  await pool.close();
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function versionOf(name: string): string {
  try {
    return (
      JSON.parse(readFileSync(join(REPO, "node_modules", name, "package.json"), "utf8")) as {
        version: string;
      }
    ).version;
  } catch {
    return "?";
  }
}

const meta = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform} ${release()} ${arch()}`,
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
  memoryGB: Math.round(totalmem() / 1024 ** 3),
  /** 1-, 5- and 15-minute load averages: above the CPU count, other work was competing. */
  loadAverage: { start: loadAtStart.map(round2), end: loadavg().map(round2) },
  packages: Object.fromEntries(PACKAGES.map((name) => [name, versionOf(name)])),
  quick: flags.quick,
  durationS: Math.round((performance.now() - started) / SECOND),
  clients: clients.map(({ id, label, server }) => ({ id, label, server })),
};
console.log(
  `\n${selected.length} scenarios in ${meta.durationS} s on ${meta.cpus}, Node ${meta.node}; load average ${meta.loadAverage.start[0]} at the start, ${meta.loadAverage.end[0]} at the end`,
);
if (flags.json) {
  writeJson(flags.json, meta, results);
  log(`wrote ${flags.json}`);
}
