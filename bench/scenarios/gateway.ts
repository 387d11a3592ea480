// The gateway (issue 15): Switchyard's `switchyard serve --http` side by side with the gateways a user
// would pick instead — supergateway, mcp-proxy, mcp-hub (npm, pinned devDependencies) — each its own
// process fronting the same stdio echo server (its own copy), and the same server reached directly.
// One client for all: the bare MCP SDK v2 Client over Streamable HTTP (2025-11-25 sessions, which every
// gateway serves; Switchyard also at 2026-07-28, stateless), and over stdio to `switchyard serve` as a
// host launches it (compared with the echo server launched directly). Measured, clients taking turns each round:
// sequential calls (p50, p99, and the p50 added over a direct connection), waves of 64 calls in flight
// (calls/s), and each gateway process's RSS after the load (its own process: the echo server is not counted).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { REPO } from "../paths.js";
import type { Row, ScenarioResult } from "../report.js";
import { SDK_SERVER } from "../servers/servers.js";
import { median, percentile, type RoundPolicy, rotate, runRounds } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

export interface GatewayBenchOptions {
  id: string;
  title: string;
  /** Sequential calls per target per round, and before timing starts. */
  block: number;
  warmup: number;
  inFlight: number;
  wavesPerRound: number;
  policy: RoundPolicy;
}

const ECHO = [SDK_SERVER, "--tools", "echo"];
const READY_TIMEOUT_MS = 30_000;
const MB = 1024 * 1024;

/** The CLI as the package ships it (`npm run bench` builds it first). */
function switchyardCli(): string {
  return join(REPO, "dist/cli/main.js");
}

interface Target {
  id: string;
  label: string;
  /** Start the gateway process on `port` (none: a direct connection). */
  start?: (port: number, dir: string) => string[];
  /** The client's connection, given the port. */
  transport: (port: number) => Transport;
  /** The client's version negotiation (2026-07-28 with `auto`). */
  auto?: boolean;
  /** A gateway, compared with the others (not a direct connection). */
  peer?: boolean;
  /** A gateway the client launches itself over stdio (no `start`): its process is the transport's. */
  stdioGateway?: boolean;
}

