// Adaptive concurrency (issue 18): the bare SDK v2 Client, Switchyard with the fixed limit of 8
// (`maxConcurrency: 8`, the old default) and Switchyard's adaptive limit (the default now), on
//  - the fast echo server (the SDK fixture): waves of 64 calls in flight — wave time, calls/s, p99;
//  - the knee server (bench/servers/knee.mjs: 20 ms up to 8 in flight, then 20 × (n/8)² ms): 64 calls
//    kept in flight — the server's own p99 (time it spent on a call, as it measures it) against its
//    unloaded p99, what the caller waits (queueing in the client included), calls/s;
//  - the adaptive limit's convergence after a load change: from 1 call in flight to 64, the time until
//    the limit stays within ±25 % of where it settles (sampled every 10 ms);
//  - the noisy server (test/fixtures/fault-server.mjs --noisy 50-250: every call 50–250 ms at random,
//    whatever the load): 64 kept in flight — calls/s, caller p99, where the limit stands (issue 26, item 6:
//    the adaptive limit took the noise for load and fell to 1).

import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Switchyard } from "switchyard";
import { REPO } from "../paths.js";
import type { Row, ScenarioResult } from "../report.js";
import { SDK_SERVER } from "../servers/servers.js";
import { median, percentile, rotate } from "../stats.js";
import type { ScenarioContext } from "./context.js";

export const KNEE_SERVER = join(REPO, "bench/servers/knee.mjs");
const KNEE_ARGS = [KNEE_SERVER, "--base-ms", "20", "--knee", "8"];
const ECHO_ARGS = [SDK_SERVER, "--tools", "echo"];
const NOISY_ARGS = [join(REPO, "test/fixtures/fault-server.mjs"), "--noisy", "50-250"];

export interface KneeBenchOptions {
  id: string;
  title: string;
  inFlight: number;
}

/** One contender connected to one server: call a tool, read the limit (Switchyard only). */
interface Caller {
  call(tool: string, args: Record<string, unknown>): Promise<string>;
  limit(): number | undefined;
  close(): Promise<void>;
}

interface Variant {
  id: string;
  label: string;
  open(args: string[]): Promise<Caller>;
}

const VARIANTS: Variant[] = [
  {
    id: "sdk-v2",
    label: "bare SDK v2 Client",
    async open(args) {
      const client = new Client({ name: "bench", version: "0" });
      await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }));
      await client.listTools();
      return {
        call: async (name, callArgs) => {
          const result = await client.callTool({ name, arguments: callArgs });
          return (result.content as Array<{ text: string }>)[0]!.text;
        },
        limit: () => undefined,
        close: () => client.close(),
      };
    },
  },
  ...[
    { id: "switchyard-fixed8", label: "Switchyard, maxConcurrency 8 (fixed)", extra: { maxConcurrency: 8 } },
    { id: "switchyard", label: "Switchyard, adaptive (default)", extra: {} },
  ].map(
    ({ id, label, extra }): Variant => ({
      id,
      label,
      async open(args) {
        const yard = await Switchyard.connect({
          mcpServers: { s: { command: process.execPath, args, versionNegotiation: "legacy", ...extra } },
        });
        const state = yard.servers()[0]!;
        if (state.status !== "ready") {
          await yard.close();
          throw new Error(`Switchyard could not connect: ${state.error}`);
        }
        return {
          call: async (name, callArgs) => (await yard.callTool(`s_${name}`, callArgs)).text,
          limit: () => yard.servers()[0]!.limit,
          close: () => yard.close(),
        };
      },
    }),
  ),
];

/** Keep `inFlight` calls going for `ms`; each call's caller-side time and the server's own. */
async function sustain(caller: Caller, inFlight: number, ms: number, onTick?: () => void) {
  const waited: number[] = [];
  const served: number[] = [];
  const until = performance.now() + ms;
  const ticker = onTick ? setInterval(onTick, 10) : undefined;
  try {
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          const text = await caller.call("work", {});
          waited.push(performance.now() - started);
          served.push((JSON.parse(text) as { tookMs: number }).tookMs);
        }
      }),
    );
  } finally {
    if (ticker) clearInterval(ticker);
  }
  return { waited, served, calls: waited.length, seconds: ms / 1000 };
}

