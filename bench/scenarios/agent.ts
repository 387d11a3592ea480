// Agent step overhead: a scripted OpenAI-compatible server answering at once, N steps each with one
// tool call (the hand-written raw-server fixture's echo); Switchyard's own time per step is the run's
// time minus the model's and the tools' (as the agent's events time them). Switchyard only: the other
// clients have no agent loop.
import { join } from "node:path";
import { Agent, type AgentEvent, OpenAIChatModel, Switchyard } from "switchyard";
import { ScriptedModel, startScriptedOpenAIServer } from "switchyard/testing";
import { REPO } from "../paths.js";
import type { ScenarioResult } from "../report.js";
import { median, type RoundPolicy, runRounds } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

const SERVER = join(REPO, "test/fixtures/raw-server.mjs");
const STEPS = 50;

const script = (_request: unknown, index: number) =>
  index < STEPS - 1
    ? { toolCalls: [{ name: "s_echo", arguments: { text: `step ${index}` } }] }
    : { content: "done" };

export async function agentOverhead(
  context: ScenarioContext,
  options: { id: string; title: string; policy: RoundPolicy },
): Promise<ScenarioResult> {
  const yard = await Switchyard.connect({ mcpServers: { s: { command: process.execPath, args: [SERVER] } } });
  const server = await startScriptedOpenAIServer(script);
  const results = { http: [] as number[], inProcess: [] as number[] };
  try {
    const count = await runRounds(rounds(context, options.policy), async () => {
      for (const kind of ["http", "inProcess"] as const) {
        server.requests.length = 0;
        const model =
          kind === "http"
            ? new OpenAIChatModel({ baseURL: server.baseURL, model: "bench" })
            : new ScriptedModel(script);
        let modelMs = 0;
        let toolMs = 0;
        const onEvent = (event: AgentEvent) => {
          if (event.type === "model_answered") modelMs += event.ms;
          if (event.type === "call_finished") toolMs += event.ms;
        };
        const agent = new Agent({
          model,
          host: yard,
          maxSteps: STEPS + 1,
          maxIdenticalCalls: STEPS,
          maxCallsPerTool: 0,
          onEvent,
        });
        const started = performance.now();
        const result = await agent.run("Run the benchmark.");
        const total = performance.now() - started;
        if (result.steps !== STEPS) throw new Error(`expected ${STEPS} steps, got ${result.steps}`);
        results[kind].push((total - modelMs - toolMs) / STEPS);
      }
    });
    const row = (id: string, label: string, values: number[]) => ({
      id,
      label,
      median: median(values),
      extra: `range ${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}`,
      samples: values.length,
    });
    return {
      id: options.id,
      title: options.title,
      unit: "ms",
      method: `Switchyard's own time per step (run minus model minus tool time), ${STEPS} steps per run, median of ${count} runs`,
      rows: [
        row("agent-http", "Switchyard agent, model over HTTP (scripted server)", results.http),
        row("agent-in-process", "Switchyard agent, in-process ScriptedModel", results.inProcess),
      ],
    };
  } finally {
    await server.close();
    await yard.close();
  }
}