function configFile(dir: string, name: string, config: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

const http = (port: number, path = "/mcp") =>
  new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}${path}`));

function targets(directHttpUrl: string, dir: string): Target[] {
  const config = (maxConcurrency?: number) =>
    configFile(dir, `switchyard-${maxConcurrency ?? "default"}.json`, {
      mcpServers: {
        echo: {
          command: process.execPath,
          args: ECHO,
          namespace: false,
          ...(maxConcurrency ? { maxConcurrency } : {}),
        },
      },
      store: false,
    });
  const switchyard = (maxConcurrency?: number) => (port: number) => [
    switchyardCli(),
    "--config",
    config(maxConcurrency),
    "serve",
    "--http",
    String(port),
  ];
  return [
    {
      id: "direct-stdio",
      label: "direct, stdio (no gateway)",
      transport: () => new StdioClientTransport({ command: process.execPath, args: ECHO, stderr: "ignore" }),
    },
    {
      id: "direct-http",
      label: "direct, Streamable HTTP (no gateway)",
      transport: () => new StreamableHTTPClientTransport(new URL(directHttpUrl)),
    },
    {
      id: "switchyard-stdio",
      label: "Switchyard serve (stdio)",
      stdioGateway: true,
      transport: () =>
        new StdioClientTransport({
          command: process.execPath,
          args: [switchyardCli(), "--config", config(), "serve", "--stdio"],
          cwd: dir,
          stderr: "ignore",
        }),
    },
    { id: "switchyard", label: "Switchyard serve", start: switchyard(), transport: (port) => http(port) },
    {
      id: "switchyard-2026",
      label: "Switchyard serve, 2026-07-28",
      start: switchyard(),
      transport: (port) => http(port),
      auto: true,
    },
    {
      id: "switchyard-mc64",
      label: "Switchyard serve, maxConcurrency 64",
      start: switchyard(64),
      transport: (port) => http(port),
    },
    {
      id: "supergateway",
      label: "supergateway (stateful)",
      peer: true,
      start: (port) => [
        join(REPO, "node_modules/supergateway/dist/index.js"),
        "--stdio",
        [process.execPath, ...ECHO].map((part) => JSON.stringify(part)).join(" "),
        "--outputTransport",
        "streamableHttp",
        "--stateful",
        "--port",
        String(port),
        "--logLevel",
        "none",
      ],
      transport: (port) => http(port),
    },
    {
      id: "mcp-proxy",
      label: "mcp-proxy",
      peer: true,
      start: (port) => [
        join(REPO, "node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs"),
        "--port",
        String(port),
        "--host",
        "127.0.0.1",
        "--server",
        "stream",
        "--",
        process.execPath,
        ...ECHO,
      ],
      transport: (port) => http(port),
    },
    {
      id: "mcp-hub",
      label: "mcp-hub (legacy SSE)",
      peer: true,
      start: (port, dir) => [
        join(REPO, "node_modules/mcp-hub/dist/cli.js"),
        "--port",
        String(port),
        "--config",
        configFile(dir, "mcp-hub.json", { mcpServers: { echo: { command: process.execPath, args: ECHO } } }),
      ],
      // mcp-hub serves its MCP endpoint over the legacy HTTP+SSE transport only (GET /mcp, POST /messages).
      transport: (port) => new SSEClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
    },
  ];
}

/** The process of a target's gateway, if it has one: started here, or launched by its stdio transport. */
function gatewayPid(target: Target, child: ChildProcess | undefined, transport: Transport): { pid?: number } {
  const pid = child?.pid ?? (target.stdioGateway ? (transport as StdioClientTransport).pid : undefined);
  return pid === undefined || pid === null ? {} : { pid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Resident set of one process, from /proc (Linux). */
function rssMB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? (Number(kb) * 1024) / MB : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Process groups of the gateways running now. The runner exits on Ctrl-C or SIGTERM without waiting for
 * this scenario's own cleanup, and a gateway in a group of its own would outlive it: killed on exit.
 */
const groups = new Set<number>();
process.on("exit", () => {
  for (const group of groups) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** Stop a gateway and everything it started: its process group, SIGTERM then SIGKILL. */
function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
    return Promise.resolve();
  const pid = child.pid;
  return new Promise((resolve) => {
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill("SIGKILL"), 2_000);
    child.once("exit", () => {
      clearTimeout(timer);
      setTimeout(() => {
        kill("SIGKILL"); // what it started and left behind
        groups.delete(pid);
      }, 100).unref();
      resolve();
    });
    kill("SIGTERM");
  });
}

interface Running {
  target: Target;
  child?: ChildProcess;
  /** The gateway's process, whose RSS is measured: the started one, or a stdio gateway's. */
  pid?: number;
  client: Client;
  tool: string;
  call: (text: string) => Promise<unknown>;
  revision: string;
  stderr: () => string;
}

async function open(target: Target, dir: string): Promise<Running> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let stderr = "";
  if (target.start) {
    child = spawn(process.execPath, target.start(port, dir), {
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
      cwd: dir,
    });
    if (child.pid !== undefined) groups.add(child.pid);
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4_000);
    });
  }
  const deadline = performance.now() + READY_TIMEOUT_MS;
  for (;;) {
    const client = new Client(
      { name: "bench", version: "0" },
      target.auto ? { versionNegotiation: { mode: "auto" } } : {},
    );
    try {
      const transport = target.transport(port);
      await client.connect(transport);
      const { tools } = await client.listTools();
      const tool = tools.find((candidate) => /echo$/.test(candidate.name))?.name;
      if (!tool) throw new Error(`no echo tool among ${tools.map((t) => t.name).join(", ")}`);
      return {
        target,
        ...(child ? { child } : {}),
        ...gatewayPid(target, child, transport),
        client,
        tool,
        call: (text) => client.callTool({ name: tool, arguments: { text } }),
        revision: client.getNegotiatedProtocolVersion() ?? "?",
        stderr: () => stderr,
      };
    } catch (error) {
      await client.close().catch(() => {});
      if (child && child.exitCode !== null)
        throw new Error(
          `${target.id} exited (code ${child.exitCode}): ${stderr.trim().split("\n").slice(-3).join(" | ")}`,
        );
      if (performance.now() > deadline) {
        if (child) await stopGroup(child);
        throw new Error(
          `${target.id} did not serve in ${READY_TIMEOUT_MS / 1000} s: ${(error as Error).message}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