/** Waves of `inFlight` echo calls: each wave's time, and each call's. */
async function waves(caller: Caller, inFlight: number, count: number) {
  const waveMs: number[] = [];
  const callMs: number[] = [];
  for (let w = 0; w < count; w += 1) {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async (_, i) => {
        const sent = performance.now();
        await caller.call("echo", { text: `ping ${i}` });
        callMs.push(performance.now() - sent);
      }),
    );
    waveMs.push(performance.now() - started);
  }
  return { waveMs, callMs };
}

/**
 * When the limit, sampled over a load change, stays within ±25 % of where it settled (the median of
 * the last third of the samples): ms after the change.
 */
function convergenceMs(samples: Array<{ at: number; limit: number }>): { ms: number; settled: number } {
  const settled = median(samples.slice(Math.floor((samples.length * 2) / 3)).map((sample) => sample.limit));
  let last = 0;
  for (const sample of samples) if (Math.abs(sample.limit - settled) > settled * 0.25) last = sample.at;
  return { ms: last, settled };
}

export async function kneeBench(
  context: ScenarioContext,
  options: KneeBenchOptions,
): Promise<ScenarioResult> {
  const quick = context.quick;
  const rounds = quick ? 3 : 8;
  const wavesPerRound = quick ? 10 : 25;
  const sustainMs = quick ? 3_000 : 8_000;
  const rows: Row[] = [];
  const lines: string[] = [];
  const n = options.inFlight;

  // 1. The fast echo server, waves of 64, clients interleaved round by round.
  const echo = new Map<string, { waveMs: number[]; callMs: number[]; caller: Caller }>();
  try {
    for (const variant of VARIANTS) {
      const caller = await variant.open(ECHO_ARGS);
      echo.set(variant.id, { waveMs: [], callMs: [], caller });
      await waves(caller, n, 5);
    }
    for (let round = 0; round < rounds; round += 1) {
      for (const variant of rotate(VARIANTS, round)) {
        const entry = echo.get(variant.id)!;
        const { waveMs, callMs } = await waves(entry.caller, n, wavesPerRound);
        entry.waveMs.push(...waveMs);
        entry.callMs.push(...callMs);
      }
    }
  } finally {
    await Promise.allSettled([...echo.values()].map(({ caller }) => caller.close()));
  }
  const base = median(echo.get("sdk-v2")!.waveMs);
  lines.push(
    `  fast echo server (SDK fixture), waves of ${n} in flight, ${rounds} rounds × ${wavesPerRound} waves`,
  );
  lines.push(
    table(
      ["client", "wave ms", "calls/s", "call p99 ms", "wave ×SDK v2", "limit"],
      VARIANTS.map((variant) => {
        const { waveMs, callMs, caller } = echo.get(variant.id)!;
        const wave = median(waveMs);
        rows.push({
          id: `${variant.id}-echo`,
          label: `${variant.label}, echo`,
          median: wave,
          p99: percentile(callMs, 0.99),
          callsPerSecond: (n * 1000) / wave,
          samples: waveMs.length,
        });
        return [
          variant.label,
          wave.toFixed(2),
          ((n * 1000) / wave).toFixed(0),
          percentile(callMs, 0.99).toFixed(2),
          `${(wave / base).toFixed(2)}×`,
          String(caller.limit() ?? "-"),
        ];
      }),
    ),
  );

  // 2. The knee server: unloaded, then 64 kept in flight.
  const knee: string[][] = [];
  let unloadedP99 = Number.NaN;
  for (const variant of VARIANTS) {
    const caller = await variant.open(KNEE_ARGS);
    try {
      if (variant.id === "sdk-v2") {
        const alone = await sustain(caller, 1, quick ? 1_000 : 3_000);
        unloadedP99 = percentile(alone.served, 0.99);
      }
      const loaded = await sustain(caller, n, sustainMs);
      const served99 = percentile(loaded.served, 0.99);
      rows.push({
        id: `${variant.id}-knee`,
        label: `${variant.label}, knee`,
        median: median(loaded.waited),
        p99: percentile(loaded.waited, 0.99),
        callsPerSecond: loaded.calls / loaded.seconds,
        extra: `server p99 ${served99.toFixed(1)} ms = ${(served99 / unloadedP99).toFixed(2)}× unloaded`,
        samples: loaded.calls,
      });
      knee.push([
        variant.label,
        (loaded.calls / loaded.seconds).toFixed(0),
        served99.toFixed(1),
        `${(served99 / unloadedP99).toFixed(2)}×`,
        percentile(loaded.waited, 0.99).toFixed(0),
        String(caller.limit() ?? "-"),
      ]);
    } finally {
      await caller.close();
    }
  }
  lines.push("");
  lines.push(
    `  knee server (20 ms up to 8 in flight, then 20 × (n/8)² ms), ${n} kept in flight for ${sustainMs / 1000} s; unloaded p99 ${unloadedP99.toFixed(1)} ms (the server's own time, 1 in flight)`,
  );
  lines.push(table(["client", "calls/s", "server p99 ms", "× unloaded p99", "caller p99 ms", "limit"], knee));

  // 3. Convergence of the adaptive limit after a load change (1 → 64 in flight).
  const adaptive = VARIANTS.find((variant) => variant.id === "switchyard")!;
  const converge: string[][] = [];
  for (const [label, args, tool] of [
    ["knee server", KNEE_ARGS, "work"],
    ["fast echo server", ECHO_ARGS, "echo"],
  ] as const) {
    const caller = await adaptive.open([...args]);
    try {
      for (let i = 0; i < 20; i += 1) await caller.call(tool, { text: "x" });
      const samples: Array<{ at: number; limit: number }> = [];
      const changed = performance.now();
      const run =
        tool === "work"
          ? sustain(caller, n, quick ? 2_000 : 4_000, () =>
              samples.push({ at: performance.now() - changed, limit: caller.limit()! }),
            )
          : (async () => {
              const ticker = setInterval(
                () => samples.push({ at: performance.now() - changed, limit: caller.limit()! }),
                10,
              );
              try {
                const until = performance.now() + (quick ? 2_000 : 4_000);
                while (performance.now() < until) await waves(caller, n, 1);
              } finally {
                clearInterval(ticker);
              }
            })();
      await run;
      await delay(0);
      const { ms, settled } = convergenceMs(samples);
      converge.push([label, "1 → 64", String(settled), ms.toFixed(0)]);
      rows.push({
        id: `converge-${tool}`,
        label: `adaptive limit, ${label}, 1 → ${n} in flight`,
        median: ms,
        extra: `settled at ${settled}`,
        samples: samples.length,
      });
    } finally {
      await caller.close();
    }
  }
  lines.push("");
  lines.push("  the adaptive limit after a load change (sampled every 10 ms)");
  lines.push(table(["server", "calls in flight", "limit settled at", "ms to within ±25 %"], converge));

  // 4. The noisy server: latency that varies per call, not with load.
  const noisy: string[][] = [];
  for (const variant of VARIANTS) {
    const caller = await variant.open(NOISY_ARGS);
    try {
      const waited: number[] = [];
      const ms = quick ? 3_000 : 6_000;
      const until = performance.now() + ms;
      let id = 0;
      await Promise.all(
        Array.from({ length: n }, async () => {
          while (performance.now() < until) {
            const started = performance.now();
            await caller.call("work", { id: `c${id++}` });
            waited.push(performance.now() - started);
          }
        }),
      );
      const perSecond = waited.length / (ms / 1000);
      rows.push({
        id: `${variant.id}-noisy`,
        label: `${variant.label}, noisy`,
        median: median(waited),
        p99: percentile(waited, 0.99),
        callsPerSecond: perSecond,
        samples: waited.length,
      });
      noisy.push([
        variant.label,
        perSecond.toFixed(0),
        percentile(waited, 0.99).toFixed(0),
        String(caller.limit() ?? "-"),
      ]);
    } finally {
      await caller.close();
    }
  }
  lines.push("");
  lines.push(`  noisy server (every call 50–250 ms at random, whatever the load), ${n} kept in flight`);
  lines.push(table(["client", "calls/s", "caller p99 ms", "limit"], noisy));

  return {
    id: options.id,
    title: options.title,
    unit: "ms",
    method:
      "one stdio server per client and part; echo waves interleaved round by round; the knee parts one client after another",
    rows,
    table: lines.join("\n"),
  };
}

function table(header: string[], body: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => cells[column]!.length)),
  );
  const render = (cells: string[]) =>
    `  ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ")}`;
  return [render(header), ...body.map(render)].join("\n");
}
