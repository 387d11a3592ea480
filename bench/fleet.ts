// Fleet benchmarks: cold start of 1 and 8 stdio servers, and callTool overhead over the bare SDK,
// measured side by side in one run. Usage: npm run bench [-- --json <file>]
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Switchyard } from "../src/index.js";

const SERVER = fileURLToPath(new URL("../test/fixtures/sdk-server.mjs", import.meta.url));
const ROUNDS = 5;
const CALLS = 2_000;
const BLOCK = 200;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

async function bareConnect(n: number): Promise<{ ms: number; clients: Client[] }> {
  const started = performance.now();
  const clients = await Promise.all(
    Array.from({ length: n }, async () => {
      const client = new Client({ name: "bench", version: "0" });
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "ignore" }),
      );
      await client.listTools();
      return client;
    }),
  );
  return { ms: performance.now() - started, clients };
}

async function yardConnect(
  n: number,
  versionNegotiation = "auto",
): Promise<{ ms: number; yard: Switchyard }> {
  const servers = Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `s${i}`,
      { command: process.execPath, args: [SERVER], versionNegotiation },
    ]),
  );
  const started = performance.now();
  const yard = await Switchyard.connect({ mcpServers: servers });
  const ms = performance.now() - started;
  if (yard.servers().some((s) => s.status !== "ready")) throw new Error("a server failed to connect");
  return { ms, yard };
}

async function coldStart(n: number) {
  const bare: number[] = [];
  const yard: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const b = await bareConnect(n);
    bare.push(b.ms);
    await Promise.all(b.clients.map((client) => client.close()));
    const y = await yardConnect(n);
    yard.push(y.ms);
    await y.yard.close();
  }
  return { servers: n, bareMs: median(bare), switchyardMs: median(yard), ratio: median(yard) / median(bare) };
}

async function callOverhead() {
  const { clients } = await bareConnect(1);
  const client = clients[0]!;
  // Same protocol revision as the bare client (2025-11-25), so only Switchyard's own work differs;
  // and the default (auto), which negotiates 2026-07-28 with this server.
  const legacy = (await yardConnect(1, "legacy")).yard;
  const auto = (await yardConnect(1, "auto")).yard;
  const series = {
    bare: () => client.callTool({ name: "echo", arguments: { text: "ping" } }),
    switchyard: () => legacy.callTool("s0_echo", { text: "ping" }),
    switchyardModern: () => auto.callTool("s0_echo", { text: "ping" }),
  };
  const samples: Record<string, number[]> = { bare: [], switchyard: [], switchyardModern: [] };
  for (let done = 0; done < CALLS; done += BLOCK) {
    for (const [name, call] of Object.entries(series)) {
      for (let i = 0; i < BLOCK; i += 1) {
        const t = performance.now();
        await call();
        samples[name]!.push(performance.now() - t);
      }
    }
  }
  await Promise.all([client.close(), legacy.close(), auto.close()]);
  return Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [
      name,
      {
        p50Ms: median(values),
        p99Ms: percentile(values, 0.99),
        ratio: median(values) / median(samples.bare!),
      },
    ]),
  );
}

const cold = [await coldStart(1), await coldStart(8)];
const calls = await callOverhead();
const fixed = (value: number, digits = 1) => value.toFixed(digits);
console.log("cold start (spawn → initialized → tools listed), median of", ROUNDS);
console.log("servers  bare SDK  Switchyard  ratio");
for (const row of cold) {
  console.log(
    `${String(row.servers).padEnd(7)}  ${fixed(row.bareMs).padStart(6)} ms  ${fixed(row.switchyardMs).padStart(7)} ms  ${fixed(row.ratio, 2)}`,
  );
}
console.log(`\nsequential echo calls over stdio, ${CALLS} each, interleaved in blocks of ${BLOCK}`);
const labels: Record<string, string> = {
  bare: "bare SDK (2025-11-25)",
  switchyard: "Switchyard (2025-11-25)",
  switchyardModern: "Switchyard (2026-07-28, default)",
};
for (const [name, row] of Object.entries(calls)) {
  console.log(
    `${labels[name]!.padEnd(33)} p50 ${fixed(row.p50Ms, 3)} ms  p99 ${fixed(row.p99Ms, 3)} ms  ratio ${fixed(row.ratio, 2)}`,
  );
}

const jsonAt = process.argv.indexOf("--json");
if (jsonAt !== -1 && process.argv[jsonAt + 1]) {
  writeFileSync(process.argv[jsonAt + 1]!, `${JSON.stringify({ cold, calls }, null, 2)}\n`);
}
