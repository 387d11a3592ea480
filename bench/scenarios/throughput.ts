// Throughput: waves of 64 `echo` calls in flight at once, over one stdio server or spread evenly
// over several; a wave's time is from the first call sent to the last answer in.
import type { BenchClient, ServerSpec, Session } from "../clients/client.js";
import { childPids, settle } from "../processes.js";
import { describeRevisions, type Row, type ScenarioResult, sampledRow } from "../report.js";
import { median, percentile, type RoundPolicy, rotate, runRounds } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

export interface ThroughputOptions {
  id: string;
  title: string;
  servers: (client: BenchClient) => ServerSpec[];
  /** Calls in flight per wave. */
  inFlight: number;
  /** Waves per client per round. */
  wavesPerRound: number;
  policy: RoundPolicy;
}

export async function throughput(
  context: ScenarioContext,
  options: ThroughputOptions,
): Promise<ScenarioResult> {
  const sessions = new Map<string, { session: Session; servers: number }>();
  const errors = new Map<string, string>();
  const samples = new Map<string, number[]>(context.clients.map((client) => [client.id, []]));
  const wave = async ({ session, servers }: { session: Session; servers: number }) => {
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < options.inFlight; i += 1) calls.push(session.echo(i % servers, `ping ${i}`));
    await Promise.all(calls);
  };
  try {
    for (const client of context.clients) {
      try {
        const specs = options.servers(client);
        const connected = { session: await client.connect(specs), servers: specs.length };
        sessions.set(client.id, connected);
        for (let i = 0; i < 5; i += 1) await wave(connected);
      } catch (error) {
        errors.set(client.id, (error as Error).message);
      }
    }
    await settle(childPids());
    const count = await runRounds(rounds(context, options.policy), async (round) => {
      for (const client of rotate(context.clients, round)) {
        const connected = sessions.get(client.id);
        if (!connected || errors.has(client.id)) continue;
        try {
          for (let i = 0; i < options.wavesPerRound; i += 1) {
            const started = performance.now();
            await wave(connected);
            samples.get(client.id)!.push(performance.now() - started);
          }
        } catch (error) {
          errors.set(client.id, (error as Error).message);
        }
      }
    });
    context.log(`${options.id}: ${count} rounds of ${options.wavesPerRound} waves`);
    const rows: Row[] = context.clients.map((client) => {
      const values = samples.get(client.id)!;
      return sampledRow(client, values, {
        revisions: describeRevisions(sessions.get(client.id)?.session.revisions() ?? []),
        p99: percentile(values, 0.99),
        callsPerSecond: (options.inFlight * 1000) / median(values),
        error: errors.get(client.id),
      });
    });
    return {
      id: options.id,
      title: options.title,
      unit: "ms",
      method: `time per wave of ${options.inFlight} calls in flight; ${count} rounds × ${options.wavesPerRound} waves per client after 5 warm-up waves, clients interleaved; calls/s = ${options.inFlight} / median wave`,
      rows,
    };
  } finally {
    await Promise.allSettled([...sessions.values()].map(({ session }) => session.close()));
  }
}
