// The adapters' cost per call (issue 17): the same echo call through `yard.callTool` directly, through
// a LangChain tool from switchyard/langchain (invoked with a tool call, as LangGraph's ToolNode does)
// and through an AI SDK tool from switchyard/ai-sdk (its `execute`, as generateText calls it), over
// one Switchyard and one stdio server. Variants take turns in blocks, a different one first each
// round, so outside load lands on all of them. Each call is timed alone; the model is not involved.

import { Switchyard } from "switchyard";
import { aiSdkTools } from "switchyard/ai-sdk";
import { langchainTools } from "switchyard/langchain";
import type { Row, ScenarioResult } from "../report.js";
import { SDK_SERVER } from "../servers/servers.js";
import { median, percentile, type RoundPolicy, rotate, runRounds } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

export interface AdapterBenchOptions {
  id: string;
  title: string;
  /** Calls per variant per round. */
  block: number;
  /** Calls per variant before timing starts. */
  warmup: number;
  policy: RoundPolicy;
}

interface Variant {
  id: string;
  label: string;
  call: (index: number) => Promise<unknown>;
  samples: number[];
}

export async function adapterOverhead(
  context: ScenarioContext,
  options: AdapterBenchOptions,
): Promise<ScenarioResult> {
  const yard = await Switchyard.connect({
    mcpServers: { s0: { command: process.execPath, args: [SDK_SERVER, "--tools", "echo"] } },
  });
  try {
    const server = yard.servers()[0];
    if (server?.status !== "ready") throw new Error(`the echo server failed: ${server?.error}`);
    const [lcTool] = langchainTools(yard, { names: ["s0_echo"] });
    const aiTool = aiSdkTools(yard, { names: ["s0_echo"] }).s0_echo;
    if (!lcTool || !aiTool?.execute) throw new Error("s0_echo is missing from the adapters' tools");
    const execute = aiTool.execute;
    const variants: Variant[] = [
      {
        id: "direct",
        label: "yard.callTool (no adapter)",
        call: (i) => yard.callTool("s0_echo", { text: "ping" }, { callId: `d${i}` }),
        samples: [],
      },
      {
        id: "langchain",
        label: "switchyard/langchain tool.invoke(toolCall)",
        call: (i) =>
          lcTool.invoke({ type: "tool_call", id: `l${i}`, name: "s0_echo", args: { text: "ping" } }),
        samples: [],
      },
      {
        id: "ai-sdk",
        label: "switchyard/ai-sdk tool.execute",
        call: (i) =>
          execute({ text: "ping" }, { toolCallId: `a${i}`, messages: [] } as never) as Promise<unknown>,
        samples: [],
      },
    ];
    for (const variant of variants) for (let i = 0; i < options.warmup; i += 1) await variant.call(i);
    let n = 0;
    const count = await runRounds(rounds(context, options.policy), async (round) => {
      for (const variant of rotate(variants, round)) {
        for (let i = 0; i < options.block; i += 1) {
          const started = performance.now();
          n += 1;
          await variant.call(n);
          variant.samples.push(performance.now() - started);
        }
      }
    });
    context.log(`${options.id}: ${count} rounds of ${options.block} calls per variant`);

    const base = median(variants[0]!.samples);
    const µs = (ms: number) => (ms * 1_000).toFixed(0);
    const rows: Row[] = [];
    const lines = [
      `  ${"variant".padEnd(44)} ${"p50 µs".padStart(8)} ${"p99 µs".padStart(8)}  over direct (p50)`,
    ];
    for (const variant of variants) {
      const p50 = median(variant.samples);
      const p99 = percentile(variant.samples, 0.99);
      const over = p50 - base;
      const extra =
        variant.id === "direct"
          ? ""
          : `${over >= 0 ? "+" : "−"}${µs(Math.abs(over))} µs, ${(p50 / base).toFixed(2)}×`;
      rows.push({
        id: variant.id,
        label: variant.label,
        median: p50,
        p99,
        samples: variant.samples.length,
        extra,
      });
      lines.push(`  ${variant.label.padEnd(44)} ${µs(p50).padStart(8)} ${µs(p99).padStart(8)}  ${extra}`);
    }
    return {
      id: options.id,
      title: options.title,
      unit: "ms",
      method: `${count} rounds × ${options.block} sequential echo calls per variant after ${options.warmup} warm-up calls each; one Switchyard, one stdio SDK echo server`,
      rows,
      table: lines.join("\n"),
    };
  } finally {
    await yard.close();
  }
}
