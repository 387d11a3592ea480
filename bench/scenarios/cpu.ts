// Client CPU per call: sequential `echo` calls over one connection per client, the process's CPU time
// (user + system, `process.cpuUsage`) over each block divided by its calls. Every client runs in this
// one process and the servers in their own, so a block's CPU is the client's own work per call — the
// cost a host pays for each call, whatever the machine's load does to wall-clock times. Clients take
// turns in blocks, a different one first each round.
import { describeRevisions, type Row, type ScenarioResult, sampledRow } from "../report.js";
import { median } from "../stats.js";
import type { ScenarioContext } from "./context.js";
import { blockRounds, type LatencyOptions, warmSessions } from "./latency.js";

const SDK_IDS = ["sdk-v2", "sdk-v2-auto"];

export async function cpuPerCall(context: ScenarioContext, options: LatencyOptions): Promise<ScenarioResult> {
  const warmed = await warmSessions(context, options);
  const { sessions, errors } = warmed;
  try {
    const { samples, count } = await blockRounds(context, options, warmed, async (session) => {
      const started = process.cpuUsage();
      for (let i = 0; i < options.block; i += 1) await session.echo(0, "ping");
      const used = process.cpuUsage(started);
      return [(used.user + used.system) / options.block];
    });
    context.log(`${options.id}: ${count} rounds of ${options.block} calls`);
    const revisionOf = (id: string) => describeRevisions(sessions.get(id)?.revisions() ?? []);
    // The bare SDK on the same revision, for the 2026-07-28 rows (the ×SDK v2 column is 2025-11-25's).
    const sdkFor = new Map(
      SDK_IDS.filter((id) => samples.get(id)?.length).map((id) => [revisionOf(id), median(samples.get(id)!)]),
    );
    const rows: Row[] = context.clients.map((client) => {
      const values = samples.get(client.id)!;
      const sdk = sdkFor.get(revisionOf(client.id));
      return sampledRow(client, values, {
        revisions: revisionOf(client.id),
        ...(sdk && values.length
          ? { extra: `${(median(values) / sdk).toFixed(2)}× the SDK on its revision` }
          : {}),
        error: errors.get(client.id),
      });
    });
    return {
      id: options.id,
      title: options.title,
      unit: "µs",
      method: `client CPU (user + system) per call: ${count} rounds × ${options.block} sequential calls per client after ${options.warmup} warm-up calls, clients interleaved, median of the rounds`,
      rows,
    };
  } finally {
    await Promise.allSettled([...sessions.values()].map((session) => session.close()));
  }
}
