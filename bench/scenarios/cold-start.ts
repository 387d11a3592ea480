// Cold start: nothing → connected, initialized and tools listed, for N servers at once. Each
// measurement starts from no server process at all (stdio) or from running servers with no session
// (HTTP); clients take turns, a different one first each round.
import type { BenchClient, ServerSpec } from "../clients/client.js";
import { childPids, settle } from "../processes.js";
import { describeRevisions, type Row, type ScenarioResult, sampledRow } from "../report.js";
import { type RoundPolicy, rotate, runRounds } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

export interface ColdStartOptions {
  id: string;
  title: string;
  servers: (client: BenchClient) => ServerSpec[];
  policy: RoundPolicy;
}

export async function coldStart(
  context: ScenarioContext,
  options: ColdStartOptions,
): Promise<ScenarioResult> {
  const samples = new Map<string, number[]>(context.clients.map((client) => [client.id, []]));
  const revisions = new Map<string, string[]>(context.clients.map((client) => [client.id, []]));
  const errors = new Map<string, string>();
  // Children that outlive every measurement: the HTTP pool, and tsx's esbuild service.
  const keep = childPids();
  const count = await runRounds(rounds(context, options.policy), async (round) => {
    for (const client of rotate(context.clients, round)) {
      if (errors.has(client.id)) continue;
      const specs = options.servers(client);
      const left = await settle(keep);
      if (left.length > 0)
        context.log(`${options.id}: processes still running before ${client.id}: ${left.join(" ")}`);
      const started = performance.now();
      try {
        const session = await client.connect(specs);
        samples.get(client.id)!.push(performance.now() - started);
        revisions.get(client.id)!.push(...session.revisions());
        await session.close();
      } catch (error) {
        errors.set(client.id, (error as Error).message);
      }
    }
    context.log(`${options.id}: round ${round + 1} done`);
  });
  await settle(keep);
  const rows: Row[] = context.clients.map((client) => {
    const values = samples.get(client.id)!;
    return sampledRow(client, values, {
      revisions: describeRevisions(revisions.get(client.id)!),
      extra: values.length
        ? `range ${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`
        : "",
      error: errors.get(client.id),
    });
  });
  return {
    id: options.id,
    title: options.title,
    unit: "ms",
    method: `median of ${count} rounds, clients interleaved`,
    rows,
  };
}
