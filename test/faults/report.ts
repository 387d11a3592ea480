// `npm run faults`: run the fault suite and print its report. Exit 1 if anything was lost.
import { runFaultSuite } from "./fault-suite.js";

const calls = Number(process.argv[2] ?? 2_000);
const report = await runFaultSuite({ calls, seed: Number(process.env.FAULT_SEED ?? 42) });
const line = (label: string, value: unknown) => console.log(`${label.padEnd(28)} ${value}`);
const counts = (record: Record<string, number>) =>
  Object.entries(record)
    .sort(([, a], [, b]) => b - a)
    .map(([key, n]) => `${key} ${n}`)
    .join(", ");

console.log(
  `fault suite: ${report.calls} concurrent calls over ${report.servers} servers (4 stdio, one of them noisy: 50–250 ms a call; 2 Streamable HTTP, one of them rate-limited: a fifth of its calls 429, Retry-After: 1; then a primary with a fallback)\n`,
);
line("faults injected", counts(report.faults));
line("outcomes", counts(report.outcomes));
line("endless HTTP answers", counts(report.outcomesByFault.endless ?? {}));
line("healthy calls p50 / p99", `${report.healthyLatencyMs.p50} ms / ${report.healthyLatencyMs.p99} ms`);
line("restarts", report.restarts);
line(
  "noisy server",
  `${report.noisy.ok} of ${report.noisy.calls} answered; its adaptive limit ${report.noisy.limit} (median as they settled; from 8)`,
);
line(
  "fallback (p1 → b1)",
  `p1 killed after the storm: ${report.fallback.ok} of ${report.fallback.calls} calls answered, ${report.fallback.servedBy} by b1`,
);
line(
  "rate-limited server",
  `${report.rateLimited.ok} of ${report.rateLimited.calls} answered after waiting; ${report.rateLimited.rateLimited} RATE_LIMITED (the wait would pass the deadline); ${report.rateLimited.retries} waits`,
);
line("breaker openings", report.breakerOpenings);
line("wall time", `${report.wallMs} ms`);
line("peak RSS", `${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
line("lost (never or twice settled)", report.lost);
line("crossed results", report.crossed);
line("wrong outcomes", report.wrong.length);
line("past deadline + 1 s", report.late);
line("unhandled rejections", report.unhandledRejections);
line("orphan processes", report.orphans);
line("fleet healthy afterwards", report.healthyAfter ? "yes" : "NO");
for (const [code, message] of Object.entries(report.samples))
  console.log(`  e.g. ${code}: ${message.slice(0, 220)}`);
for (const call of report.wrong.slice(0, 10))
  console.log(`  wrong: ${call.id} fault=${call.fault} outcome=${call.outcome}`);

const bad =
  report.lost +
    report.crossed +
    report.wrong.length +
    report.late +
    report.unhandledRejections +
    report.orphans >
    0 || !report.healthyAfter;
process.exitCode = bad ? 1 : 0;
