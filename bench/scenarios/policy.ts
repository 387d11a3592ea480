// Policy decisions (issue 14): how long the one engine takes to decide a call, and to say whether
// `tools()` lists a tool, over 1,000 compiled rules — p50 and p99 per decision, the goal p99 ≤ 50 µs.
// No servers: the engine alone, on a catalog of 500 tools across 50 servers and random identities.
import { compilePolicy, type Identity, type PolicyRule, type PolicyTarget } from "switchyard";
import type { ScenarioResult } from "../report.js";
import { median, percentile } from "../stats.js";
import type { ScenarioContext } from "./context.js";

export interface PolicyBenchOptions {
  id: string;
  title: string;
  /** Rules in the policy. */
  rules: number;
  /** Decisions measured per row (after as many warm-up ones). */
  decisions: number;
}

/** mulberry32: the same rules, tools and identities on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VERBS = ["get", "list", "create", "update", "delete", "search", "export", "sync", "run", "query"];
const NOUNS = ["order", "user", "file", "ticket", "invoice", "report", "job", "log", "key", "page"];

export async function policyDecisions(
  context: ScenarioContext,
  options: PolicyBenchOptions,
): Promise<ScenarioResult> {
  const random = prng(14);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const servers = Array.from({ length: 50 }, (_, i) => `srv${i}`);
  const tools: PolicyTarget[] = servers.flatMap((server) =>
    Array.from({ length: 10 }, (_, i) => {
      const tool = `${VERBS[i]}_${pick(NOUNS)}`;
      return {
        server,
        tool,
        name: `${server}_${tool}`,
        annotations: { readOnlyHint: i < 3, destructiveHint: i === 4, openWorldHint: random() < 0.2 },
      };
    }),
  );
  const roles = Array.from({ length: 20 }, (_, i) => `role${i}`);
  const users = Array.from({ length: 200 }, (_, i) => `user${i}`);
  const rule = (): PolicyRule => {
    const made: PolicyRule = { effect: pick(["allow", "allow", "deny", "approve"] as const) };
    // Rules as a large deployment writes them: each for some roles (or users), most for one server.
    if (random() < 0.8) made.servers = [pick(servers)];
    if (random() < 0.5) made.tools = [`${pick(VERBS)}_*`, ...(random() < 0.3 ? [`*_${pick(NOUNS)}`] : [])];
    if (random() < 0.3) made.tags = [pick(["read-only", "destructive", "open-world", "internal"])];
    if (random() < 0.9) made.roles = [pick(roles), pick(roles)];
    else made.users = [pick(users), pick(users)];
    if (random() < 0.2) made.arguments = { path: { under: "/srv/data" } };
    if (random() < 0.1) made.arguments = { ...made.arguments, limit: { min: 1, max: 100 } };
    return made;
  };
  const rules = Array.from({ length: options.rules }, rule);
  // One identity in ten has a role no rule names: the default decides.
  const identities: Identity[] = Array.from({ length: 500 }, (_, i) => ({
    user: pick(users),
    roles: i % 10 === 0 ? ["visitor"] : [pick(roles), ...(random() < 0.5 ? [pick(roles)] : [])],
  }));
  const argsOf = () => ({
    path: pick(["/srv/data/a", "/srv/data/../etc/passwd", "b/c"]),
    limit: pick([5, 500]),
  });

  const rows: ScenarioResult["rows"] = [];
  const lines: string[] = [];
  for (const mode of ["first-match", "deny-overrides"] as const) {
    const compileStarted = performance.now();
    const policy = compilePolicy(
      { mode, rules },
      { servers: [{ name: "srv0", tags: { "*": ["internal"] } }] },
    )!;
    const compileMs = performance.now() - compileStarted;
    for (const kind of ["decide", "lists"] as const) {
      const samples: number[] = [];
      const effects = { allow: 0, deny: 0, approve: 0 };
      for (let i = 0; i < options.decisions * 2; i += 1) {
        const identity = pick(identities);
        const tool = pick(tools);
        const args = argsOf();
        const started = process.hrtime.bigint();
        if (kind === "decide") {
          const decision = policy.decide({ identity, tool, tags: policy.tagsOf(tool), arguments: args });
          if (i >= options.decisions) effects[decision.effect] += 1;
        } else {
          policy.lists(identity, tool);
        }
        const ns = Number(process.hrtime.bigint() - started);
        if (i >= options.decisions) samples.push(ns / 1_000);
      }
      const p50 = median(samples);
      const p99 = percentile(samples, 0.99);
      const label = `${kind === "decide" ? "decide a call" : "list a tool"}, ${mode}`;
      rows.push({
        id: `${mode}-${kind}`,
        label,
        median: p50 / 1_000,
        p99: p99 / 1_000,
        samples: samples.length,
        extra:
          kind === "decide" ? `allow ${effects.allow} deny ${effects.deny} approve ${effects.approve}` : "",
      });
      lines.push(
        `  ${label.padEnd(32)} p50 ${p50.toFixed(2).padStart(6)} µs  p99 ${p99.toFixed(2).padStart(6)} µs  max ${Math.max(
          ...samples,
        )
          .toFixed(1)
          .padStart(
            7,
          )} µs${kind === "decide" ? `  (allow ${effects.allow}, deny ${effects.deny}, approve ${effects.approve})` : ""}`,
      );
    }
    lines.push(`  compiling ${options.rules} rules (${mode}): ${compileMs.toFixed(1)} ms`);
  }
  // The worst case: every rule applies to the tool and the identity, and each one's arguments have to
  // be checked (and fail), so a decision walks all of them before the default decides.
  const walked = compilePolicy({
    rules: Array.from({ length: options.rules }, (_, i) => ({
      effect: "allow" as const,
      arguments: { limit: { min: 1_000 + i } },
    })),
  })!;
  const worst: number[] = [];
  const tool = tools[0]!;
  for (let i = 0; i < options.decisions * 2; i += 1) {
    const started = process.hrtime.bigint();
    walked.decide({ identity: identities[1]!, tool, tags: walked.tagsOf(tool), arguments: { limit: 5 } });
    const ns = Number(process.hrtime.bigint() - started);
    if (i >= options.decisions) worst.push(ns / 1_000);
  }
  const worstLabel = `decide, all ${options.rules} rules checked`;
  rows.push({
    id: "worst-case",
    label: worstLabel,
    median: median(worst) / 1_000,
    p99: percentile(worst, 0.99) / 1_000,
    samples: worst.length,
  });
  lines.push(
    `  ${worstLabel.padEnd(32)} p50 ${median(worst).toFixed(2).padStart(6)} µs  p99 ${percentile(worst, 0.99).toFixed(2).padStart(6)} µs  (the worst case: every rule applies to the tool, each one's arguments checked)`,
  );
  context.log(`${options.id}: ${options.decisions} decisions per row`);
  return {
    id: options.id,
    title: options.title,
    unit: "ms",
    method: `${options.rules} rules, 500 tools on 50 servers, 500 identities; ${options.decisions} decisions per row after as many warm-up ones, each timed alone (process.hrtime)`,
    rows,
    table: lines.join("\n"),
  };
}
