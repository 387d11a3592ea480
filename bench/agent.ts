// Agent loop overhead: a scripted OpenAI-compatible server answering at once, N steps each with one
// tool call; reports Switchyard's own time per step (run time minus model time minus tool time).
import { fileURLToPath } from "node:url";
import { Agent, type AgentEvent, OpenAIChatModel, Switchyard } from "../src/index.js";
import { ScriptedModel, startScriptedOpenAIServer } from "../src/testing/index.js";

const SERVER = fileURLToPath(new URL("../test/fixtures/raw-server.mjs", import.meta.url));
const STEPS = 50;
const ROUNDS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const script = (_request: unknown, index: number) =>
  index < STEPS - 1
    ? { toolCalls: [{ name: "s_echo", arguments: { text: `step ${index}` } }] }
    : { content: "done" };

export async function agentOverhead() {
  const yard = await Switchyard.connect({ mcpServers: { s: { command: process.execPath, args: [SERVER] } } });
  const server = await startScriptedOpenAIServer(script);
  const results: Record<string, number[]> = { http: [], inProcess: [] };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
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
          onEvent,
        });
        const started = performance.now();
        const result = await agent.run("Run the benchmark.");
        const total = performance.now() - started;
        if (result.steps !== STEPS) throw new Error(`expected ${STEPS} steps, got ${result.steps}`);
        results[kind]!.push((total - modelMs - toolMs) / STEPS);
      }
    }
  } finally {
    await server.close();
    await yard.close();
  }
  return {
    steps: STEPS,
    overheadMsPerStep: { http: median(results.http!), inProcess: median(results.inProcess!) },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { overheadMsPerStep } = await agentOverhead();
  console.log(
    `agent loop overhead per step (model and tool time excluded), ${STEPS} steps, median of ${ROUNDS}`,
  );
  console.log(`  model over HTTP (scripted server)  ${overheadMsPerStep.http.toFixed(3)} ms`);
  console.log(`  in-process ScriptedModel           ${overheadMsPerStep.inProcess.toFixed(3)} ms`);
}
