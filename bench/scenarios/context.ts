// What every scenario gets from the runner.
import type { BenchClient } from "../clients/client.js";
import type { HttpServerPool } from "../servers/servers.js";
import type { RoundPolicy } from "../stats.js";

export interface ScenarioContext {
  clients: readonly BenchClient[];
  pool: HttpServerPool;
  /** `--quick`: the fewest rounds that still give a median, for trying the bench out. */
  quick: boolean;
  /** Progress on stderr. */
  log: (message: string) => void;
}

/** The policy, or its quick variant. */
export function rounds(context: ScenarioContext, policy: RoundPolicy): RoundPolicy {
  return context.quick ? { min: Math.min(policy.min, 3), max: Math.min(policy.max, 3), budgetMs: 0 } : policy;
}
