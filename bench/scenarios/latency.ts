// Sequential `echo` calls, one at a time, over one connection per client: p50, p99 and calls/s.
// Clients take turns in blocks, a different one first each round, so that noise on the shared
// machine spreads over all of them; every client's samples are pooled.
import type { BenchClient, ServerSpec, Session } from "../clients/client.js";
import { childPids, settle } from "../processes.js";
import { describeRevisions, type Row, type ScenarioResult, sampledRow } from "../report.js";
import { percentile, type RoundPolicy, rotate, runRounds, sum } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

export interface LatencyOptions {
  id: string;
  title: string;
  server: (client: BenchClient) => ServerSpec;
  /** Calls per client per round. */
  block: number;
  /** Calls per client before timing starts. */
  warmup: number;
  policy: RoundPolicy;
}

/**
 * One warmed-up session per client over its own server, for the scenarios of sequential calls; a
 * client that fails to connect or to warm up has its error instead.
 */
export async function warmSessions(
  context: ScenarioContext,
  options: Pick<LatencyOptions, "server" | "warmup">,
): Promise<{ sessions: Map<string, Session>; errors: Map<string, string> }> {
  const sessions = new Map<string, Session>();
  const errors = new Map<string, string>();
  for (const client of context.clients) {
    try {
      const session = await client.connect([options.server(client)]);
      sessions.set(client.id, session);
      for (let i = 0; i < options.warmup; i += 1) await session.echo(0, "warm");
    } catch (error) {
      errors.set(client.id, (error as Error).message);
    }
  }
  await settle(childPids()); // the servers just connected stay up: only pause and collect garbage
  return { sessions, errors };
}

/**
 * Rounds of blocks over the warmed sessions: each round every client, a different one first, runs
 * `block` on its session and adds the numbers it returns to its samples; a client whose block fails
 * keeps its error and takes no more turns.
 */
export async function blockRounds(
  context: ScenarioContext,
  options: Pick<LatencyOptions, "policy">,
  { sessions, errors }: { sessions: Map<string, Session>; errors: Map<string, string> },
  block: (session: Session) => Promise<number[]>,
): Promise<{ samples: Map<string, number[]>; count: number }> {
  const samples = new Map<string, number[]>(context.clients.map((client) => [client.id, []]));
  const count = await runRounds(rounds(context, options.policy), async (round) => {
    for (const client of rotate(context.clients, round)) {
      const session = sessions.get(client.id);
      if (!session || errors.has(client.id)) continue;
      try {
        samples.get(client.id)!.push(...(await block(session)));
      } catch (error) {
        errors.set(client.id, (error as Error).message);
      }
    }
  });
  return { samples, count };
}

export async function latency(context: ScenarioContext, options: LatencyOptions): Promise<ScenarioResult> {
  const warmed = await warmSessions(context, options);
  const { sessions, errors } = warmed;
  try {
    const { samples, count } = await blockRounds(context, options, warmed, async (session) => {
      const times: number[] = [];
      for (let i = 0; i < options.block; i += 1) {
        const started = performance.now();
        await session.echo(0, "ping");
        times.push(performance.now() - started);
      }
      return times;
    });
    context.log(`${options.id}: ${count} rounds of ${options.block} calls`);
    const rows: Row[] = context.clients.map((client) => {
      const values = samples.get(client.id)!;
      return sampledRow(client, values, {
        revisions: describeRevisions(sessions.get(client.id)?.revisions() ?? []),
        p99: percentile(values, 0.99),
        callsPerSecond: values.length / (sum(values) / 1000),
        error: errors.get(client.id),
      });
    });
    return {
      id: options.id,
      title: options.title,
      unit: "ms",
      method: `${count} rounds × ${options.block} calls per client after ${options.warmup} warm-up calls, clients interleaved; calls/s = calls / time spent in them`,
      rows,
    };
  } finally {
    await Promise.allSettled([...sessions.values()].map((session) => session.close()));
  }
}