export async function gatewayBench(
  context: ScenarioContext,
  options: GatewayBenchOptions,
): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-gateway-"));
  const direct = context.pool.servers("sdk", 1)[0]!;
  const all = targets(direct.transport === "http" ? direct.url : "", dir);
  const running = new Map<string, Running>();
  const errors = new Map<string, string>();
  const latency = new Map<string, number[]>(all.map((target) => [target.id, []]));
  const waves = new Map<string, number[]>(all.map((target) => [target.id, []]));
  const rss = new Map<string, number[]>(all.map((target) => [target.id, []]));
  try {
    for (const target of all) {
      try {
        const opened = await open(target, dir);
        running.set(target.id, opened);
        for (let i = 0; i < options.warmup; i += 1) await opened.call("warm");
      } catch (error) {
        errors.set(target.id, (error as Error).message);
      }
    }
    const count = await runRounds(rounds(context, options.policy), async (round) => {
      for (const target of rotate(all, round)) {
        const opened = running.get(target.id);
        if (!opened || errors.has(target.id)) continue;
        try {
          for (let i = 0; i < options.block; i += 1) {
            const started = performance.now();
            await opened.call("ping");
            latency.get(target.id)!.push(performance.now() - started);
          }
          for (let w = 0; w < options.wavesPerRound; w += 1) {
            const started = performance.now();
            await Promise.all(Array.from({ length: options.inFlight }, (_, i) => opened.call(`ping ${i}`)));
            waves.get(target.id)!.push(performance.now() - started);
          }
          const resident = opened.pid === undefined ? undefined : rssMB(opened.pid);
          if (resident !== undefined) rss.get(target.id)!.push(resident);
        } catch (error) {
          errors.set(
            target.id,
            `${(error as Error).message} ${opened.stderr().trim().split("\n").slice(-2).join(" | ")}`,
          );
        }
      }
    });
    context.log(
      `${options.id}: ${count} rounds of ${options.block} calls and ${options.wavesPerRound} waves of ${options.inFlight}`,
    );
    return report(all, { latency, waves, rss, errors, running, count, options });
  } finally {
    await Promise.allSettled(
      [...running.values()].map(async (opened) => {
        await opened.client.close().catch(() => {});
        if (opened.child) await stopGroup(opened.child);
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(
  all: Target[],
  data: {
    latency: Map<string, number[]>;
    waves: Map<string, number[]>;
    rss: Map<string, number[]>;
    errors: Map<string, string>;
    running: Map<string, Running>;
    count: number;
    options: GatewayBenchOptions;
  },
): ScenarioResult {
  const { options } = data;
  const p50 = (id: string) => median(data.latency.get(id)!);
  const callsPerSecond = (id: string) => (options.inFlight * 1000) / median(data.waves.get(id)!);
  const memory = (id: string) => (data.rss.get(id)!.length ? median(data.rss.get(id)!) : undefined);
  const ok = (id: string) => !data.errors.has(id) && data.latency.get(id)!.length > 0;
  const peers = all.filter((target) => target.peer && ok(target.id));
  const bestPeerThroughput = Math.max(...peers.map((peer) => callsPerSecond(peer.id)));
  const bestPeerRss = Math.min(...peers.map((peer) => memory(peer.id) ?? Number.POSITIVE_INFINITY));
  const directHttp = ok("direct-http") ? p50("direct-http") : undefined;
  const directStdio = ok("direct-stdio") ? p50("direct-stdio") : undefined;
  const fixed = (value: number | undefined, digits: number) =>
    value === undefined || !Number.isFinite(value) ? "" : value.toFixed(digits);
  const header = [
    "target",
    "revision",
    "p50 ms",
    "p99 ms",
    "+p50 vs HTTP",
    "+p50 vs stdio",
    "calls/s (64)",
    "×best peer",
    "RSS MB",
    "×best peer",
  ];
  const rows: Row[] = [];
  const lines: string[][] = [];
  for (const target of all) {
    const error = data.errors.get(target.id);
    if (error || !ok(target.id)) {
      lines.push([target.label, `failed: ${(error ?? "no samples").replace(/\s+/g, " ").slice(0, 300)}`]);
      rows.push({
        id: target.id,
        label: target.label,
        median: Number.NaN,
        samples: 0,
        error: error ?? "no samples",
      });
      continue;
    }
    const values = data.latency.get(target.id)!;
    const throughput = callsPerSecond(target.id);
    const resident = memory(target.id);
    const gateway = target.start !== undefined || target.stdioGateway === true;
    lines.push([
      target.label,
      data.running.get(target.id)?.revision ?? "",
      fixed(p50(target.id), 3),
      fixed(percentile(values, 0.99), 3),
      gateway && directHttp !== undefined ? fixed(p50(target.id) - directHttp, 3) : "",
      gateway && directStdio !== undefined ? fixed(p50(target.id) - directStdio, 3) : "",
      fixed(throughput, 0),
      gateway && peers.length ? `${(throughput / bestPeerThroughput).toFixed(2)}×` : "",
      fixed(resident, 1),
      gateway && resident !== undefined && Number.isFinite(bestPeerRss)
        ? `${(resident / bestPeerRss).toFixed(2)}×`
        : "",
    ]);
    rows.push({
      id: target.id,
      label: target.label,
      revisions: data.running.get(target.id)?.revision ?? "",
      median: p50(target.id),
      p99: percentile(values, 0.99),
      callsPerSecond: throughput,
      samples: values.length,
      extra: [
        gateway && directHttp !== undefined
          ? `+${(p50(target.id) - directHttp).toFixed(3)} ms p50 over direct HTTP`
          : "",
        resident !== undefined ? `RSS ${resident.toFixed(1)} MB` : "",
      ]
        .filter(Boolean)
        .join("; "),
    });
  }
  const measured = lines.filter((cells) => cells.length === header.length);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...measured.map((cells) => cells[column]!.length)),
  );
  const render = (cells: string[]) =>
    cells.length < header.length
      ? `  ${cells[0]!.padEnd(widths[0]!)}  ${cells.slice(1).join("  ")}`
      : `  ${cells
          .map((cell, column) =>
            column <= 1 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
          )
          .join("  ")
          .trimEnd()}`;
  return {
    id: options.id,
    title: options.title,
    unit: "ms",
    method: `the bare SDK v2 Client over Streamable HTTP to each gateway (over stdio to switchyard serve), each fronting its own stdio SDK echo server; ${data.count} rounds × (${options.block} sequential calls + ${options.wavesPerRound} waves of ${options.inFlight} in flight) per target after ${options.warmup} warm-up calls, targets interleaved; +p50: over the direct connection; RSS: the gateway's own process after each round (median), its echo server not counted; ×best peer: against the best of supergateway, mcp-proxy, mcp-hub`,
    rows,
    table: [render(header), ...lines.map(render)].join("\n"),
  };
}
